"""Tic-tac-toe (noughts and crosses).

Rules: two players, X (player 0, moves first) and O (player 1), take turns marking an empty
cell of a 3x3 grid.  Whoever first has three marks in a row, a column or a diagonal wins; when
all nine cells are full without such a line the game is a draw.

Encoding: an action is a cell, ``row * 3 + col``, named by a file letter (the column, a-c) and
a rank number (the row + 1), so "a1" = 0 and "b2" = 4 is the centre.  Rank 1 is printed on
top, like row 0 of :meth:`TicTacToe.board`::

    #        a   b   c
    #   1    0 | 1 | 2
    #       ---+---+---
    #   2    3 | 4 | 5
    #       ---+---+---
    #   3    6 | 7 | 8

Inside, each player's marks are a 9-bit mask (bit i = cell i).  Because there are only
2**9 = 512 masks, everything a playout needs is looked up in tables built once at import: whether
a mask holds a line (``_WINS``) and the cells left in a mask of empty cells (``_CELLS``).
"""

from __future__ import annotations

import random
from typing import ClassVar

from mcts_course.games.base import DRAW as _DRAW
from mcts_course.games.base import WIN_RETURNS as _WIN_RETURNS
from mcts_course.games.base import Board, IllegalActionError, Returns, StoredOutcome

_FULL = 0b111_111_111
_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip
_LINE_MASKS = tuple(sum(1 << cell for cell in line) for line in _LINES)

# _WINS[mask]: does this set of marks contain three in a row?
_WINS = tuple(any(mask & line == line for line in _LINE_MASKS) for mask in range(512))
# _CELLS[empty]: the empty cells (sorted) and the same cells as one-bit masks, for playouts.
_CELLS = tuple(tuple(c for c in range(9) if empty >> c & 1) for empty in range(512))
_CELL_BITS = tuple(tuple(1 << c for c in cells) for cells in _CELLS)
# The returns when player 0 or player 1 has just won.
_GLYPHS = ("X", "O")


def _symmetry_masks() -> tuple[tuple[int, ...], ...]:
    """For each of the board's 8 symmetries (4 rotations, each with or without a reflection),
    the image of every 9-bit mask: ``table[k][mask]`` is ``mask`` moved by symmetry ``k``."""
    cells = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                image = []
                for cell in range(9):
                    row, col = divmod(cell, 3)
                    if transpose:
                        row, col = col, row
                    image.append(
                        (2 - row if flip_rows else row) * 3 + (2 - col if flip_cols else col)
                    )
                cells.append(image)
    return tuple(
        tuple(sum(1 << image[c] for c in range(9) if mask >> c & 1) for mask in range(512))
        for image in cells
    )


_SYMMETRY_MASKS = _symmetry_masks()


class TicTacToe(StoredOutcome):
    """An immutable tic-tac-toe position.  ``TicTacToe()`` is the empty board, X to move."""

    __slots__ = ("_x", "_o", "_player", "_returns", "_over")

    NAME: ClassVar[str] = "tictactoe"
    ROWS: ClassVar[int] = 3
    COLS: ClassVar[int] = 3
    NUM_ACTIONS: ClassVar[int] = 9
    PLAYER_NAMES: ClassVar[tuple[str, str]] = ("X", "O")
    LINE_LENGTH: ClassVar[int] = 3
    DRAWING: ClassVar[str] = "marks"

    def __init__(self) -> None:
        self._x = 0  # cells marked by X (player 0)
        self._o = 0  # cells marked by O (player 1)
        self._player = 0
        self._returns = _DRAW
        self._over = False

    @classmethod
    def _make(cls, x: int, o: int, player: int, returns: Returns, over: bool) -> TicTacToe:
        state = cls._blank(player, returns, over)
        state._x = x
        state._o = o
        return state

    def _rederive(self) -> None:
        """Check the board's own slots and set the outcome from them, whatever the outcome
        slots held: for a state rebuilt from another process's data (the grader's protocol)."""
        x, o, player = self._x, self._o, self._player
        if not all(type(v) is int for v in (x, o, player)) or player not in (0, 1):
            raise ValueError("a tic-tac-toe state's board and player must be small integers")
        if not (0 <= x <= _FULL and 0 <= o <= _FULL) or x & o:
            raise ValueError("a tic-tac-toe state's marks must be 9 cells, never both players'")
        self._returns, self._over = self._outcome(_WINS[x], _WINS[o], x | o == _FULL)

    # -- the protocol ------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        return list(_CELLS[_FULL ^ (self._x | self._o)])

    def play(self, action: int) -> TicTacToe:
        if type(action) is not int:
            action = self._action_index(action)  # numpy ints pass; str, float, bool do not
        if self._over or not 0 <= action < 9 or (self._x | self._o) >> action & 1:
            raise self._illegal(action)
        bit = 1 << action
        x, o = self._x, self._o
        if self._player == 0:
            x |= bit
            won = _WINS[x]
        else:
            o |= bit
            won = _WINS[o]
        if won:
            return self._make(x, o, 1 - self._player, _WIN_RETURNS[self._player], True)
        return self._make(x, o, 1 - self._player, _DRAW, x | o == _FULL)

    def _playout(self, rng: random.Random) -> Returns:
        """Play uniformly random moves to the end; return the returns there."""
        rand = rng.random  # local names: this loop is the inner loop of every playout
        wins = _WINS
        cell_bits = _CELL_BITS
        player = self._player
        me, other = (self._x, self._o) if player == 0 else (self._o, self._x)
        empty = _FULL ^ (me | other)
        while True:
            bits = cell_bits[empty]
            bit = bits[int(rand() * len(bits))]
            me |= bit
            if wins[me]:
                return _WIN_RETURNS[player]
            empty ^= bit
            if not empty:
                return _DRAW
            me, other = other, me
            player ^= 1

    def board(self) -> Board:
        x, o = self._x, self._o
        return tuple(
            tuple(
                0 if x >> cell & 1 else 1 if o >> cell & 1 else -1
                for cell in range(row * 3, row * 3 + 3)
            )
            for row in range(3)
        )

    def _key(self) -> tuple[object, ...]:
        return (self._x, self._o, self._player)

    def __hash__(self) -> int:
        return hash((self._x, self._o, self._player))

    def symmetry_class(self) -> tuple[int, int, int]:
        """The position's class under the board's 8 rotations and reflections, as the smallest
        of the 8 transformed (X mask, O mask, player) keys.  Symmetric positions share it, and
        they have the same game value up to the same symmetry of their moves: copies of one
        class are one position seen 8 (or fewer) ways, not independent evidence."""
        x, o = self._x, self._o
        return min((table[x], table[o], self._player) for table in _SYMMETRY_MASKS)

    def is_canonical(self) -> bool:
        """Is this position its class's representative (its own key the smallest of the 8)?
        Exactly one member of every class is."""
        return self.symmetry_class() == (self._x, self._o, self._player)

    # -- moves as text -----------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        row, col = divmod(self._checked_action(action, 9, "a tic-tac-toe action"), 3)
        return "abc"[col] + str(row + 1)

    def parse_action(self, text: str) -> int:
        name = text.strip().lower() if isinstance(text, str) else ""
        if len(name) != 2 or name[0] not in "abc" or name[1] not in "123":
            raise IllegalActionError(
                f"{text!r} names no tic-tac-toe cell; use a file a-c and a rank 1-3, e.g. 'b2'"
            )
        return (int(name[1]) - 1) * 3 + "abc".index(name[0])

    def __str__(self) -> str:
        lines = ["   a b c"]
        for row in range(3):
            marks = []
            for col in range(3):
                bit = 1 << (row * 3 + col)
                marks.append("X" if self._x & bit else "O" if self._o & bit else ".")
            lines.append(f"{row + 1}  " + " ".join(marks))
        lines.append(self._status())
        return "\n".join(lines)

    def _who(self, player: int) -> str:
        return _GLYPHS[player]
