"""Flat (primitive) Monte Carlo: judge each move by random playouts, no tree.

Every legal move is an arm of a multi-armed bandit whose reward is the result of a random
playout after it (win 1, draw 0.5, loss 0 for the mover).  The budget counts playouts per
decision, in total: ``MonteCarloAgent(playouts=200)`` spends 200 playouts on a move, shared
out among the legal moves by a policy (:mod:`mcts_course.agents.bandits`):

* ``uniform``: round robin over the moves (the default);
* ``ucb1``: the arm with the highest :func:`~mcts_course.agents.bandits.ucb1` score;
* ``egreedy``: the best mean, except a random arm with probability epsilon;
* ``softmax``: an arm drawn with probability proportional to exp(mean / temperature).

Every arm is played once before a policy starts choosing.  Whatever the policy, the move played
is the one with the best mean reward (ties: the smallest action).
``MonteCarloAgent(playouts_per_move=20)`` gives each legal move 20 playouts instead (20 times
the number of moves in total).
"""

from __future__ import annotations

import time
from typing import TypedDict

from mcts_course.agents.bandits import (
    EPSILON,
    SQRT2,
    TEMPERATURE,
    check_parameters,
    epsilon_greedy,
    first_max,
    softmax,
    ucb1_arm,
)
from mcts_course.agents.base import Agent
from mcts_course.agents.rollout import playout, reward
from mcts_course.games.base import GameState

POLICIES = ("uniform", "ucb1", "egreedy", "softmax")
DEFAULT_PLAYOUTS = 200  # per decision, in total, when neither a budget nor a time is given


class MoveStats(TypedDict):
    """One move of the last search: its action and name, playouts, wins and mean reward."""

    action: int
    move: str
    visits: int
    wins: float
    mean: float


class MonteCarloAgent(Agent):
    """Flat Monte Carlo: ``playouts`` random games per decision in total, allocated by ``policy``.

    ``playouts_per_move`` instead gives every legal move that many playouts.  ``time_limit``
    (seconds) alone searches for that time; with a budget, whichever ends first.  Neither:
    200 playouts in total.  ``playout_depth`` stops playouts early (Othello then scores the discs
    on the board, other games count a draw).
    """

    def __init__(
        self,
        playouts: int | None = None,
        *,
        playouts_per_move: int | None = None,
        policy: str = "uniform",
        c: float = SQRT2,
        epsilon: float = EPSILON,
        temperature: float = TEMPERATURE,
        playout_depth: int | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
    ):
        super().__init__(seed)
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")
        if playouts is not None and playouts_per_move is not None:
            raise ValueError("give playouts (in total) or playouts_per_move, not both")
        if playouts is None and playouts_per_move is None and time_limit is None:
            playouts = DEFAULT_PLAYOUTS
        for name, value in (("playouts", playouts), ("playouts_per_move", playouts_per_move)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1, not {value}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be > 0 seconds, not {time_limit}")
        check_parameters(epsilon, temperature)
        if c < 0:
            raise ValueError(f"c must be >= 0, not {c}")
        if playout_depth is not None and playout_depth < 0:
            raise ValueError(f"playout_depth must be >= 0, not {playout_depth}")
        self.playouts = playouts
        self.playouts_per_move = playouts_per_move
        self.policy = policy
        self.playout_depth = playout_depth
        self.c, self.epsilon, self.temperature = c, epsilon, temperature
        self.time_limit = time_limit
        self.last_stats: list[MoveStats] = []  # per move of the last search
        budget = [] if playouts is None else [f"{playouts}"]
        budget += [] if playouts_per_move is None else [f"{playouts_per_move}/move"]
        budget += [] if time_limit is None else [f"{time_limit:g}s"]
        budget += [] if policy == "uniform" else [policy]
        self.name = f"MonteCarlo({','.join(budget)})"

    def budget(self, moves: int) -> float:
        """The playouts one decision among ``moves`` legal moves may spend (inf: time only)."""
        if self.playouts is not None:
            return self.playouts
        if self.playouts_per_move is not None:
            return self.playouts_per_move * moves
        return float("inf")

    def _choose(self, wins: list[float], visits: list[int], t: int) -> int:
        if self.policy == "uniform":
            return t % len(visits)
        if self.policy == "ucb1":
            return ucb1_arm(wins, visits, self.c)
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
        budget = self.budget(k)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        t = 0
        while t < budget:
            if t >= k and deadline is not None and time.perf_counter() > deadline:
                break
            i = t if t < k else self._choose(wins, visits, t)  # each arm once first
            wins[i] += reward(playout(children[i], self.rng, self.playout_depth), player)
            visits[i] += 1
            t += 1
        self.last_stats = [
            {
                "action": a,
                "move": state.action_to_string(a),
                "visits": n,
                "wins": w,
                "mean": w / n if n else 0.0,
            }
            for a, w, n in zip(actions, wins, visits, strict=True)
        ]
        # The best mean among the moves tried (a budget below the number of moves leaves some
        # untried); ties go to the smallest action, the first in legal_actions() order.
        means = [w / n if n else -1.0 for w, n in zip(wins, visits, strict=True)]
        return actions[first_max(means)]
