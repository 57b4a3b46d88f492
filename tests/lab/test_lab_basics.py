"""The first chapters' experiments (mcts_lab.basics) measure what they say, on tiny sizes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from mcts_lab import basics

from mcts_course.agents.minimax import minimax_value
from mcts_course.games import ConnectFour, Othello, TicTacToe


def test_random_games_are_seeded_and_counted():
    games = basics.random_games(12, seed=3)
    again = basics.random_games(12, seed=3)
    assert games.games == 12 == len(games.margins) == len(games.lengths)
    assert (games.black, games.white, games.draws) == (again.black, again.white, again.draws)
    assert list(games.margins) == list(again.margins)
    assert games.black == sum(m > 0 for m in games.margins)
    assert games.draws == sum(m == 0 for m in games.margins)
    low, high = games.black_interval
    assert low <= games.black_share <= high
    assert 0 <= games.share_within(4) <= 1 and 0 <= games.share_beyond(20) <= 1
    assert min(games.lengths) >= 9  # the shortest possible Othello game
    games.plot()


def test_legal_move_counts_are_seeded_and_leave_out_passes():
    counts = basics.legal_move_counts(3, seed=2)
    assert list(counts) == list(basics.legal_move_counts(3, seed=2))
    assert counts[0] == 4 and counts.min() >= 1  # Black's four first moves; no pass counted
    assert len(counts) <= 3 * 60  # one disc placed per counted turn, on 60 empty squares


def test_root_values_and_the_tie_rule():
    position = basics.running_position()
    assert position.current_player == 1 and len(position.legal_actions()) == 6
    values = basics.root_values(position, depth=1)
    assert set(values) == set(position.legal_actions())
    assert values == {
        a: minimax_value(position.play(a), 0, basics.cell_score, 1)
        for a in position.legal_actions()
    }
    assert basics.best_of({5: 1.0, 3: 1.0, 9: 0.0}) == 3


def test_random_positions_are_distinct_and_playable():
    positions = basics.random_positions(Othello, 5, plies=(2, 6), seed=1)
    assert len(positions) == len(set(positions)) == 5
    assert not any(s.is_terminal() for s in positions)


def test_alphabeta_agrees_with_minimax_and_visits_fewer_nodes():
    positions = basics.random_positions(Othello, 3, plies=(4, 10), seed=2)
    agreement = basics.alphabeta_agreement(positions, depth=2)
    assert agreement.agree == agreement.positions == 3
    assert agreement.alphabeta_nodes <= agreement.minimax_nodes


def test_node_counts_and_their_figure_have_integer_depths():
    position = basics.running_position()
    counts = basics.node_counts(
        [position], {"minimax": [1, 2], "alpha-beta, ordered": [1, 2]}, title="test"
    )
    assert counts.at("minimax", 1) == 1 + len(position.legal_actions())
    assert counts.at("alpha-beta, ordered", 2) <= counts.at("minimax", 2)
    ax = counts.plot()
    assert all(float(t).is_integer() for t in ax.get_xticks())


def test_connect_four_counts_and_knuth_moore():
    counts = basics.connect_four_counts(positions=1, seed=0, max_depth=2, minimax_depth=2)
    assert counts.positions == 1 and counts.branching == 7
    assert counts.counts["minimax"][1] == 8  # the root and its seven columns
    assert counts.perfect_leaves(2) == 7 + 7 - 1
    assert counts.whole_tree(2) == 1 + 7 + 49
    assert set(counts.counts) == {"minimax", "alpha-beta, left to right", "alpha-beta, best first"}
    assert isinstance(ConnectFour(), ConnectFour)


def test_iterative_deepening_costs_at_least_one_search():
    cost = basics.deepening_cost(basics.running_position(), depths=[1, 2, 3])
    assert cost.single[0] == cost.iterative[0]
    assert all(i >= s for s, i in zip(cost.single, cost.iterative, strict=True))
    assert cost.overhead(3) >= 1


def test_depth_by_time_reaches_depth_one_and_draws_integer_ticks():
    result = basics.depth_by_time(basics.running_position(), limits=[0.001, 0.01])
    assert all(d >= 1 for d in result.depths)  # depth 1 always finishes
    ax = result.plot()
    assert all(float(t).is_integer() for t in ax.get_yticks())
    low, high = ax.get_ylim()
    assert low <= 0 and high > max(result.depths)  # the markers fit inside the axes


def test_depth_by_time_with_repeats_reports_medians_and_says_so():
    result = basics.depth_by_time(basics.running_position(), limits=[0.005], repeats=3)
    assert result.repeats == 3 and len(result.depths) == len(result.nodes) == 1
    assert result.depths[0] >= 1 and result.nodes[0] > 0
    assert "medians of 3 runs" in result.plot().get_title()


def test_negamax_agrees_with_minimax_on_tictactoe():
    positions = basics.random_positions(TicTacToe, 4, plies=(3, 5), seed=0)
    assert basics.negamax_agreement(positions) == 4
    assert basics.game_result(TicTacToe.from_moves("a1 b1 a2 b2 a3"), 0) == 1.0
    assert basics.game_result(TicTacToe(), 0) == 0.0


def test_perfect_nodes_is_what_a_perfectly_ordered_search_visits():
    # A tree whose leaves are all equal is perfectly ordered whatever the order: alpha-beta
    # then visits exactly Knuth and Moore's minimal tree, inner nodes included.
    from mcts_course.agents.minimax import SearchStats, alphabeta_value
    from mcts_course.trees import ExplicitTree

    zeros = [[[[0] * 3] * 3] * 3] * 3  # b = 3, depth 4
    stats = SearchStats()
    alphabeta_value(
        ExplicitTree.from_nested(zeros), 4, lambda s, p: s.value(), 0, stats=stats, order=False
    )
    counts = basics.NodeCounts("zeros", 1, {}, branching=3)
    assert counts.perfect_leaves(4) == 17
    assert counts.perfect_nodes(4) == 1 + 3 + 5 + 11 + 17 == stats.nodes


def test_opening_pairs_score_each_opening_with_both_colours():
    from mcts_course.agents import CellScoreAgent, RandomAgent

    pairs = basics.opening_pairs(CellScoreAgent(), RandomAgent(seed=0), Othello, 4, (2, 4), seed=0)
    assert pairs.openings == 4 and set(pairs.scores) <= {0.0, 0.25, 0.5, 0.75, 1.0}
    same = basics.opening_pairs(CellScoreAgent(), CellScoreAgent(), Othello, 3, (2, 4), seed=0)
    # an agent against itself: each opening's two games are the same game, colours swapped
    assert same.scores == [0.5, 0.5, 0.5]


def test_the_stored_minimax_openings_replay():
    from mcts_lab import minimax_openings

    stored = minimax_openings.load()
    assert stored.openings == minimax_openings.OPENINGS
    assert minimax_openings.recheck(stored, 2)
    low, high = stored.interval()
    assert low < stored.score < high


def test_the_symmetry_key_joins_an_opening_with_its_mirror_images_only():
    after_d3 = Othello().play(Othello().parse_action("d3"))
    others = [Othello().play(a) for a in Othello().legal_actions()]
    # the four first moves are one opening up to symmetry, and White is then to move
    assert len({basics.othello_symmetry_key(s) for s in others}) == 1
    assert basics.othello_symmetry_key(after_d3) != basics.othello_symmetry_key(Othello())
    # after two plies, positions that no symmetry maps onto each other keep different keys
    two = {s.play(a) for s in others for a in s.legal_actions()}
    keys = {basics.othello_symmetry_key(s) for s in two}
    assert 1 < len(keys) < len(two)


def test_random_positions_with_a_key_draw_distinct_keys_and_default_is_unchanged():
    plain = basics.random_positions(Othello, 40, plies=(2, 4), seed=1)
    assert len(set(plain)) == 40
    keyed = basics.random_positions(
        Othello, 40, plies=(2, 4), seed=1, key=basics.othello_symmetry_key
    )
    assert len({basics.othello_symmetry_key(s) for s in keyed}) == 40
    # without the key, these short openings repeat mirror images of one another
    assert len({basics.othello_symmetry_key(s) for s in plain}) < 40


def test_the_minimax_openings_are_distinct_up_to_symmetry_and_plain_draws_would_repeat():
    from mcts_lab import minimax_openings

    assert minimax_openings.distinct_openings(30) == 30
    drawn, distinct, up_to_symmetry = minimax_openings.plain_draws(60)
    assert drawn == 60 and up_to_symmetry < distinct < drawn
    one_ply = minimax_openings.one_ply(3)
    assert one_ply.names == ("AlphaBeta(1)", "CellScore")
    assert all(score in (0.0, 0.25, 0.5, 0.75, 1.0) for score in one_ply.scores)
