"""Connect Four.

Rules: a vertical grid 7 columns wide and 6 rows high.  Red (player 0) moves first, then the
players alternate; a move drops one disc into a column that is not full, where it falls to the
lowest empty cell.  Whoever first has four discs in a row horizontally, vertically or diagonally
wins; when all 42 cells are full without such a line the game is a draw.

Encoding: an action is a column, 0..6, written "1".."7" for people (``parse_action("4") == 3``).
:meth:`ConnectFour.board` and ``str(state)`` show the top row first, the way the grid stands; in
text Red's discs are ``X`` and Yellow's ``O``.  :meth:`ConnectFour.cell_of` maps a column to the
(row, col) of the cell a disc dropped there now would land in.

Inside, each player's discs are one Python int, the classic Connect Four bitboard: 7 bits per
column, the 6 cells from the bottom up and a seventh spare bit that stays empty, so that lines
never wrap from one column into the next::

    # column:   0  1  2  3  4  5  6     (printed 1..7)
    #           6 13 20 27 34 41 48     <- spare bit, always 0
    # row 5     5 12 19 26 33 40 47     <- top (board() row 0)
    # row 4     4 11 18 25 32 39 46
    # row 3     3 10 17 24 31 38 45
    # row 2     2  9 16 23 30 37 44
    # row 1     1  8 15 22 29 36 43
    # row 0     0  7 14 21 28 35 42     <- bottom (board() row 5)

With ``mask`` the discs of both players, ``(mask + bottom) & column`` is the cell where the next
disc in that column lands (0 if the column is full).  Four in a row in direction ``d`` (1 up, 7
right, 6 down-right, 8 up-right) starting at a bit is ``b & b >> d & b >> 2d & b >> 3d``; the
spare bits keep a line from wrapping round into the next column.  To test the four directions
with few Python operations, :func:`four_in_a_row` multiplies ``b`` by constants that lay four
copies of it side by side in one long int, in lanes 80 bits apart, copy ``k`` shifted for
direction ``k``: four products and three ANDs do all the shifts at once.
"""

from __future__ import annotations

import random
from typing import ClassVar

from mcts_course.games.base import DRAW as _DRAW
from mcts_course.games.base import WIN_RETURNS as _WIN_RETURNS
from mcts_course.games.base import Board, IllegalActionError, Returns, StoredOutcome

_WIDTH, _HEIGHT = 7, 6
_STRIDE = _HEIGHT + 1  # bits per column, the spare bit included
_BOTTOM = tuple(1 << (_STRIDE * c) for c in range(_WIDTH))  # lowest cell of each column
_TOP = tuple(1 << (_STRIDE * c + _HEIGHT - 1) for c in range(_WIDTH))  # highest cell
_COLUMN = tuple(((1 << _HEIGHT) - 1) << (_STRIDE * c) for c in range(_WIDTH))  # 6 playable cells
_TOP_ROW = sum(_TOP)
_FULL = sum(_COLUMN)
# _LEGAL[mask & _TOP_ROW]: the columns that are not full, for every set of full columns.
_LEGAL = {
    sum(_TOP[c] for c in range(_WIDTH) if full >> c & 1): tuple(
        c for c in range(_WIDTH) if not full >> c & 1
    )
    for full in range(1 << _WIDTH)
}
_GLYPHS = ("X", "O")


# _LANES[j] puts copy k of a bitboard in lane k (80 bits apart) shifted down j steps of
# direction k: the AND of the four products has a bit in lane k exactly where four in a row
# along direction k start.  Lanes never overlap: each spans under 80 bits (49 + 3 * 8).
_DIRECTIONS = (1, 7, 6, 8)  # vertical, horizontal, the two diagonals
_LANES = tuple(sum(1 << (80 * k + 24 - j * d) for k, d in enumerate(_DIRECTIONS)) for j in range(4))


def four_in_a_row(b: int) -> bool:
    """Does the bitboard ``b`` hold four discs in a line?"""
    l0, l1, l2, l3 = _LANES
    return bool(b * l0 & b * l1 & b * l2 & b * l3)


class ConnectFour(StoredOutcome):
    """An immutable Connect Four position.  ``ConnectFour()`` is the empty grid, Red to move."""

    __slots__ = ("_discs", "_player", "_returns", "_over")

    NAME: ClassVar[str] = "connect4"
    ROWS: ClassVar[int] = _HEIGHT
    COLS: ClassVar[int] = _WIDTH
    NUM_ACTIONS: ClassVar[int] = _WIDTH
    PLAYER_NAMES: ClassVar[tuple[str, str]] = ("Red", "Yellow")
    LINE_LENGTH: ClassVar[int] = 4
    DRAWING: ClassVar[str] = "columns"

    def __init__(self) -> None:
        self._discs = (0, 0)  # bitboards of player 0 and player 1
        self._player = 0
        self._returns = _DRAW
        self._over = False

    @classmethod
    def _make(
        cls, discs: tuple[int, int], player: int, returns: Returns, over: bool
    ) -> ConnectFour:
        state = cls._blank(player, returns, over)
        state._discs = discs
        return state

    def _rederive(self) -> None:
        """Check the board's own slots and set the outcome from them, whatever the outcome
        slots held: for a state rebuilt from another process's data (the grader's protocol)."""
        discs, player = self._discs, self._player
        if not (isinstance(discs, tuple) and len(discs) == 2 and type(player) is int):
            raise ValueError("a Connect Four state's discs must be two bitboards")
        d0, d1 = discs
        if type(d0) is not int or type(d1) is not int or player not in (0, 1):
            raise ValueError("a Connect Four state's discs and player must be integers")
        if d0 & ~_FULL or d1 & ~_FULL or d0 & d1 or d0 < 0 or d1 < 0:
            raise ValueError("a Connect Four state's discs must be cells of the grid, one each")
        self._returns, self._over = self._outcome(
            four_in_a_row(d0), four_in_a_row(d1), d0 | d1 == _FULL
        )

    # -- the protocol ------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        d0, d1 = self._discs
        return list(_LEGAL[(d0 | d1) & _TOP_ROW])

    def play(self, action: int) -> ConnectFour:
        if type(action) is not int:
            action = self._action_index(action)  # numpy ints pass; str, float, bool do not
        d0, d1 = self._discs
        if self._over or not 0 <= action < _WIDTH:
            raise self._illegal(action)
        cell = ((d0 | d1) + _BOTTOM[action]) & _COLUMN[action]
        if not cell:
            raise self._illegal(action)  # the column is full
        player = self._player
        if player == 0:
            d0 |= cell
            won = four_in_a_row(d0)
        else:
            d1 |= cell
            won = four_in_a_row(d1)
        if won:
            return self._make((d0, d1), 1 - player, _WIN_RETURNS[player], True)
        return self._make((d0, d1), 1 - player, _DRAW, d0 | d1 == _FULL)

    def _playout(self, rng: random.Random) -> Returns:
        """Drop discs in uniformly random open columns to the end; return the returns there."""
        rand = rng.random  # local names: this loop is the inner loop of every playout
        top_row = _TOP_ROW
        l0, l1, l2, l3 = _LANES
        player = self._player
        me, other = self._discs if player == 0 else self._discs[::-1]
        mask = me | other
        landing = [(mask + _BOTTOM[c]) & _COLUMN[c] for c in range(_WIDTH)]  # 0: column full
        open_columns = [c for c in range(_WIDTH) if landing[c]]
        n = len(open_columns)
        while True:
            column = open_columns[int(rand() * n)]
            cell = landing[column]
            me |= cell
            if me * l0 & me * l1 & me * l2 & me * l3:  # four_in_a_row(me), inlined
                return _WIN_RETURNS[player]
            if cell & top_row:  # the column is now full
                open_columns.remove(column)
                n -= 1
                if not n:
                    return _DRAW
            else:
                landing[column] = cell << 1
            me, other = other, me
            player ^= 1

    def board(self) -> Board:
        d0, d1 = self._discs
        rows = []
        for row in range(_HEIGHT - 1, -1, -1):  # board() row 0 is the top row
            bits = [1 << (_STRIDE * col + row) for col in range(_WIDTH)]
            rows.append(tuple(0 if d0 & b else 1 if d1 & b else -1 for b in bits))
        return tuple(rows)

    def _key(self) -> tuple[object, ...]:
        return (self._discs, self._player)

    def __hash__(self) -> int:
        return hash((self._discs, self._player))

    def cell_of(self, action: int) -> tuple[int, int] | None:
        """The (row, col) of ``board()`` where a disc dropped in column ``action`` would land now;
        None if that column is full or ``action`` is no column."""
        if not 0 <= action < _WIDTH:
            return None
        d0, d1 = self._discs
        height = bin((d0 | d1) & _COLUMN[action]).count("1")
        return None if height == _HEIGHT else (_HEIGHT - 1 - height, int(action))

    def action_at(self, row: int, col: int) -> int | None:
        """A click anywhere in a column drops a disc there: the action is the column."""
        return col if 0 <= row < _HEIGHT and 0 <= col < _WIDTH else None

    # -- moves as text -----------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        return str(self._checked_action(action, _WIDTH, "a Connect Four column") + 1)

    def parse_action(self, text: str) -> int:
        name = text.strip() if isinstance(text, str) else ""
        if len(name) != 1 or name not in "1234567":
            raise IllegalActionError(f"{text!r} names no Connect Four column; use 1 to 7")
        return int(name) - 1

    def _who(self, player: int) -> str:
        return f"{self.PLAYER_NAMES[player]} ({_GLYPHS[player]})"

    def __str__(self) -> str:
        grid = self.board()
        lines = [" ".join(_GLYPHS[v] if v >= 0 else "." for v in row) for row in grid]
        lines.append(" ".join(str(c + 1) for c in range(_WIDTH)))
        lines.append(self._status())
        return "\n".join(lines)
