"""Flat (primitive) Monte Carlo: judge each move by random playouts, no tree.

Every legal move is an arm of a multi-armed bandit whose reward is the result of a random
playout after it (win 1, draw 0.5, loss 0 for the mover).  The budget is ``playouts`` per legal
move, ``playouts * len(moves)`` in all, shared out by a policy:

* ``uniform``: round robin, then the best mean;
* ``ucb1``: the arm with the best upper confidence bound, then the most played arm;
* ``egreedy``: the best mean, except a random arm with probability epsilon; then the best mean;
* ``softmax``: an arm drawn with probability proportional to exp(mean / temperature).

Every arm is played once before a policy starts choosing.
"""

from __future__ import annotations

import math
import random
import time

from mcts_course.agents.base import Agent, argmax
from mcts_course.agents.rollout import playout, reward
from mcts_course.games.base import GameState

POLICIES = ("uniform", "ucb1", "egreedy", "softmax")


# -- bandit selection rules: (reward sums, play counts, rng, parameter) -> arm index ----------
def ucb1(wins: list[float], visits: list[int], rng: random.Random, c: float = math.sqrt(2)) -> int:
    """UCB1 (Auer et al., 2002): the arm maximising mean + c * sqrt(ln N / n)."""
    log_total = math.log(sum(visits))
    return argmax(
        [w / n + c * math.sqrt(log_total / n) for w, n in zip(wins, visits, strict=True)], rng
    )


def epsilon_greedy(
    wins: list[float], visits: list[int], rng: random.Random, epsilon: float = 0.1
) -> int:
    """With probability ``epsilon`` a random arm (explore), otherwise the best mean (exploit)."""
    if rng.random() < epsilon:
        return rng.randrange(len(visits))
    return argmax([w / n for w, n in zip(wins, visits, strict=True)], rng)


def softmax(
    wins: list[float], visits: list[int], rng: random.Random, temperature: float = 0.1
) -> int:
    """An arm drawn with probability proportional to exp(mean / temperature) (Boltzmann)."""
    means = [w / n for w, n in zip(wins, visits, strict=True)]
    top = max(means)  # subtracted so that exp() cannot overflow
    weights = [math.exp((m - top) / temperature) for m in means]
    return rng.choices(range(len(means)), weights=weights)[0]


class MonteCarloAgent(Agent):
    """Flat Monte Carlo with ``playouts`` random games per legal move, allocated by ``policy``.

    ``playout_depth`` stops playouts early (Othello then scores the discs on the board, other
    games count a draw); ``time_limit`` (seconds) stops the whole search early.
    """

    def __init__(
        self,
        playouts: int = 20,
        policy: str = "uniform",
        playout_depth: int | None = None,
        seed: int | None = None,
        *,
        c: float = math.sqrt(2),
        epsilon: float = 0.1,
        temperature: float = 0.1,
        time_limit: float | None = None,
    ):
        super().__init__(seed)
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, not {playouts}")
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, not {temperature}")
        if playout_depth is not None and playout_depth < 0:
            raise ValueError(f"playout_depth must be >= 0, not {playout_depth}")
        self.playouts = playouts
        self.policy = policy
        self.playout_depth = playout_depth
        self.c, self.epsilon, self.temperature = c, epsilon, temperature
        self.time_limit = time_limit
        self.last_stats: list[dict] = []  # per move of the last search: action, visits, wins, mean
        self.name = f"MonteCarlo({playouts}{'' if policy == 'uniform' else ',' + policy})"

    def _choose(self, wins: list[float], visits: list[int], t: int) -> int:
        if self.policy == "uniform":
            return t % len(visits)
        if self.policy == "ucb1":
            return ucb1(wins, visits, self.rng, self.c)
        if self.policy == "egreedy":
            return epsilon_greedy(wins, visits, self.rng, self.epsilon)
        return softmax(wins, visits, self.rng, self.temperature)

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:
            self.last_stats = []
            return actions[0]
        player = state.current_player
        children = [state.play(a) for a in actions]
        k = len(actions)
        wins, visits = [0.0] * k, [0] * k
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        for t in range(self.playouts * k):
            if t >= k and deadline is not None and time.perf_counter() > deadline:
                break
            i = t if t < k else self._choose(wins, visits, t)  # each arm once first
            wins[i] += reward(playout(children[i], self.rng, self.playout_depth), player)
            visits[i] += 1
        self.last_stats = [
            {"action": a, "move": state.action_to_string(a), "visits": n, "wins": w, "mean": w / n}
            for a, w, n in zip(actions, wins, visits, strict=True)
        ]
        if self.policy == "ucb1":  # the most played arm is the most trusted one
            return actions[argmax(visits, self.rng)]
        return actions[argmax([w / n for w, n in zip(wins, visits, strict=True)], self.rng)]
