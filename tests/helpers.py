"""Shared test helpers: tiny agents, made-up match results, and a fourth game that exists only
in the tests.

``TicTacToe4`` is written the way a contributor would add a game: one class on the protocol of
:mod:`mcts_course.games.base`, plus its registration in ``GAMES``.  The tests run it through the
agents, the arena, the pictures, the widget and the command line without changing any of them.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from typing import ClassVar

from mcts_course.agents.endgame import empty_squares
from mcts_course.arena import MatchResult
from mcts_course.games import PASS, Othello
from mcts_course.games.base import Board, GameState, IllegalActionError, Returns, random_position


def match_result(wins: int, losses: int, draws: int = 0, game: str = "othello") -> MatchResult:
    """A match "A" vs "B" that A won ``wins`` times, lost ``losses`` and drew, colours
    alternating (A moves first in the even games)."""
    outcomes = [1] * wins + [0] * draws + [-1] * losses
    players = [i % 2 for i in range(len(outcomes))]
    returns = [(r, -r) if p == 0 else (-r, r) for r, p in zip(outcomes, players, strict=True)]
    return MatchResult(game=game, names=("A", "B"), a_player=players, returns=returns)


# Prepended to the code run_without_numpy runs: a meta-path finder that refuses numpy, and a
# check that it does (else the test would prove nothing).
_BLOCK_NUMPY = """\
import importlib.abc
import sys

class NoNumpy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError(f"{name} is blocked in this test")
        return None

sys.meta_path.insert(0, NoNumpy())
try:
    import numpy  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("numpy was importable: the test would prove nothing")
"""
# Appended: nothing imported numpy behind the finder's back.
_NO_NUMPY_LOADED = """
assert not any(m == "numpy" or m.startswith("numpy.") for m in sys.modules)
"""


def run_without_numpy(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) in a fresh Python in which ``import numpy`` fails, as in the
    browser's Pyodide; it must not have imported numpy by the end."""
    script = _BLOCK_NUMPY + textwrap.dedent(code) + _NO_NUMPY_LOADED
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
    )


def positions(game, plies: int, count: int, seed: int) -> list:
    """``count`` distinct unfinished positions after ``plies`` random moves."""
    rng = random.Random(seed)
    found: list = []
    while len(found) < count:
        state = random_position(game, plies, rng)
        if state is not None and state not in found:
            found.append(state)
    return found


class FirstLegal:
    """A tiny deterministic agent: always the lowest legal action."""

    name = "First"

    def seed(self, seed):
        pass

    def reset(self):
        pass

    def select_action(self, state):
        return state.legal_actions()[0]


class Dice:
    """A tiny random agent that counts its resets, to see that the arena resets copies."""

    name = "Dice"

    def __init__(self):
        self.rng = random.Random(0)
        self.resets = 0

    def seed(self, seed):
        self.rng.seed(seed)

    def reset(self):
        self.resets += 1

    def select_action(self, state):
        return self.rng.choice(state.legal_actions())


def _lines(size: int) -> tuple[tuple[int, ...], ...]:
    rows = [tuple(r * size + c for c in range(size)) for r in range(size)]
    cols = [tuple(r * size + c for r in range(size)) for c in range(size)]
    diagonals = [
        tuple(i * size + i for i in range(size)),
        tuple(i * size + size - 1 - i for i in range(size)),
    ]
    return tuple(rows + cols + diagonals)


class TicTacToe4(GameState):
    """Tic-tac-toe on a 4x4 grid; four in a row, column or diagonal wins.

    Actions are cells ``row * 4 + col``, named "a1" (top left) to "d4".  Written plainly (a
    tuple of 16 cells), with no speed tricks: it only has to follow the protocol.
    """

    __slots__ = ("_cells", "_player", "_result")

    NAME: ClassVar[str] = "tictactoe4"
    ROWS: ClassVar[int] = 4
    COLS: ClassVar[int] = 4
    NUM_ACTIONS: ClassVar[int] = 16
    PLAYER_NAMES: ClassVar[tuple[str, str]] = ("X", "O")
    LINE_LENGTH: ClassVar[int] = 4
    DRAWING: ClassVar[str] = "marks"
    LINES: ClassVar[tuple[tuple[int, ...], ...]] = _lines(4)

    def __init__(self) -> None:
        self._cells: tuple[int, ...] = (-1,) * 16
        self._player = 0
        self._result: Returns | None = None  # None while the game goes on

    @classmethod
    def _make(cls, cells: tuple[int, ...], player: int) -> TicTacToe4:
        state = object.__new__(cls)
        state._cells, state._player = cells, player
        state._result = None
        for line in cls.LINES:
            owner = cells[line[0]]
            if owner >= 0 and all(cells[i] == owner for i in line):
                state._result = (1, -1) if owner == 0 else (-1, 1)
                break
        else:
            if -1 not in cells:
                state._result = (0, 0)
        return state

    def legal_actions(self) -> list[int]:
        if self._result is not None:
            return []
        return [i for i, owner in enumerate(self._cells) if owner < 0]

    def play(self, action: int) -> TicTacToe4:
        if type(action) is not int:
            action = self._action_index(action)
        if self._result is not None or not 0 <= action < 16 or self._cells[action] >= 0:
            raise self._illegal(action)
        cells = list(self._cells)
        cells[action] = self._player
        return self._make(tuple(cells), 1 - self._player)

    def is_terminal(self) -> bool:
        return self._result is not None

    def returns(self) -> Returns:
        return (0, 0) if self._result is None else self._result

    def rollout(self, rng: random.Random, max_plies: int | None = None) -> Returns:
        return self._cut_rollout(rng, 16 if max_plies is None else max_plies)

    def board(self) -> Board:
        return tuple(self._cells[row * 4 : row * 4 + 4] for row in range(4))

    def _key(self) -> tuple:
        return (self._cells, self._player)

    def action_to_string(self, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 16:
            raise IllegalActionError(f"{action!r} is not a 4x4 tic-tac-toe cell (0..15)")
        row, col = divmod(action, 4)
        return "abcd"[col] + str(row + 1)

    def parse_action(self, text: str) -> int:
        name = text.strip().lower() if isinstance(text, str) else ""
        if len(name) != 2 or name[0] not in "abcd" or name[1] not in "1234":
            raise IllegalActionError(f"{text!r} names no cell; use a1 to d4")
        return (int(name[1]) - 1) * 4 + "abcd".index(name[0])

    def __str__(self) -> str:
        marks = {-1: ".", 0: "X", 1: "O"}
        lines = ["   a b c d"]
        for number, row in enumerate(self.board(), start=1):
            lines.append(f"{number}  " + " ".join(marks[c] for c in row))
        if self._result is None:
            lines.append(f"{self.PLAYER_NAMES[self._player]} to move")
        else:
            winner = self.winner()
            lines.append("draw" if winner is None else f"{self.PLAYER_NAMES[winner]} wins")
        return "\n".join(lines)


def all_games() -> list[type[GameState]]:
    """The registered games and the tests' fourth game."""
    from mcts_course.games import GAMES

    return [*GAMES.values(), TicTacToe4]


def random_state(game: type[GameState], rng: random.Random, plies: int) -> GameState:
    """The state after up to ``plies`` random moves from the start (earlier if the game ends)."""
    state = game()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.play(rng.choice(state.legal_actions()))
    return state


def late_positions(empties: int, count: int, seed: int, passes: bool = False) -> list[Othello]:
    """Positions with ``empties`` empty squares from random games; with ``passes``, only those
    where the player to move must pass or a pass comes within the next few plies."""
    found = _late(empties, seed, passes)
    return [next(found) for _ in range(count)]


def _late(empties: int, seed: int, passes: bool = False):
    rng = random.Random(seed)
    while True:
        state = Othello()
        while not state.is_terminal() and empty_squares(state) > empties:
            state = state.play(rng.choice(state.legal_actions()))
        if state.is_terminal() or empty_squares(state) != empties:
            continue
        if not passes or _pass_ahead(state, 3):
            yield state


def _pass_ahead(state: Othello, plies: int) -> bool:
    if state.is_terminal() or plies == 0:
        return False
    actions = state.legal_actions()
    return actions == [PASS] or any(_pass_ahead(state.play(a), plies - 1) for a in actions)
