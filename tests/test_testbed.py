"""The bandit testbed: the policies behave as the theory says, on the same problems."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mcts_course.lab.testbed import run_testbed, smooth


def test_uniform_allocation_has_linear_regret_and_picks_the_best_arm_one_time_in_k():
    result = run_testbed("uniform", runs=300, steps=1000, seed=1)
    assert abs(result.optimal.mean() - 0.1) < 0.01
    slope_early = result.regret[499] / 500
    slope_late = (result.regret[-1] - result.regret[499]) / 500
    assert slope_late == pytest.approx(slope_early, rel=0.05)  # a straight line


def test_ucb1_regret_grows_slower_and_slower():
    result = run_testbed("ucb1", runs=300, steps=2000, seed=1)
    first, second = result.regret[999] - result.regret[99], result.regret[-1] - result.regret[999]
    assert second < 0.6 * first  # 1000 more steps cost far less than the first 900
    uniform = run_testbed("uniform", runs=300, steps=2000, seed=1)
    assert result.regret[-1] < uniform.regret[-1] / 3


def test_greedy_policies_pull_the_best_arm_more_often_than_uniform():
    for policy, kw in [("egreedy", {"epsilon": 0.1}), ("softmax", {"temperature": 0.1})]:
        result = run_testbed(policy, runs=200, steps=500, seed=2, **kw)
        assert result.optimal[-100:].mean() > 0.4


def test_epsilon_one_is_uniform_random_play():
    result = run_testbed("egreedy", epsilon=1.0, runs=400, steps=600, seed=3)
    assert abs(result.optimal[10:].mean() - 0.1) < 0.02


def test_the_same_seed_gives_the_same_problems_and_results():
    a = run_testbed("ucb1", runs=50, steps=100, seed=5)
    b = run_testbed("ucb1", runs=50, steps=100, seed=5)
    assert np.array_equal(a.regret, b.regret)
    # every policy meets the same bandits: the first k steps (each arm once) are identical
    c = run_testbed("uniform", runs=50, steps=100, seed=5)
    assert np.array_equal(a.regret[:10], c.regret[:10])


def test_bad_arguments():
    with pytest.raises(ValueError):
        run_testbed("thompson")
    with pytest.raises(ValueError):
        run_testbed("ucb1", steps=5)


def test_smooth_keeps_length_and_constants():
    values = np.full(50, 0.3)
    assert len(smooth(values, 7)) == 50
    assert np.allclose(smooth(values, 7), 0.3)
    assert math.isclose(float(smooth(np.arange(10.0), 1)[4]), 4.0)


def test_the_vectorised_ucb1_is_the_library_score():
    from mcts_course.agents.bandits import ucb1
    from mcts_course.lab.testbed import _choose

    sums = np.array([[3.0, 1.0, 4.0], [0.0, 2.0, 6.0], [1.0, 1.0, 1.0]])
    counts = np.array([[5.0, 2.0, 7.0], [1.0, 3.0, 10.0], [4.0, 6.0, 4.0]])  # 14 pulls each
    chosen = _choose("ucb1", 14, sums, counts, np.random.default_rng(0), 0.7, 0.1, 0.1)
    for run in range(3):
        scores = [ucb1(w, int(n), 14, 0.7) for w, n in zip(sums[run], counts[run], strict=True)]
        assert chosen[run] == scores.index(max(scores))  # ties: the first arm, as the library
