"""The networks shipped with the package: ``load(game_name)``.

Each file ``mcts_course/learn/data/<game>.json`` holds a network's weights (as
:meth:`~mcts_course.learn.network.PolicyValueNet.to_json` writes them) with the game, the
training configuration and the seed that made it: ``mcts-course train <game>`` trains it again
(:mod:`mcts_course.learn.train`), and beside it ``<game>.csv`` is the training log of that run.
Loading needs no numpy (the play page's Python has none): the forward pass then runs in plain
Python, otherwise through numpy, with the same numbers.
"""

from __future__ import annotations

import random
from functools import cache
from importlib import resources
from typing import Any

from mcts_course.agents.puct import register_guide
from mcts_course.agents.rollout import Estimate
from mcts_course.games.base import GameState
from mcts_course.learn.network import NetGuide, Predictor

__all__ = ["ShippedNet", "available", "load", "shipped_text"]


def available() -> list[str]:
    """The names of the games that have a shipped network, sorted."""
    folder = resources.files("mcts_course.learn") / "data"
    return sorted(
        entry.name[: -len(".json")] for entry in folder.iterdir() if entry.name.endswith(".json")
    )


def shipped_text(game_name: str) -> str:
    """The JSON text of the network shipped for ``game_name``."""
    names = available()
    if game_name not in names:
        raise ValueError(
            f"no network is shipped for {game_name!r}; networks exist for: {', '.join(names)}"
        )
    return (resources.files("mcts_course.learn") / "data" / f"{game_name}.json").read_text()


@cache
def _load(game_name: str, backend: str) -> Predictor:
    return Predictor(shipped_text(game_name), backend)


def load(game: str | type[GameState] | GameState, backend: str = "auto") -> Predictor:
    """The network shipped for ``game`` (a name such as ``"connect4"``, a game class or a state
    of the game): an object whose ``predict(state)`` returns ``(priors, value)``, ``priors`` a
    dict {legal action: probability}, ``value`` in [-1, 1] for the player to move.

    ``backend``: ``"auto"`` (numpy if it can be imported, else plain Python), ``"numpy"`` or
    ``"python"``.  Raises ValueError naming the games that have a network for any other game.
    """
    name = game if isinstance(game, str) else game.NAME
    return _load(name, backend)


class ShippedNet:
    """``prior="net"`` of :class:`~mcts_course.agents.puct.PUCTAgent`: the network shipped for
    the game being played, as PUCT's prior (``net(state)``) and as its evaluator
    (``evaluate(state, rng)``, the value head, no playout).  The game is known only when a
    position arrives, so the network is loaded then (one :class:`NetGuide`, with its cache of
    predictions, per game).  The agents find it by name (registered below, and declared as the
    entry point ``net`` of ``mcts_course.guides``): they never import this package."""

    __name__ = "net"

    def __init__(self) -> None:
        self.guides: dict[str, NetGuide] = {}

    def guide(self, state: GameState) -> NetGuide:
        name = state.NAME
        if name not in self.guides:
            self.guides[name] = NetGuide(load(name))
        return self.guides[name]

    def __call__(self, state: GameState) -> dict[int, float]:
        return self.guide(state).prior(state)

    def __deepcopy__(self, memo: dict[int, Any]) -> ShippedNet:
        # A copy for another game (the arena copies agents): the network is the same, shared by
        # load(); the cache of predictions starts empty instead of being copied state by state.
        return ShippedNet()

    def evaluate(self, state: GameState, rng: random.Random) -> Estimate:
        return self.guide(state).evaluate(state, rng)


register_guide("net", ShippedNet)
