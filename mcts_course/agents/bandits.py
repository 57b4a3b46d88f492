"""Bandit rules: how to share playouts between arms (moves) whose value is uncertain.

``ucb1`` is the one UCB1 score of the library: MCTS's selection (UCT) and flat Monte Carlo's
``"ucb1"`` policy both call it, and the exercises ask for a function of the same name and
signature.  ``epsilon_greedy`` and ``softmax`` choose an arm from the statistics of all arms.

An arm's statistics are ``wins`` (the reward sum: win 1, draw 0.5, loss 0) and ``visits`` (how
often it was played).  Ties always go to the first arm (the smallest action, when the arms are
listed in ``legal_actions()`` order); randomness comes only from the ``rng`` given.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

SQRT2 = math.sqrt(2)  # the exploration constant for rewards in [0, 1] (Auer et al., 2002)
EPSILON = 0.1  # epsilon-greedy's default share of random pulls
TEMPERATURE = 0.1  # softmax's default temperature (rewards in [0, 1])


def ucb1(wins: float, visits: int, parent_visits: int, c: float = SQRT2) -> float:
    """UCB1 (Auer et al., 2002): mean reward plus an exploration bonus for rarely tried arms.

    ``wins / visits + c * sqrt(ln(parent_visits) / visits)``; ``math.inf`` for an arm never
    tried, so that every arm is tried once before any is tried twice.
    """
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def check_parameters(epsilon: float, temperature: float) -> None:
    """Raise ValueError unless ``epsilon`` is in [0, 1] and ``temperature`` is > 0 (the checks
    of every agent that takes a policy's parameters)."""
    if not 0 <= epsilon <= 1:
        raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, not {temperature}")


def first_max(values: Sequence[float]) -> int:
    """The index of the largest value; ties go to the first (smallest) index."""
    best, best_value = 0, values[0]
    for i, value in enumerate(values):
        if value > best_value:
            best, best_value = i, value
    return best


def ucb1_arm(wins: Sequence[float], visits: Sequence[int], c: float = SQRT2) -> int:
    """The arm with the highest :func:`ucb1` score (ties: the first)."""
    total = sum(visits)
    return first_max([ucb1(w, n, total, c) for w, n in zip(wins, visits, strict=True)])


def epsilon_greedy(
    wins: Sequence[float], visits: Sequence[int], rng: random.Random, epsilon: float = EPSILON
) -> int:
    """With probability ``epsilon`` a uniformly random arm (explore), else the best mean
    (exploit; ties: the first).  Arms never tried count as mean +inf, so they come first."""
    if rng.random() < epsilon:
        return rng.randrange(len(visits))
    return first_max([w / n if n else math.inf for w, n in zip(wins, visits, strict=True)])


def softmax(
    wins: Sequence[float],
    visits: Sequence[int],
    rng: random.Random,
    temperature: float = TEMPERATURE,
) -> int:
    """An arm drawn with probability proportional to ``exp(mean / temperature)`` (Boltzmann).

    An arm never tried is played first (the first such arm), since it has no mean yet.
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, not {temperature}")
    for i, n in enumerate(visits):
        if n == 0:
            return i
    means = [w / n for w, n in zip(wins, visits, strict=True)]
    top = max(means)  # subtracted so that exp() cannot overflow
    weights = [math.exp((m - top) / temperature) for m in means]
    return rng.choices(range(len(means)), weights=weights)[0]
