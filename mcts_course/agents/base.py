"""The agent interface and the simplest agent of all, random play."""

from __future__ import annotations

import random

from mcts_course.games.base import GameState


def check_budget(
    name: str, count: int | None, time_limit: float | None, default: int
) -> int | None:
    """A search's budget checked once for every agent: ``count`` (iterations, depth...) of at
    least 1, ``time_limit`` seconds above 0, and ``default`` for ``count`` when neither is
    given.  Returns the count (None: a time alone)."""
    if count is None and time_limit is None:
        count = default
    if count is not None and count < 1:
        raise ValueError(f"{name} must be >= 1, not {count}")
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds, not {time_limit}")
    return count


class Agent:
    """A player: ``select_action(state)`` returns one of ``state.legal_actions()``.

    Every agent owns a ``random.Random`` (``self.rng``) and draws all its randomness from it, so
    an agent created with the same ``seed`` plays the same moves.
    """

    name: str = "Agent"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        """Re-seed the agent's random generator (the arena does it before each game)."""
        self.rng.seed(seed)

    def reset(self) -> None:
        """Forget what was learned during a game (e.g. a search tree kept between moves)."""

    def select_action(self, state: GameState) -> int:
        """The action to play in ``state``."""
        raise NotImplementedError

    def _legal(self, state: GameState) -> list[int]:
        actions = state.legal_actions()
        if not actions:
            raise ValueError(f"{self.name}: the game is over, there is no action to select")
        return actions

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "Random"

    def select_action(self, state: GameState) -> int:
        return self.rng.choice(self._legal(state))
