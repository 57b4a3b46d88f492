"""Flat Monte Carlo with UCB1 (Algorithm 7.1 of the book), as a textbook prints it.

Plain Python over the game protocol (``legal_actions``, ``play``, ``is_terminal``,
``returns``, ``current_player``): no bitboards, no batches.  Every random number is drawn as
the engine draws it (``int(rng.random() * len(actions))``), so with the same seed these
functions make the same choices as the package's ``MonteCarloAgent(policy="ucb1")``; the tests
in ``tests/lab/test_textbook_mcts.py`` check it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from mcts_course.games.base import GameState

SQRT2 = math.sqrt(2)


def ucb1(w: float, n: int, big_n: int, c: float = SQRT2) -> float:
    """Mean reward plus the exploration bonus; infinite for an arm never pulled."""
    if n == 0:
        return math.inf
    return w / n + c * math.sqrt(math.log(big_n) / n)


def playout(state: GameState, player: int, rng: random.Random) -> float:
    """Random moves to the end; the reward for ``player``: 1 win, 1/2 draw, 0 loss."""
    while not state.is_terminal():
        actions = state.legal_actions()
        state = state.play(actions[int(rng.random() * len(actions))])
    return (1 + state.returns()[player]) / 2


def flat_monte_carlo(state: GameState, budget: int, rng: random.Random, c: float = SQRT2) -> int:
    """The move with the best mean after ``budget`` playouts shared out by UCB1."""
    player, actions = state.current_player, state.legal_actions()
    k = len(actions)
    w, n = [0.0] * k, [0] * k
    for t in range(budget):
        if t < k:
            i = t  # every move once
        else:  # UCB1; max() keeps the first of equal scores: the smallest move
            i = max(range(k), key=lambda j: ucb1(w[j], n[j], t, c))
        w[i] += playout(state.play(actions[i]), player, rng)
        n[i] += 1
    best = max(range(k), key=lambda j: w[j] / n[j] if n[j] else -1.0)
    return actions[best]


@dataclass
class BanditRun:
    """UCB1 on a Bernoulli bandit, step by step: what the bandit chapter's figure draws."""

    means: list[float]  # each arm's true win probability
    c: float
    steps: list[int] = field(default_factory=list)  # the steps recorded
    pulls: list[list[int]] = field(default_factory=list)  # n_i at each recorded step
    wins: list[list[float]] = field(default_factory=list)  # w_i at each recorded step

    def upper(self, step: int) -> list[float]:
        """Each arm's UCB1 score, mean + c sqrt(ln N / n), after the recorded ``step``."""
        i = self.steps.index(step)
        return [ucb1(w, n, step, self.c) for w, n in zip(self.wins[i], self.pulls[i], strict=True)]

    def figure(self):  # type: ignore[no-untyped-def]
        """Each arm's mean and UCB1 interval at the recorded steps (Figure 6.1)."""
        from mcts_course.diagrams import ucb_intervals

        return ucb_intervals(self.steps, self.pulls, self.wins, self.means, self.c)


def ucb1_bandit(
    means: list[float], budget: int, c: float = SQRT2, seed: int = 0, record: Sequence[int] = ()
) -> BanditRun:
    """Algorithm 6.1 on arms that win with probabilities ``means``, its statistics recorded
    after each step of ``record`` (default: every step)."""
    rng, k = random.Random(seed), len(means)
    run = BanditRun(list(means), c)
    w, n = [0.0] * k, [0] * k
    for t in range(budget):
        i = t if t < k else max(range(k), key=lambda j: ucb1(w[j], n[j], t, c))
        w[i] += float(rng.random() < means[i])
        n[i] += 1
        if not record or t + 1 in record:
            run.steps.append(t + 1)
            run.pulls.append(list(n))
            run.wins.append(list(w))
    return run
