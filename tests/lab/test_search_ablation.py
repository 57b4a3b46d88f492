"""What the search adds (mcts_lab.search_ablation): mistakes on tic-tac-toe's solved positions."""

from __future__ import annotations

import pytest
from mcts_lab import search_ablation as sa
from mcts_lab.learning import Truth

from mcts_course.agents.exact import move_values
from mcts_course.games import TicTacToe
from mcts_course.learn.network import PolicyValueNet, Predictor


@pytest.fixture(scope="module")
def truth() -> Truth:
    return Truth(TicTacToe)


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    return Predictor(PolicyValueNet.for_game(TicTacToe, hidden=(16,), seed=4).to_json())


@pytest.fixture(scope="module")
def arms(predictor, truth) -> sa.Ablation:
    return sa.ablation(predictor, truth, iterations=20, sample=60, seed=3)


def test_a_mistake_is_a_move_the_exact_search_calls_worse(arms, truth, predictor):
    # Recompute the policy arm's mistakes from the exact move values, position by position.
    import random

    indices = [k for k in range(truth.positions) if truth.matters[k]]
    sample = sorted(random.Random(3).sample(indices, 60))
    for k, mistake in zip(sample, arms.mistakes[sa.POLICY], strict=True):
        state = truth.states[k]
        priors, _ = predictor.predict(state)
        move = max(sorted(priors), key=priors.__getitem__)
        values = move_values(state)
        assert mistake == int(values[move] < max(values.values()))


def test_the_arms_are_paired_and_repeat_for_the_same_seed(arms, predictor, truth):
    assert set(arms.mistakes) == set(sa.ARMS)
    assert all(len(m) == arms.positions == 60 for m in arms.mistakes.values())
    again = sa.ablation(predictor, truth, iterations=20, sample=60, seed=3)
    assert again.mistakes == arms.mistakes


def test_differences_against_the_full_search(arms):
    diffs = arms.differences()
    assert sa.FULL not in diffs and set(diffs) == set(sa.ARMS) - {sa.FULL}
    for arm, (difference, (low, high), p) in diffs.items():
        assert difference == pytest.approx(arms.rate(arm) - arms.rate(sa.FULL))
        assert low <= difference <= high and 0 < p <= 1
    # the rate is over the classes; the share counts every copy
    assert arms.share(sa.POLICY) == sum(arms.mistakes[sa.POLICY]) / arms.positions


def test_the_class_is_the_unit(arms, truth):
    # The labels are the positions' symmetry classes: copies of one class share a label, and
    # a class's number is the mean over its members.
    assert len(arms.classes) == arms.positions and arms.units == len(set(arms.classes))
    labels = sa.choice_classes(truth)
    assert len(labels) == truth.choices and len(set(labels)) < truth.choices / 7
    b2 = TicTacToe.from_moves("b2 a1")
    assert b2.symmetry_class() == TicTacToe.from_moves("b2 c3").symmetry_class()
    assert sa.class_rates([1, 0, 1, 1], ["a", "a", "b", "a"]) == [2 / 3, 1.0]
    rates = arms.class_rates(sa.POLICY)
    assert len(rates) == arms.units
    assert arms.rate(sa.POLICY) == pytest.approx(sum(rates) / len(rates))
    assert arms.classes_with_mistakes(sa.POLICY) == sum(r > 0 for r in rates)


def test_the_sign_test_over_classes_counts_classes_not_copies():
    # eight copies of one class erring count once: one class against none is no evidence
    assert sa.class_sign_p([1.0, 0.0, 0.0], [0.0, 0.0, 0.0]) == 1.0
    assert sa.class_sign_p([0.5] * 9, [0.0] * 9) == pytest.approx(2 / 2**9)
    assert sa.class_sign_p([0.5, 0.0], [0.0, 0.25]) == 1.0  # one each way


def test_a_huge_c_makes_the_search_follow_the_prior(predictor, truth):
    # With c large the bonus swamps the means: visits go by the prior, so the most visited move
    # is (nearly always) the policy's favourite and the mistakes approach the policy alone's.
    scan = sa.c_scan(predictor, truth, (1e6,), iterations=30)
    policy = sa.ablation(predictor, truth, arms=(sa.POLICY,)).mistakes[sa.POLICY]
    same = sum(a == b for a, b in zip(scan[1e6], policy, strict=True))
    assert same >= 0.95 * len(policy)


def test_the_strength_curve_plays_each_kept_generation(predictor):
    class Run:  # what strength_curve reads of a LearningRun
        snapshots = {1: "weights"}  # only the generations are read

        def predictor(self, generation):
            return predictor

    curve = sa.strength_curve(Run(), iterations=10, games=6, seed=2)
    assert list(curve.results) == [1] and curve.results[1].games == 6
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    curve.draw(ax)
    assert any(a.get_gid() == "strength" for a in ax.get_children())
    plt.close(fig)


def test_processes_do_not_change_the_mistakes(predictor, truth):
    one = sa.ablation(predictor, truth, iterations=10, sample=30, seed=5, arms=sa.ARMS[:3])
    two = sa.ablation(
        predictor, truth, iterations=10, sample=30, seed=5, arms=sa.ARMS[:3], n_jobs=2
    )
    assert one.mistakes == two.mistakes


def test_by_generation_searches_each_kept_network(predictor, truth):
    class Run:
        snapshots = {3: "weights", 1: "weights"}

        def predictor(self, generation):
            return predictor

    found = sa.by_generation(Run(), truth, iterations=5)
    assert list(found) == [1, 3] and found[1] == found[3]
    assert (
        found[1] == sa.ablation(predictor, truth, iterations=5, arms=(sa.FULL,)).mistakes[sa.FULL]
    )


def test_the_sign_flip_test_ignores_positions_that_agree():
    same = [0, 1, 1, 0]
    assert sa.sign_flip_p(same, same) == 1.0
    a = [0] * 500 + [1] * 12
    b = [0] * 500 + [0] * 12
    assert sa.sign_flip_p(a, b) < 0.01  # twelve differences, all one way
    assert sa.sign_flip_p(a, b) == sa.sign_flip_p([1] * 12, [0] * 12)
