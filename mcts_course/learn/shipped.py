"""The networks shipped with the package: ``load(game_name)``.

Each file ``mcts_course/learn/data/<game>.json`` holds a network's weights (as
:meth:`~mcts_course.learn.network.PolicyValueNet.to_json` writes them) with the game, the
training configuration and the seed that made it: ``mcts-course train <game>`` trains it again
(:mod:`mcts_course.learn.train`), and beside it ``<game>.csv`` is the training log of that run.
Loading needs no numpy (the play page's Python has none): the forward pass then runs in plain
Python, otherwise through numpy, with the same numbers.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from mcts_course.games.base import GameState
from mcts_course.learn.network import Predictor

__all__ = ["available", "load", "shipped_text"]


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
