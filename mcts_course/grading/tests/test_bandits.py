"""Public checks of exercise 7: bandit policies for flat Monte Carlo.

The choices are checked against the library's own bandit rules
(:mod:`mcts_course.agents.bandits`), the frequencies by statistical tests.  monte_carlo_move and
compare_policies are checked against their contracts by the grader alone
(``mcts_grader.tests.test_bandits``): a check that works a contract out holds the exercise's
answer, and a student's install holds none (red team 32, 03).

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import math
import random

import pytest

from mcts_course.agents.bandits import first_max, ucb1_arm


def arms(rng: random.Random, unplayed: bool = False) -> tuple[list[int], list[float]]:
    k = rng.randint(2, 9)
    counts = [rng.randint(0 if unplayed else 1, 30) for _ in range(k)]
    sums = [round(rng.uniform(0, n) * 2) / 2 for n in counts]
    return counts, sums


def frequencies(chosen: list, k: int) -> list[float]:
    counts = [0] * k
    for i in chosen:
        assert i in range(k), f"chose {i!r}, not an arm index in 0..{k - 1}"
        counts[i] += 1
    return [c / len(chosen) for c in counts]


def close(freq: list[float], probs: list[float], n: int, what: str) -> None:
    for i, (f, p) in enumerate(zip(freq, probs, strict=True)):
        tolerance = 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9
        assert abs(f - p) <= tolerance, (
            f"{what}: arm {i} was chosen {f:.3f} of the time, expected {p:.3f} "
            f"(all frequencies {[round(x, 3) for x in freq]})"
        )


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="an arm never played comes first (the smallest such index); then each policy's rule",
)
def test_unplayed_first(student):
    """all three policies play an unplayed arm first"""
    rng = random.Random(1)
    cases = [arms(rng, unplayed=True) for _ in range(100)]
    cases = [(counts, sums) for counts, sums in cases if 0 in counts]
    wants = [counts.index(0) for counts, _ in cases]
    # each policy gets its own copies: what one does to its lists cannot change the next's
    picks = {
        "ucb1_choice": student.ucb1_choice.many(copy.deepcopy([(c, s, 1.0) for c, s in cases])),
        "epsilon_greedy_choice": student.epsilon_greedy_choice.many(
            copy.deepcopy([(c, s, 0.5, random.Random(0)) for c, s in cases])
        ),
        "softmax_choice": student.softmax_choice.many(
            copy.deepcopy([(c, s, 0.2, random.Random(0)) for c, s in cases])
        ),
    }
    for name, chosen in picks.items():
        for (counts, _), want, got in zip(cases, wants, chosen, strict=True):
            assert got == want, f"{name} with counts {counts} chose {got}, expected {want}"
    # once every arm is played, each policy's own rule decides (a policy that only knows the
    # unplayed-first rule, or one rule for all three, earns nothing here)
    played = [arms(rng) for _ in range(60)]
    ucb = student.ucb1_choice.many(copy.deepcopy([(c, s, 1.0) for c, s in played]))
    greedy = student.epsilon_greedy_choice.many(
        copy.deepcopy([(c, s, 0.0, random.Random(0)) for c, s in played])
    )
    for (counts, sums), got_ucb, got_greedy in zip(played, ucb, greedy, strict=True):
        want = ucb1_arm(sums, counts, 1.0)
        assert got_ucb == want, f"ucb1_choice({counts}, {sums}, c=1) chose {got_ucb}, not {want}"
        want = first_max([x / n for n, x in zip(counts, sums, strict=True)])
        assert got_greedy == want, (
            f"epsilon_greedy_choice({counts}, {sums}, epsilon=0) chose {got_greedy}, not {want}"
        )
    hot = student.softmax_choice.repeat(4000, [5, 5, 5, 5], [5.0, 0.0, 2.0, 1.0], 1000.0, rng)
    close(frequencies(hot, 4), [0.25] * 4, 4000, "softmax with temperature 1000 (near uniform)")


@pytest.mark.points(
    2,
    exercise="bandits",
    hint="score = mean + c * sqrt(ln(total playouts) / count); ties: smallest index",
)
def test_ucb1_choice(student):
    """ucb1_choice picks the arm of highest UCB1 score on 300 random bandits"""
    rng = random.Random(2)
    cases = [(*arms(rng), rng.choice([0.0, 0.5, math.sqrt(2), 3.0])) for _ in range(300)]
    cases += [([3, 3, 3, 3], [1.5, 2.0, 1.0, 2.0], 0.0), ([2, 2], [1.0, 1.0], 1.0)]  # ties
    wants = [ucb1_arm(sums, counts, c) for counts, sums, c in cases]  # the library's UCB1
    results = student.ucb1_choice.many(copy.deepcopy(cases))
    for (counts, sums, c), want, got in zip(cases, wants, results, strict=True):
        assert got == want, f"counts {counts}, sums {sums}, c={c:.2f}: chose {got}, expected {want}"


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="with epsilon = 0 always exploit: the best mean, smallest index; with epsilon = 1 "
    "always explore (a uniformly random arm)",
)
def test_greedy(student):
    """epsilon-greedy with epsilon 0 is greedy, with epsilon 1 uniform"""
    rng = random.Random(3)
    cases = [arms(rng) for _ in range(300)] + [([4, 2, 4], [2.0, 1.0, 2.0])]
    wants = [first_max([x / n for n, x in zip(c, s, strict=True)]) for c, s in cases]
    chosen = student.epsilon_greedy_choice.many(
        copy.deepcopy([(c, s, 0.0, random.Random(0)) for c, s in cases])
    )
    for (counts, sums), want, got in zip(cases, wants, chosen, strict=True):
        assert got == want, f"counts {counts}, sums {sums}: chose {got}, the greedy arm is {want}"
    # and epsilon is not ignored: with epsilon 1 every choice is a uniformly random arm
    n = 4000
    spread = student.epsilon_greedy_choice.repeat(n, [5, 5, 5], [5.0, 0.0, 1.0], 1.0, rng)
    close(frequencies(spread, 3), [1 / 3] * 3, n, "epsilon-greedy, epsilon 1 (always explores)")


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=4,
    hint="explore with probability epsilon: a uniformly random arm (which may be the greedy one)",
)
def test_epsilon_greedy_statistics(student):
    """epsilon-greedy explores with the right frequency"""
    counts, sums = [10, 10, 10, 10, 10], [2.0, 7.0, 5.0, 1.0, 3.0]
    rng, n = random.Random(4), 20000
    chosen = student.epsilon_greedy_choice.repeat(n, counts, sums, 0.3, rng)
    close(frequencies(chosen, 5), [0.06, 0.76, 0.06, 0.06, 0.06], n, "epsilon-greedy, epsilon 0.3")
    draws_from_rng(student.epsilon_greedy_choice, counts, sums, 0.3)


def draws_from_rng(policy, counts, sums, parameter) -> None:
    """The policy's choices are the generator's: two generators of one seed, the same choices
    (a policy drawing from its own random source kept these points: red team 24, 13)."""
    runs = [policy.repeat(200, counts, sums, parameter, random.Random(41)) for _ in range(2)]
    assert runs[0] == runs[1], (
        "two generators of the same seed gave different choices: draw only from the rng "
        "you are given"
    )


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=4,
    hint="P(i) = exp(mean_i / temperature) / sum_j exp(mean_j / temperature)",
)
def test_softmax_statistics(student):
    """softmax chooses each arm with probability proportional to exp(mean / temperature)"""
    counts, sums = [4, 10, 5, 8], [1.0, 6.0, 4.0, 2.0]
    means = [s / n for n, s in zip(counts, sums, strict=True)]
    for temperature in (0.1, 0.5):
        weights = [math.exp(m / temperature) for m in means]
        probs = [w / sum(weights) for w in weights]
        rng, n = random.Random(5), 20000
        chosen = student.softmax_choice.repeat(n, counts, sums, temperature, rng)
        close(frequencies(chosen, 4), probs, n, f"softmax with temperature {temperature}")
    draws_from_rng(student.softmax_choice, counts, sums, 0.5)


@pytest.mark.points(
    1, exercise="bandits", hint="subtract the largest mean before exp() so it cannot overflow"
)
def test_softmax_small_temperature(student, submission_seed):
    """softmax with a tiny temperature picks the best arm (no overflow), not at 0.2"""
    rng = random.Random(submission_seed)  # where the best arm is: not a constant
    for _ in range(3):
        means = [2.0, 9.0, 5.0, 0.5]
        rng.shuffle(means)
        counts, best = [10] * 4, means.index(9.0)
        sums = [10 * m for m in means]
        for got in student.softmax_choice.repeat(100, counts, sums, 0.001, rng):
            assert got == best, (
                f"with counts {counts}, sums {sums} and temperature 0.001 softmax must pick the "
                f"best arm {best}, chose {got}"
            )
    # the same rule at a moderate temperature still draws the other arms (not an argmax)
    n, means = 4000, [0.2, 0.6, 0.4]
    weights = [math.exp(m / 0.2) for m in means]
    chosen = student.softmax_choice.repeat(n, [10] * 3, [10 * m for m in means], 0.2, rng)
    close(
        frequencies(chosen, 3), [w / sum(weights) for w in weights], n, "softmax, temperature 0.2"
    )
