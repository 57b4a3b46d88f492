"""The agent interface and the simplest agent of all, random play."""

from __future__ import annotations

import random

from mcts_course.games.base import GameState


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
