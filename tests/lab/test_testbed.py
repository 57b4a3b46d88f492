"""The bandit testbed: the policies behave as the theory says, on the same problems."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mcts_lab.testbed import run_testbed, smooth


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
        run_testbed("exp3")
    with pytest.raises(ValueError):
        run_testbed("ucb1", steps=5)


def test_smooth_keeps_length_and_constants():
    values = np.full(50, 0.3)
    assert len(smooth(values, 7)) == 50
    assert np.allclose(smooth(values, 7), 0.3)
    assert math.isclose(float(smooth(np.arange(10.0), 1)[4]), 4.0)


def test_the_vectorised_ucb1_is_the_library_score():
    from mcts_lab.testbed import _choose

    from mcts_course.agents.bandits import ucb1

    sums = np.array([[3.0, 1.0, 4.0], [0.0, 2.0, 6.0], [1.0, 1.0, 1.0]])
    counts = np.array([[5.0, 2.0, 7.0], [1.0, 3.0, 10.0], [4.0, 6.0, 4.0]])  # 14 pulls each
    chosen = _choose("ucb1", 14, sums, counts, np.random.default_rng(0), 0.7, 0.1, 0.1)
    for run in range(3):
        scores = [ucb1(w, int(n), 14, 0.7) for w, n in zip(sums[run], counts[run], strict=True)]
        assert chosen[run] == scores.index(max(scores))  # ties: the first arm, as the library


def test_run_bandit_pays_draws_one_half_and_keeps_checkpoints():
    from mcts_lab.testbed import run_bandit

    win = np.tile([0.0, 0.2], (400, 1))
    draw = np.tile([1.0, 0.0], (400, 1))  # arm 0 always draws: value 0.5, the best
    r = run_bandit(win, "uniform", draw=draw, steps=100, checkpoints=(10, 50), seed=0)
    assert set(r.at_regret) == {10, 50, 100}
    assert r.reward[::2].mean() == 0.5  # arm 0, pulled at even steps, pays exactly 1/2
    assert np.allclose(r.at_regret[100], 50 * 0.3)  # every pull of arm 1 loses 0.3
    assert np.all(r.at_counts[50] == 25)
    assert np.all(r.at_choice[100] == 0)  # the best mean: the drawn arm (0.5 > about 0.2)
    lo, hi = r.regret_interval(50)
    assert lo == pytest.approx(hi) == pytest.approx(25 * 0.3)


def test_intervals_cover_the_mean_and_shrink_with_runs():
    small = run_testbed("egreedy", runs=50, steps=200, seed=4, checkpoints=(100,))
    large = run_testbed("egreedy", runs=400, steps=200, seed=4, checkpoints=(100,))
    for r in (small, large):
        lo, hi = r.regret_interval()
        assert lo < r.regret[-1] < hi
        slo, shi = r.slope_interval(100)
        assert slo < r.slope(100) < shi
    width = [r.regret_interval()[1] - r.regret_interval()[0] for r in (small, large)]
    assert width[1] < width[0]


def test_a_long_run_starts_as_the_short_one():
    short = run_testbed("egreedy", epsilon=0.05, runs=60, steps=300, seed=7)
    long = run_testbed("egreedy", epsilon=0.05, runs=60, steps=600, seed=7)
    assert np.array_equal(short.regret, long.regret[:300])


def test_compare_policies_tables_and_figures():
    from mcts_lab.testbed import compare_policies

    settings = (
        ("uniform", {}, 100),
        ("egreedy", {"epsilon": 0.1}, 300),
        ("ucb1", {"c": math.sqrt(2)}, 300),
    )
    tb = compare_policies(runs=40, settings=settings, short=100, checkpoints=(50, 100, 200))
    assert list(tb.results) == ["uniform", "ε-greedy ε=0.1", "UCB1 c=√2"]
    assert set(tb.long) == {"ε-greedy ε=0.1", "UCB1 c=√2"}
    assert tb.checkpoints == (50, 100, 200, 300)
    assert 0 < tb.second_gap < tb.average_gap < 1
    assert tb.table().data.count("\n") == 1 + 3  # header, rule and a row per policy
    assert "UCB1 c=√2" in tb.long_table().data
    import matplotlib

    matplotlib.use("Agg")
    fig = tb.figure()
    long_ax = tb.long_figure().axes[0]
    # no tick past the last step (the labels at the curves' ends lie outside the axes); the
    # regret axis starts at zero and says its unit
    for ax, last in [(fig.axes[3], 100), (long_ax, 300)]:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert max(ticks) <= last < ax.get_xlim()[1] <= 1.01 * last
        assert ax.get_ylim()[0] == 0 and "wins lost" in ax.get_ylabel()
    # uniform's regret per step is the average gap (a random arm each step, in expectation)
    assert tb["uniform"].slope(10, 100) == pytest.approx(tb.average_gap, rel=0.15)


def test_thompson_pulls_an_arm_with_its_posterior_probability_of_being_the_best():
    # Arm 0 won 7 of 10, arm 1 0 of 1: P(Beta(1, 2) > Beta(8, 4)) = E[(1 - X)^2] with
    # 1 - X ~ Beta(4, 8), i.e. 4 * 5 / (12 * 13) (exercise 6.5).
    from mcts_lab.testbed import choose_arms

    runs = 20_000
    sums = np.tile([7.0, 0.0], (runs, 1))
    counts = np.tile([10.0, 1.0], (runs, 1))
    arms = choose_arms("thompson", 11, sums, counts, np.random.default_rng(0), 1.0, 0.0, 1.0)
    assert abs(np.mean(arms == 1) - 20 / 156) < 0.01


def test_optimism_makes_greedy_retry_an_arm_that_lost_once():
    from mcts_lab.testbed import choose_arms

    sums, counts = np.array([[7.0, 0.0]]), np.array([[10.0, 1.0]])
    rng = np.random.default_rng(0)
    assert choose_arms("egreedy", 11, sums, counts, rng, 1.0, 0.0, 1.0)[0] == 0  # plain greedy
    assert choose_arms("optimistic", 11, sums, counts, rng, 1.0, 0.0, 1.0, optimism=5)[0] == 1
    assert choose_arms("optimistic", 11, sums, counts, rng, 1.0, 0.0, 1.0, optimism=0.5)[0] == 0


def test_thompson_and_optimism_learn_where_plain_greedy_gets_stuck():
    greedy = run_testbed("egreedy", epsilon=0.0, runs=200, steps=1000, seed=4)
    for policy in ("thompson", "optimistic"):
        result = run_testbed(policy, runs=200, steps=1000, seed=4)
        assert result.regret[-1] < greedy.regret[-1]
        assert result.optimal[-100:].mean() > greedy.optimal[-100:].mean()
