"""Grading tests of exercise 7: bandit policies for primitive Monte Carlo."""

from __future__ import annotations

import math
import random

from mcts_course.games import TicTacToe
from mcts_course.grading.framework import points
from mcts_course.solutions import bandits as ref


def arms(rng: random.Random, unplayed: bool = False) -> tuple[list[int], list[float]]:
    k = rng.randint(2, 9)
    counts = [rng.randint(0 if unplayed else 1, 30) for _ in range(k)]
    sums = [round(rng.uniform(0, n) * 2) / 2 for n in counts]
    return counts, sums


def frequencies(choose, n: int, k: int) -> list[float]:
    counts = [0] * k
    for _ in range(n):
        counts[choose()] += 1
    return [c / n for c in counts]


def close(freq: list[float], probs: list[float], n: int, what: str) -> None:
    for i, (f, p) in enumerate(zip(freq, probs, strict=True)):
        tolerance = 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9
        assert abs(f - p) <= tolerance, (
            f"{what}: arm {i} was chosen {f:.3f} of the time, expected {p:.3f} "
            f"(all frequencies {[round(x, 3) for x in freq]})"
        )


@points(1, "bandits", hint="an arm never played comes first (the smallest such index)")
def test_unplayed_first(student):
    """all three policies play an unplayed arm first"""
    rng = random.Random(1)
    for _ in range(100):
        counts, sums = arms(rng, unplayed=True)
        if 0 not in counts:
            continue
        want = counts.index(0)
        picks = {
            "ucb1_choice": student.ucb1_choice(counts, sums, 1.0),
            "epsilon_greedy_choice": student.epsilon_greedy_choice(
                counts, sums, 0.5, random.Random(0)
            ),
            "softmax_choice": student.softmax_choice(counts, sums, 0.2, random.Random(0)),
        }
        for name, got in picks.items():
            assert got == want, f"{name} with counts {counts} chose {got}, expected {want}"


@points(
    2, "bandits", hint="score = mean + c * sqrt(ln(total playouts) / count); ties: smallest index"
)
def test_ucb1_choice(student):
    """ucb1_choice picks the arm of highest UCB1 score on 300 random bandits"""
    rng = random.Random(2)
    for _ in range(300):
        counts, sums = arms(rng)
        c = rng.choice([0.0, 0.5, math.sqrt(2), 3.0])
        got, want = student.ucb1_choice(counts, sums, c), ref.ucb1_choice(counts, sums, c)
        assert got == want, f"counts {counts}, sums {sums}, c={c:.2f}: chose {got}, expected {want}"


@points(1, "bandits", hint="with epsilon = 0 always exploit: the best mean, smallest index")
def test_greedy(student):
    """epsilon-greedy with epsilon 0 is greedy"""
    rng = random.Random(3)
    for _ in range(300):
        counts, sums = arms(rng)
        got = student.epsilon_greedy_choice(counts, sums, 0.0, random.Random(0))
        want = ref.epsilon_greedy_choice(counts, sums, 0.0, random.Random(0))
        assert got == want, f"counts {counts}, sums {sums}: chose {got}, the greedy arm is {want}"


@points(
    2,
    "bandits",
    hint="explore with probability epsilon: a uniformly random arm (which may be the greedy one)",
)
def test_epsilon_greedy_statistics(student):
    """epsilon-greedy explores with the right frequency"""
    counts, sums = [10, 10, 10, 10, 10], [2.0, 7.0, 5.0, 1.0, 3.0]
    rng, n = random.Random(4), 20000
    freq = frequencies(lambda: student.epsilon_greedy_choice(counts, sums, 0.3, rng), n, 5)
    close(freq, [0.06, 0.76, 0.06, 0.06, 0.06], n, "epsilon-greedy with epsilon 0.3")


@points(2, "bandits", hint="P(i) = exp(mean_i / temperature) / sum_j exp(mean_j / temperature)")
def test_softmax_statistics(student):
    """softmax chooses each arm with probability proportional to exp(mean / temperature)"""
    counts, sums = [4, 10, 5, 8], [1.0, 6.0, 4.0, 2.0]
    means = [s / n for n, s in zip(counts, sums, strict=True)]
    for tau in (0.1, 0.5):
        weights = [math.exp(m / tau) for m in means]
        probs = [w / sum(weights) for w in weights]
        rng, n = random.Random(5), 20000
        freq = frequencies(lambda t=tau, r=rng: student.softmax_choice(counts, sums, t, r), n, 4)
        close(freq, probs, n, f"softmax with temperature {tau}")


@points(1, "bandits", hint="subtract the largest mean before exp() so it cannot overflow")
def test_softmax_small_temperature(student):
    """softmax with a tiny temperature picks the best arm (no overflow)"""
    counts, sums = [10, 10, 10], [2.0, 9.0, 5.0]
    rng = random.Random(6)
    for _ in range(200):
        got = student.softmax_choice(counts, sums, 0.001, rng)
        assert got == 1, f"with temperature 0.001 softmax must pick the best arm 1, chose {got}"


@points(2, "bandits", hint="policy(counts, sums, rng) gives the index of the move to play out")
def test_monte_carlo_move(student):
    """monte_carlo_move finds the winning move with each policy"""
    state = TicTacToe.from_moves("a1 b1 a2 b2")  # X wins at a3 (6)
    for name, params in (
        ("uniform", {}),
        ("ucb1", {}),
        ("egreedy", {"epsilon": 0.2}),
        ("softmax", {"temperature": 0.1}),
    ):
        policy = ref.make_policy(name, **params)
        for seed in range(3):
            got = student.monte_carlo_move(state, 300, policy, random.Random(seed))
            assert got == 6, f"policy {name}, seed {seed}: chose {got}, the winning move is 6 (a3)"
    calls = []

    def counting(counts, sums, rng):
        calls.append(list(counts))
        return len(calls) % len(counts)

    student.monte_carlo_move(TicTacToe(), 50, counting, random.Random(0))
    assert len(calls) == 50, f"the policy was called {len(calls)} times for 50 playouts"
    assert sum(calls[-1]) == 49, "counts must be updated after every playout"


@points(
    2,
    "bandits",
    timeout=60,
    hint="each policy's player against random play; return {policy name: score}",
)
def test_compare_policies(student):
    """compare_policies returns a score per policy; UCB1 beats random play"""
    scores = student.compare_policies(
        ("ucb1", "uniform"), TicTacToe, playouts=100, games=20, seed=1
    )
    assert set(scores) == {"ucb1", "uniform"}, f"keys should be the policy names: {scores}"
    assert all(0 <= v <= 1 for v in scores.values()), f"scores must lie in [0, 1]: {scores}"
    assert scores["ucb1"] >= 0.7, f"UCB1 Monte Carlo should beat random play: {scores}"
