"""Chapter "Flat Monte Carlo"'s experiments (mcts_lab.flat), on tiny sizes."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
from mcts_lab import flat

from mcts_course.arena import MatchResult
from mcts_course.games import Othello

matplotlib.use("Agg")
POSITION = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")


def test_playout_values_are_the_mover_s_rates():
    values = flat.playout_values(POSITION, playouts=400, seed=3)
    assert values.mover == "White" and values.moves == ["d1", "d2", "e3", "b4", "e6", "f6"]
    assert np.allclose(values.value, values.win + values.draw / 2)
    assert values.value[values.best] == values.value.max()
    assert values.value[values.runner_up()] == sorted(values.value)[-2]
    for i in range(len(values.moves)):
        lo, hi = values.interval(i)
        assert lo < values.value[i] < hi and hi - lo < 2 / math.sqrt(400)
    assert values.table().data.count("\n") == 1 + 6
    for row in values.table().data.splitlines()[2:]:  # won, drawn and lost add up to 100%
        shares = [float(cell.strip().rstrip("%")) for cell in row.split("|")[2:5]]
        assert sum(shares) == pytest.approx(100, abs=1e-9)


def test_the_mover_s_reward_is_black_s_return_turned_round_for_white():
    returns = POSITION.play(POSITION.legal_actions()[0]).rollouts(50, seed=9)
    rewards = flat._mover_rewards(POSITION, POSITION.legal_actions()[0], 50, 9)
    assert np.array_equal(rewards, (1 - returns) / 2)  # White to move


def test_running_estimates_end_at_the_mean():
    running = flat.running_estimates(POSITION, POSITION.legal_actions()[:2], n=200, seed=1)
    assert running.estimates.shape == (2, 200)
    wins = flat._mover_rewards(POSITION, POSITION.legal_actions()[1], 200, 2)
    assert running.estimates[1, -1] == pytest.approx(wins.mean())
    running.figure()


def _two_moves(good: float, bad: float) -> flat.MoveValues:
    return flat.MoveValues(
        "White",
        [0, 1],
        ["a1", "b1"],
        np.array([bad, good]),
        np.zeros(2),
        10**6,
        np.array([0.5, 0.5]),
    )


def test_allocation_finds_a_clearly_better_move_and_measures_both_regrets():
    values = _two_moves(good=0.8, bad=0.2)
    runs = flat.allocation(values, budgets=(10, 100), runs=300, seed=0)
    assert set(runs.results) == {"uniform", "UCB1 c=√2", "UCB1 c=0.5"}
    assert runs.p_best("uniform", 100) > 0.99
    assert runs.simple_regret("uniform", 100) < 0.01
    # round robin: half the playouts on the worse move, each losing 0.6
    assert runs.cumulative("uniform", 100) == pytest.approx(0.3)
    assert runs.best_share("uniform", 100) == pytest.approx(0.5)
    assert runs.cumulative("UCB1 c=0.5", 100) < runs.cumulative("uniform", 100)
    for label in runs.results:
        assert np.all(runs[label].at_counts[100].sum(axis=1) == 100)
    lo, hi = runs.difference_interval("UCB1 c=√2", 10)
    assert lo <= runs.difference("UCB1 c=√2", 10) <= hi
    assert runs.table().data.count("\n") == 1 + 2
    spending = runs.spending_table().data
    assert spending.count("\n") == 1 + 2 and "playouts on" in spending
    runs.figure()


def test_allocation_between_equal_moves_chooses_each_half_the_time():
    runs = flat.allocation(_two_moves(0.5, 0.5), budgets=(40,), runs=2000, seed=1)
    assert runs.p_best("uniform", 40) == pytest.approx(0.5, abs=0.06)  # ties go to move 0
    assert runs.simple_regret("uniform", 40) == 0


def test_spread_is_the_real_agent_s_decision():
    where = flat.spread(POSITION, budget=60, seed=1)
    assert where.moves == ["d1", "d2", "e3", "b4", "e6", "f6"]
    assert where.visits["uniform"] == [10] * 6
    assert sum(where.visits["UCB1 c=√2"]) == 60
    assert set(where.chosen) == {"uniform", "UCB1 c=√2"}
    where.figure(mover="White")


def _result(a_returns: list[int]) -> MatchResult:
    return MatchResult("othello", ("A", "B"), [0] * len(a_returns), [(r, -r) for r in a_returns])


def test_earlier_compares_the_reported_score_with_our_interval():
    ours = {20: _result([1] * 40 + [-1] * 60), 200: _result([1] * 90 + [-1] * 10)}
    reruns = {20: {"minimax, 3 plies": _result([1] * 25 + [-1] * 75)}, 200: {}}
    earlier = flat.Earlier(ours, reruns, {20: (25, 74), 200: (28, 69)})
    assert earlier.reported_score(20) == pytest.approx(0.255)
    assert not earlier.inside(ours[20], 20) and earlier.inside(reruns[20]["minimax, 3 plies"], 20)
    # two-sample intervals: 40% against 25.5% is a finding at 95%, not at 99.9%; 25% is not
    assert earlier.difference(ours[20], 20)[0] > 0
    assert earlier.difference(ours[20], 20, 0.999)[0] < 0
    lo, hi = earlier.difference(reruns[20]["minimax, 3 plies"], 20)
    assert lo < 0 < hi
    table = earlier.table(0.99).data
    assert table.count("\n") == 1 + 3 and "99.0% interval" in table and "+14.5%" in table


@pytest.mark.timeout(120)
def test_earlier_matches_play_every_match():
    earlier = flat.earlier_matches(games=2, rerun_games=1, n_jobs=1)
    assert [r.games for r in earlier.ours.values()] == [2, 2]
    assert all(
        len(v) == 2 and all(r.games == 1 for r in v.values()) for v in earlier.reruns.values()
    )
