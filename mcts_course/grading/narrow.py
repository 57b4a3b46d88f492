"""What one exercise set's graded process keeps of the package copy (red team 3: 08, 12, 15).

The copy (:mod:`mcts_course.grading.studentview`) is one for every set of a batch, and it keeps
the games and the MCTS skeleton that some sets' given code needs.  Reached by a name built at
run time, they would answer other sets' exercises: ``simulate`` as ``state.rollout(rng)``,
Connect Four's ``is_win`` by the engine's ``four_in_a_row``, ``backpropagate`` as
``MCTSAgent.backpropagate``.  The student's process, once confined and before the student's
code runs, removes them for the sets whose given code does not use them (:func:`narrow`).
The functions are deleted, not wrapped: nothing is left to reach them by.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

# The one set whose given code plays the library's playouts (MCTSAgent with RandomRollout).
PLAYOUT_SETS = frozenset({"bandits"})
# The sets whose graded functions receive Connect Four boards, never ConnectFour states.
NO_CONNECT_FOUR = frozenset({"connect4"})
PLAYOUTS = ("rollout", "_cut_rollout", "_playout", "rollouts")


def _strip(cls: type, names: tuple[str, ...] | None = None) -> None:
    """Delete ``names`` (None: every function) from the class's own namespace."""
    for name, value in list(vars(cls).items()):
        if names is None and isinstance(value, types.FunctionType | staticmethod | classmethod):
            delattr(cls, name)
        elif names is not None and name in names:
            delattr(cls, name)


def _classes(module: Any) -> list[type]:
    return [
        v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__
    ]


def narrow(set_name: str | None) -> None:
    """Remove from this process what the set ``set_name`` may not use (nothing if None)."""
    if not set_name:
        return
    games = importlib.import_module("mcts_course.games")
    modules = [
        importlib.import_module(f"mcts_course.games.{name}")
        for name in ("base", "tictactoe", "connect4", "othello")
    ]
    if set_name not in PLAYOUT_SETS:
        for module in modules:
            for cls in _classes(module):
                _strip(cls, PLAYOUTS)
        # exercise 7's skeleton: its search steps are other exercises' answers
        mcts = importlib.import_module("mcts_course.agents.mcts")
        _strip(mcts.MCTSAgent)
    if set_name in NO_CONNECT_FOUR:
        connect4 = modules[2]
        for cls in _classes(connect4):
            _strip(cls)
        for name, value in list(vars(connect4).items()):
            if isinstance(value, types.FunctionType) and value.__module__ == connect4.__name__:
                delattr(connect4, name)
    del games
