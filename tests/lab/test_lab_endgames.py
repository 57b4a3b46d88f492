"""The endgame chapter's experiments, small and fast."""

from __future__ import annotations

from mcts_lab.endgames import (
    ffo_solutions,
    ffo_table,
    handover_match,
    mcts_at_solver_time,
    seeded_openings,
    solver_share,
)
from mcts_lab.ffo import load_ffo, share_table

from mcts_course.agents import MCTSAgent
from mcts_course.games import Othello

FFO = load_ffo()


def test_the_ffo_table_checks_the_solver_against_the_file():
    solutions = ffo_solutions([FFO[4], FFO[6]])  # #5 and #7: small trees
    assert [s.position.number for s in solutions] == [5, 7]
    assert all(s.agrees and s.nodes > 0 and s.seconds > 0 for s in solutions)
    text = ffo_table(solutions)._repr_markdown_()
    assert "+32" in text and "g8" in text  # #5: g8 wins by 32, as published
    share = solver_share(solutions)
    assert share.best == share.kept == share.trials == 2


def test_mcts_gets_the_solvers_time_in_each_position():
    solutions = ffo_solutions([FFO[4]])
    equal = mcts_at_solver_time(solutions, seeds=2, n_jobs=1)
    assert equal.share.trials == 2 and equal.iterations >= 1
    assert 0 <= equal.share.best <= equal.share.kept <= 2
    assert len(share_table([solver_share(solutions), equal.share]).rows) == 2


def test_openings_are_distinct_and_seeded():
    openings = seeded_openings(6, plies=4, seed=3)
    assert len(set(openings)) == 6 and openings == seeded_openings(6, plies=4, seed=3)
    assert all(isinstance(s, Othello) and (s.black | s.white).bit_count() == 8 for s in openings)


def test_the_handover_match_alternates_colours_and_times_the_solver():
    match = handover_match(0.002, 6, openings=2, plies=44, seed=1, n_jobs=1)
    result = match.result
    assert result.games == 4 and result.a_player == [0, 1, 0, 1]
    assert result.wins + result.draws + result.losses == 4
    moves = match.solver_moves()
    assert moves and all(m.agent == 0 and m.empties <= 6 for m in moves)
    assert len(match.first_solver_seconds()) == 4
    assert len(match.later_solver_seconds()) == len(moves) - 4
    later = match.later_solver_seconds()
    assert min(later) <= match.median_later_seconds <= max(later)
    assert 0 <= match.within_budget <= 1
    assert "6 empty squares" in match.table()._repr_markdown_()


def test_the_handover_interval_is_over_openings_not_games():
    from mcts_lab.endgames import HandoverMatch

    from mcts_course.arena import MatchResult

    def made(a_returns: list[int]) -> HandoverMatch:
        # The hybrid is player 0 in every game here, so its returns are the games' first returns.
        result = MatchResult(
            game="othello",
            names=("hybrid", "mcts"),
            a_player=[0] * len(a_returns),
            returns=[(r, -r) for r in a_returns],
            seed=0,
            player_names=("Black", "White"),
            seconds=0.0,
        )
        return HandoverMatch(0.01, 6, result, [[] for _ in a_returns])

    # Four openings: won twice, drawn and lost, won once, lost twice.
    match = made([1, 1, 1, -1, 1, 0, -1, -1])
    assert match.opening_scores() == [1.0, 0.5, 0.75, 0.0]
    low, high = match.opening_interval
    assert low <= 0.5625 <= high
    # Every opening split one-one: each opening scores 1/2, so the bootstrap has nothing to
    # vary, while a Wilson interval over the 8 games would still be wide.
    split = made([1, -1] * 4)
    assert split.opening_interval == (0.5, 0.5)
    assert split.result.interval[0] < 0.4


def test_root_versus_exact_puts_the_published_margins_beside_the_visits():
    from mcts_lab.endgames import reply_margins, root_versus_exact

    position = FFO[4]  # #5: g8 wins by 32
    seen = root_versus_exact(position, iterations=200, seed=0)
    assert sum(r["visits"] for r in seen.rows) == 200  # every iteration goes through a child
    assert seen.choice == seen.rows[0]["action"]
    assert "+32" in seen.table()._repr_markdown_()
    # After g8 every White reply loses (the published margin of g8 is +32 for Black).
    replies = reply_margins(position, position.state.parse_action("g8"))
    assert max(replies.values()) == -32
    # Below g8, the tree's replies carry Black's mean and Black's exact margin: the negation
    # of White's margins, and at most the -32 White's best reply leaves.
    g8 = position.state.parse_action("g8")
    below = seen.replies(g8)
    node = seen.root.children[g8]
    assert sum(r["visits"] for r in below) == node.visits - 1  # the first visit expands g8
    assert {r["move"]: r["margin"] for r in below} == {m: -v for m, v in replies.items()}
    assert all(0 <= r["mean"] <= 1 for r in below)
    # Black's wins below the replies are g8's, less the one playout that expanded g8
    left = node.wins - sum(r["mean"] * r["visits"] for r in below)
    assert -1e-9 <= left <= 1 + 1e-9
    table = seen.replies_table([g8], "Black").data
    assert "+32" in table and "Black's mean" in table


def test_choices_over_seeds_repeat_one_search_per_seed():
    from mcts_lab.endgames import choices_over_seeds

    position = FFO[4]
    picks = choices_over_seeds(position, iterations=50, seeds=3)
    assert picks == [MCTSAgent(50, seed=s).select_action(position.state) for s in range(3)]
