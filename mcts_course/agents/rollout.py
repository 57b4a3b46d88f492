"""Random playouts, the simulation step shared by the Monte Carlo agents, MCTS's evaluators,
and the reward convention of them all.

Rewards (the one home of the convention): a game's *returns* (r0, r1) give each player +1 for a
win, 0 for a draw and -1 for a loss; the agents score a result for a player as a *reward*, 1 for
a win, 0.5 for a draw and 0 for a loss, i.e. ``(return + 1) / 2`` (:func:`reward`), so that means
lie in [0, 1] as UCB1 assumes.  The games are zero-sum: what one player's reward is, the other's
is 1 minus it (:func:`seen_by`), and a result for one player fixes the returns of both
(:func:`returns_for`).
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from mcts_course.games.base import GameState, Returns

# What a leaf evaluation returns: a game's exact returns (+1, 0, -1 each) or an estimate of them
# in [-1, 1] (a value network).  Exact returns are estimates too.
Estimate = tuple[float, float]


def reward(returns: Estimate, player: int) -> float:
    """The reward of a game result for ``player``: win 1, draw 0.5, loss 0."""
    return (returns[player] + 1) / 2


def seen_by(value: float, holder: int, player: int) -> float:
    """A reward ``value`` of player ``holder`` as ``player`` sees it: the same, or 1 - value."""
    return value if holder == player else 1.0 - value


def returns_for(player: int, result: int) -> Returns:
    """The returns (r0, r1) in which ``player`` gets ``result`` (+1, 0, -1), the other -result."""
    return (result, -result) if player == 0 else (-result, result)


def playout(state: GameState, rng: random.Random, max_plies: int | None = None) -> Returns:
    """The returns of a uniformly random playout from ``state``, by the game's own fast rollout.

    With ``max_plies`` the playout stops after that many plies (a pass counts as one) and the
    game scores the unfinished position (Othello counts discs; elsewhere it is a draw).
    """
    return state.rollout(rng, max_plies)


@runtime_checkable
class Evaluator(Protocol):
    """How MCTS values a leaf: the returns (r0, r1) it expects from ``state``, each in [-1, 1].

    Any object with this method will do (a random playout, a heuristic, a neural network);
    randomness must come from ``rng`` so that a seeded search repeats.
    """

    def evaluate(self, state: GameState, rng: random.Random) -> Estimate: ...


class RandomRollout:
    """The default evaluator: the result of one random playout (as in OpenSpiel), cut after
    ``playout_depth`` plies if given."""

    def __init__(self, playout_depth: int | None = None):
        if playout_depth is not None and playout_depth < 0:
            raise ValueError(f"playout_depth must be >= 0 or None, not {playout_depth}")
        self.playout_depth = playout_depth

    def evaluate(self, state: GameState, rng: random.Random) -> Returns:
        """The returns (r0, r1) of one random playout from ``state``."""
        return playout(state, rng, self.playout_depth)

    def __repr__(self) -> str:
        return f"RandomRollout(playout_depth={self.playout_depth})"
