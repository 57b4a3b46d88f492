"""The experiments of the chapter "MCTS measured" (book/10_mcts_experiments.md), at tiny sizes.

Each test runs the real experiment function with a few games or positions and checks what the
chapter relies on: the result's shape, that seeded runs repeat, and the facts the prose states
about exact values.  No timing is asserted.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from mcts_lab import duels_offline as offline
from mcts_lab import experiments as ex
from mcts_lab import flat, trap
from mcts_lab import mcts_matches as mm
from mcts_lab import reference as ref
from mcts_lab import sweeps as sw

from mcts_course.agents.exact import move_values
from mcts_course.games import ConnectFour, Othello, TicTacToe


def test_playout_value_is_the_exact_mean_of_random_play():
    # X to move with a winning square: a random playout wins at once with probability 1/3.
    state = TicTacToe.from_moves("a1 a2 b1 b2")
    value = trap.playout_value(state, state.legal_actions()[0])
    assert 0 <= value <= 1
    # The winning move's playout value is 1: the game is over.
    win = next(a for a in state.legal_actions() if state.action_to_string(a) == "c1")
    assert trap.playout_value(state, win) == 1


def test_the_trap_is_a_position_where_a_losing_move_looks_best_to_random_play():
    state = trap.find_trap()
    assert trap.trap_margin(state) > 0.1
    values = move_values(state)
    assert max(values.values()) == 0  # the best moves draw
    lure = max(values, key=lambda a: trap.playout_value(state, a))
    assert values[lure] == -1


def test_trap_experiment_counts_seeds_and_tabulates_every_move():
    state = trap.find_trap()
    result = trap.trap_experiment(state, budgets=(30, 300), seeds=3, table_budget=300)
    assert len(result.rows) == len(state.legal_actions())
    assert all(0 <= h <= 3 for h in result.flat_best + result.mcts_best + result.flat_ucb1_best)
    assert result.lure.value == -1 and all(r.value == 0 for r in result.best)
    assert all(len(replies) >= 1 for replies in result.refutations.values())
    assert "| move |" in result.table().data
    trap.plot_trap(result)


def test_decisive_classes_keep_one_canonical_position_per_symmetry_class():
    copies = trap.decisive_positions(TicTacToe)
    classes = trap.decisive_classes()
    keys = [s.symmetry_class() for s in classes]
    # every class of the decisive positions, once, by its canonical member
    assert len(set(keys)) == len(keys) == len({s.symmetry_class() for s in copies})
    assert all(s.is_canonical() for s in classes) and set(classes) <= set(copies)
    assert len(classes) < len(copies) / 7  # most classes have several copies
    conv = trap.convergence(budgets=(5,), positions=None)
    assert conv.positions == len(classes) and conv.decisive == len(copies)


def test_convergence_counts_best_moves_with_intervals():
    conv = trap.convergence(budgets=(5, 50), positions=12, seed=3)
    assert conv.positions == 12 and len(conv.mcts_hits) == 2
    assert all(0 <= s <= 1 for s in conv.mcts_share + conv.flat_share)
    lo, hi = conv.mcts_interval(1)
    assert lo <= conv.mcts_share[1] <= hi
    # one error per position and budget, on the [0, 1] scale of the values (not [-1, 1])
    assert all(len(e) == conv.positions and all(0 <= x <= 1 for x in e) for e in conv.root_errors)
    assert trap.convergence(budgets=(5,), positions=12, seed=3).mcts_hits == conv.mcts_hits[:1]
    trap.plot_convergence(conv)


def test_reward_scale_check_agrees_everywhere():
    assert sw.reward_scale_check(trials=50) == 50


def test_tuning_scan_is_paired_and_scored_against_exact_values():
    scan = sw.tuning_scan("c", (0.05, sw.C_DEFAULT, 50.0), sw.C_DEFAULT, iterations=8, seeds=2)
    n = scan.positions
    # one position per symmetry class, each scored as the share of its two searches
    assert n == len(trap.decisive_classes()) and all(len(h) == n for h in scan.hits.values())
    assert scan.seeds == 2 and set(np.unique(scan.hits[0.05])) <= {0.0, 0.5, 1.0}
    assert scan.others == [0.05, 50.0]
    # Paired on position and seed: the default compared with itself differs nowhere.
    assert not scan.difference(sw.C_DEFAULT).any()
    lo, hi = scan.interval(sw.C_DEFAULT)
    assert lo <= scan.share(sw.C_DEFAULT) <= hi
    # Seeded: a second run scores every position the same way.
    again = sw.tuning_scan("c", (0.05,), sw.C_DEFAULT, iterations=8, seeds=2)
    assert (again.hits[0.05] == scan.hits[0.05]).all()
    # c = 50 explores almost evenly and c = 0.05 almost greedily: both play best moves less
    # often than the default over the hundreds of classes, even at 8 iterations.
    assert scan.share(50.0) < scan.share(sw.C_DEFAULT)
    told = sw.holm_rejections([scan])
    assert set(told) == {("c", 0.05), ("c", 50.0)}
    sw.plot_scans([scan])


def test_threshold_choices_count_every_seed():
    tc = sw.threshold_choices(TicTacToe(), thresholds=(1, 3), iterations=30, seeds=4, depth=None)
    assert all(sum(c.values()) == 4 for c in tc.choices.values())
    assert all(len(n) == 4 for n in tc.nodes.values())
    assert tc.top(1) in tc.moves
    assert "| threshold |" in tc.table().data


def test_earlier_matches_and_reruns_are_seeded():
    rows = mm.earlier_matches(games=2, n_jobs=1)
    assert set(rows) == {"vs random", "vs minimax depth 2", "vs flat MC(200)"}
    again = mm.earlier_matches(games=2, n_jobs=1)
    assert [r.result.returns for r in rows.values()] == [r.result.returns for r in again.values()]
    assert rows["vs random"].reported == (94 + 1 / 2) / 100
    assert "| experiment |" in mm.earlier_markdown(rows).data
    assert rows["vs random"].difference(0.99)[0] < rows["vs random"].difference()[0]
    reruns = mm.earlier_reruns(games=1, n_jobs=1)
    assert len(reruns) == 4 and all(r.games == 1 for r in reruns.values())
    table = mm.reruns_markdown(reruns, rows["vs minimax depth 2"], 0.99).data
    assert "| rerun |" in table and "minus their 32.5% (99.0% interval)" in table


def test_duel_plays_equal_budgets_and_is_seeded():
    results = mm.duel(ConnectFour, budgets=(5, 20), games={5: 2, 20: 4}, seed=3, n_jobs=1)
    assert list(results) == [5, 20] and results[20].games == 4
    assert results[5].names == ("MCTS(5)", "MonteCarlo(5,ucb1)")
    again = mm.duel(ConnectFour, budgets=(5, 20), games={5: 2, 20: 4}, seed=3, n_jobs=1)
    assert [r.returns for r in results.values()] == [r.returns for r in again.values()]
    assert mm.sign(results[5]) == 0  # two games never tell agents apart, whatever they are
    four = results[20]
    assert mm.sign(four) == (1 if four.wins == 4 else -1 if four.losses == 4 else 0)
    mm.plot_duel(results, "tiny")


def test_distinct_openings_are_distinct_and_live():
    openings = ex.distinct_openings(ConnectFour, 10, 4, seed=1)
    assert len(openings) == 10
    assert len({str(o.board()) for o in openings}) == 10
    assert all(not o.is_terminal() for o in openings)
    assert [str(o.board()) for o in ex.distinct_openings(ConnectFour, 10, 4, seed=1)] == [
        str(o.board()) for o in openings
    ]


def test_round_robin_from_openings_plays_each_twice_with_both_colours():
    t = mm.equal_time_round_robin(TicTacToe, time_per_move=0.001, games=4, n_jobs=1)
    assert t.names == mm.NAMES
    for (i, j), scores in t.by_opening.items():
        assert len(scores) == 2  # games // 2 openings
        result = t.results[(i, j)]
        assert result.games == 4 and sorted(result.a_player) == [0, 0, 1, 1]
        assert sum(scores) / 2 == result.score
    assert mm.pair_scores(t, "minimax 2", "cell score") == [
        1 - x for x in mm.pair_scores(t, "cell score", "minimax 2")
    ]
    e, lo, hi = mm.elo(t, "random")
    assert e == 0 and lo == 0 == hi  # every resample is anchored at random play
    assert mm.separated(t, "MCTS", "MCTS") == 0
    cost = mm.cost_per_move(TicTacToe, time_per_move=0.001)
    assert set(cost.seconds) == set(mm.NAMES)
    assert set(cost.playouts) == {"flat MC", "MCTS"} and cost.playouts["MCTS"] >= 1
    assert "| agent |" in mm.methods_markdown(t, cost).data
    mm.plot_crosstable(t, "Tic-tac-toe", 0.001, 2)


def test_reference_searches_on_a_small_budget():
    state = ref.running_position()
    assert state.PLAYER_NAMES[state.current_player] == "White"
    r = ref.reference_searches(
        state, iterations=50, seeds=2, depths=(1, 2), flat_per_move=5, n_jobs=1
    )
    assert len(r.searches) == 2 and set(r.alphabeta) == {1, 2}
    assert set(r.earlier) == {"minimax", "flat", "mcts"}
    assert r.flat_best in r.flat
    assert "| seed |" in r.searches_markdown().data
    assert isinstance(state, Othello)
    # Flat Monte Carlo's values are the Monte Carlo chapter's computation, number for number.
    values = flat.playout_values(state, playouts=5)
    assert {m: r.flat[m][0] for m in r.flat} == {
        m: float(values.value[i]) for i, m in enumerate(values.moves)
    }


def test_stored_reference_loads_and_duels_replay():
    data = offline.load()
    stored = data["reference"]
    assert stored["iterations"] == ref.REFERENCE_ITERATIONS
    assert len(stored["searches"]) == ref.REFERENCE_SEEDS
    assert set(map(int, stored["alphabeta"])) == set(ref.ALPHABETA_DEPTHS)
    # The replay check: a seeded duel's first games come out move for move ...
    games = mm.duel(ConnectFour, budgets=(5,), games=2, seed=3, n_jobs=1, keep_moves=True)
    assert offline.recheck_duel(games, 5, games=2) == 2
    # ... and a stored game the code would not play is caught.
    games[5].moves[0] = list(reversed(games[5].moves[0]))
    assert offline.recheck_duel(games, 5, games=1) == 0
    # Round trip through the file's format.
    back = offline._duel(ConnectFour, offline._duel_json(games))
    assert back[5].returns == games[5].returns and back[5].names == games[5].names


def _two_agents(scores: list[float]) -> ex.Tournament:
    """A round robin of random play and one agent, from per-opening scores of the agent."""
    from mcts_course.stats import bradley_terry

    points = np.array([[0.0, 2 * (len(scores) - sum(scores))], [2 * sum(scores), 0.0]])
    games = np.array([[0.0, 2.0 * len(scores)], [2.0 * len(scores), 0.0]])
    names = ["random", "agent"]
    ratings = bradley_terry(names, points, games)
    return ex.Tournament(names, {}, points, games, ratings, 0.0, {(1, 0): list(scores)})


def test_elo_intervals_resample_openings():
    steady = _two_agents([0.75] * 20)  # the same score from every opening
    e, lo, hi = mm.elo(steady, "agent")
    assert lo == pytest.approx(e) and hi == pytest.approx(e)  # no opening differs from another
    mixed = _two_agents([1.0, 0.5] * 10)  # the same mean, 0.75, from differing openings
    e2, lo2, hi2 = mm.elo(mixed, "agent")
    assert e2 == pytest.approx(e) and lo2 < e2 < hi2
    assert mm.separated(mixed, "agent", "random") == 1
    assert mm.separated(mixed, "random", "agent") == -1
    even = _two_agents([1.0, 0.0] * 10)
    assert mm.separated(even, "agent", "random") == 0
