"""Othello (Reversi) on an 8x8 board, with bitboards.

Rules
-----
Black (player 0) and White (player 1) take turns placing a disc of their colour on an empty
square.  A move must *flank* at least one line of the opponent's discs: in one of the eight
directions, the new disc and another disc of the mover's colour enclose an unbroken line of
opponent discs, and all such enclosed lines are flipped to the mover's colour.  A player with no
such move must pass (action ``PASS``); when neither player can move (board full, one colour wiped
out, or both stuck) the game ends and the player with more discs wins; equal counts are a draw.
The start position has White on d4 and e5, Black on d5 and e4; Black moves first.

Encoding
--------
A square is ``row * 8 + col``; row 0 is printed on top as rank 1 and col 0 is file ``a``, so
``"a1" = 0``, ``"d3" = 19`` and ``"h8" = 63``.  ``PASS = 64``::

         a  b  c  d  e  f  g  h
      1  0  1  2  3  4  5  6  7
      2  8  9 10 11 12 13 14 15
      3 16 17 18 19 20 21 22 23
      4 24 25 26 27 28 29 30 31       start: d4 = 27 and e5 = 36 White,
      5 32 33 34 35 36 37 38 39              e4 = 28 and d5 = 35 Black
      6 40 41 42 43 44 45 46 47
      7 48 49 50 51 52 53 54 55
      8 56 57 58 59 60 61 62 63

A state keeps two 64-bit integers, the mover's discs and the opponent's (bit ``i`` is square
``i``), and whose turn it is.  Moving "east" (+1 column) is a left shift by 1 that must not wrap
from file h onto file a of the next row, hence the file masks below; north and south are shifts
by 8.  All the speed lives in this module; agents only see the game protocol.

Two kinds of random playout are offered:

* :meth:`Othello.rollout` plays one game in plain Python.  It never lists all legal moves:
  it visits the empty squares in random order (a lazy Fisher-Yates shuffle) and plays the first
  one that flips something, which picks uniformly among the legal moves at a fraction of the
  cost of generating them all.
* :meth:`Othello.rollouts` plays ``n`` games at once on numpy arrays of bitboards (see
  :mod:`mcts_course.games.othello_batch`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, cast

if TYPE_CHECKING:  # numpy only for the batched rollouts, imported when they run
    import numpy as np

from mcts_course.games.base import Board, GameState, IllegalActionError, Returns

PASS = 64
SIZE = 8
MAX_PLIES = 128  # more than any game lasts: 60 moves and fewer passes
FULL = (1 << 64) - 1
FILES = "abcdefgh"

# (d_row, d_col) of the eight directions.
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _ray(square: int, d_row: int, d_col: int) -> tuple[int, ...]:
    """The bits of the squares met walking from ``square`` in one direction, nearest first."""
    row, col = divmod(square, SIZE)
    bits = []
    row, col = row + d_row, col + d_col
    while 0 <= row < SIZE and 0 <= col < SIZE:
        bits.append(1 << (row * SIZE + col))
        row, col = row + d_row, col + d_col
    return tuple(bits)


# RAYS[sq]: the rays from sq that are long enough to flank something (at least 2 squares).
RAYS: list[tuple[tuple[int, ...], ...]] = [
    tuple(ray for d in DIRECTIONS if len(ray := _ray(sq, *d)) >= 2) for sq in range(64)
]
# NEIGHBOURS[sq]: the up to eight squares touching sq; a move needs an opponent disc among them.
NEIGHBOURS: list[int] = [
    sum(ray[0] for d in DIRECTIONS if (ray := _ray(sq, *d))) for sq in range(64)
]
BIT: list[int] = [1 << sq for sq in range(64)]

# The classic Othello square weights: corners are gold, the squares next to them poison.
# Rows of ints, row 0 = rank 1 (numpy.array(CELL_WEIGHTS) gives an array).
CELL_WEIGHTS: tuple[tuple[int, ...], ...] = (
    (120, -20, 20, 5, 5, 20, -20, 120),
    (-20, -40, -5, -5, -5, -5, -40, -20),
    (20, -5, 15, 3, 3, 15, -5, 20),
    (5, -5, 3, 0, 0, 3, -5, 5),
    (5, -5, 3, 0, 0, 3, -5, 5),
    (20, -5, 15, 3, 3, 15, -5, 20),
    (-20, -40, -5, -5, -5, -5, -40, -20),
    (120, -20, 20, 5, 5, 20, -20, 120),
)
# One bitboard per distinct non-zero weight, so that a cell score is a few popcounts.
_WEIGHT_MASKS = tuple(
    (w, sum(BIT[sq] for sq in range(64) if CELL_WEIGHTS[sq // SIZE][sq % SIZE] == w))
    for w in sorted({w for row in CELL_WEIGHTS for w in row} - {0})
)


def flips(square: int, mover: int, opponent: int) -> int:
    """The opponent discs that a disc on ``square`` would flip (0 if the move is illegal)."""
    flipped = 0
    for ray in RAYS[square]:
        line = 0
        for bit in ray:
            if opponent & bit:
                line |= bit
            else:
                if mover & bit:
                    flipped |= line
                break
    return flipped


def move_mask(mover: int, opponent: int) -> int:
    """The bitboard of the mover's legal squares (0 if the mover must pass)."""
    empty = ~(mover | opponent) & FULL
    moves = 0
    # Empty squares touching an opponent disc: dilate the opponent's discs one step.
    not_a, not_h = 0xFEFEFEFEFEFEFEFE, 0x7F7F7F7F7F7F7F7F
    west, east = (opponent >> 1) & not_h, (opponent << 1) & not_a
    row = opponent | west | east
    candidates = (row | (row << 8) | (row >> 8)) & empty
    while candidates:
        bit = candidates & -candidates
        candidates ^= bit
        if flips(bit.bit_length() - 1, mover, opponent):
            moves |= bit
    return moves


# For legal_mask: the opponent discs a line may run through when it moves sideways or
# diagonally (not on file a or h, where a shift would wrap onto the next row).
_INNER_FILES = 0x7E7E7E7E7E7E7E7E
CORNERS = BIT[0] | BIT[7] | BIT[56] | BIT[63]


def legal_mask(mover: int, opponent: int) -> int:
    """The same bitboard as :func:`move_mask`, computed by shifts without a loop over squares.

    For each of the eight directions, the mover's discs are shifted one step at a time across
    runs of opponent discs (at most six in a row); a run that then reaches an empty square makes
    that square a move.  About forty operations on whole boards per direction pair, instead of a
    walk from every candidate square: the endgame solver calls it at every node.
    """
    h, v = opponent & _INNER_FILES, opponent
    moves = 0
    for shift, mask in ((1, h), (8, v), (7, h), (9, h)):
        t = mask & (mover << shift)
        t |= mask & (t << shift)
        t |= mask & (t << shift)
        t |= mask & (t << shift)
        t |= mask & (t << shift)
        t |= mask & (t << shift)
        moves |= t << shift
        t = mask & (mover >> shift)
        t |= mask & (t >> shift)
        t |= mask & (t >> shift)
        t |= mask & (t >> shift)
        t |= mask & (t >> shift)
        t |= mask & (t >> shift)
        moves |= t >> shift
    return moves & ~(mover | opponent) & FULL


def final_margin(mover: int, opponent: int) -> int:
    """The final disc margin of a finished game for the player to move: their discs minus the
    opponent's, the empty squares counted for the winner (tournament rules, and the convention
    of the published FFO endgame margins)."""
    mine, theirs = mover.bit_count(), opponent.bit_count()
    if mine > theirs:
        return 64 - 2 * theirs
    if mine < theirs:
        return 2 * mine - 64
    return 0


def squares(mask: int) -> list[int]:
    """The squares of a bitboard, in increasing order."""
    out = []
    while mask:
        bit = mask & -mask
        out.append(bit.bit_length() - 1)
        mask ^= bit
    return out


def random_playout(
    mover: int, opponent: int, rnd: Callable[[], float], max_plies: int | None = None
) -> tuple[int, int, bool]:
    """Play uniformly random moves to the end of the game, or for ``max_plies`` plies.

    ``rnd`` is a ``random.Random().random`` function; a pass counts as a ply.  Returns the last
    (mover, opponent) bitboards and whether they are swapped relative to the arguments (an odd
    number of plies).
    """
    occupied = mover | opponent
    empties = [sq for sq in range(64) if not occupied >> sq & 1]
    swapped = False
    passed = False
    neighbours, bits = NEIGHBOURS, BIT  # local names: this loop is the hot path
    for _ in range(MAX_PLIES if max_plies is None else max_plies):
        n = len(empties)
        i = 0
        flipped = 0
        # Lazy Fisher-Yates: draw empty squares in random order until one is a legal move.
        # The first legal square of a uniformly shuffled list is uniform among the legal ones.
        while i < n:
            j = i + int(rnd() * (n - i))
            sq = empties[j]
            if opponent & neighbours[sq]:
                flipped = flips(sq, mover, opponent)
                if flipped:
                    break
            empties[j] = empties[i]
            empties[i] = sq
            i += 1
        if flipped:
            empties[j] = empties[-1]
            empties.pop()
            mover, opponent = opponent ^ flipped, mover | flipped | bits[sq]
            passed = False
        elif passed:
            return mover, opponent, swapped  # both players are stuck: game over
        else:
            mover, opponent = opponent, mover
            passed = True
        swapped = not swapped
    return mover, opponent, swapped  # cut off before the end


class Othello(GameState):
    """An Othello position: the mover's and the opponent's bitboards and who moves."""

    __slots__ = ("_mover", "_opponent", "_player", "_moves", "_over")

    NAME: ClassVar[str] = "othello"
    ROWS: ClassVar[int] = SIZE
    COLS: ClassVar[int] = SIZE
    NUM_ACTIONS: ClassVar[int] = 65
    PLAYER_NAMES: ClassVar[tuple[str, str]] = ("Black", "White")
    PASS: ClassVar[int] = PASS
    DRAWING: ClassVar[str] = "discs"

    def __init__(self, black: int | None = None, white: int | None = None, player: int = 0):
        """The start position, or the position given by two bitboards and the player to move.

        Raises ValueError for what is no position: bitboards that are not ints in 0..2**64-1,
        discs of both colours on one square, a player other than 0 or 1.  (Positions that no
        game reaches, such as a board without its centre discs, stay allowed for experiments.)
        """
        if black is None and white is None:
            black, white = BIT[28] | BIT[35], BIT[27] | BIT[36]
        for name, bits in (("black", black), ("white", white)):
            if type(bits) is not int or not 0 <= bits <= FULL:
                raise ValueError(
                    f"{name} must be a 64-bit bitboard (an int in 0..2**64-1), not {bits!r}"
                )
        black, white = cast(int, black), cast(int, white)  # both checked just above
        if black & white:
            squares_ = ", ".join(
                FILES[sq % SIZE] + str(sq // SIZE + 1) for sq in squares(black & white)
            )
            raise ValueError(f"black and white overlap on {squares_}")
        if type(player) is not int or player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        self._player = player
        self._mover, self._opponent = (black, white) if player == 0 else (white, black)
        self._moves: int | None = None
        self._over: bool | None = None

    @classmethod
    def _make(cls, mover: int, opponent: int, player: int) -> Othello:
        state = object.__new__(cls)  # skips __init__'s checks on the hot path
        state._mover, state._opponent, state._player = mover, opponent, player
        state._moves = state._over = None
        return state

    def _rederive(self) -> None:
        """Check the board's own slots and forget the cached moves and outcome: for a state
        rebuilt from another process's data (the grader's protocol), where a cached move mask of
        -1 made the grader's engine loop forever (red team 27, 01)."""
        mover, opponent, player = self._mover, self._opponent, self._player
        if not all(type(v) is int for v in (mover, opponent, player)) or player not in (0, 1):
            raise ValueError("an Othello state's bitboards and player must be integers")
        if not (0 <= mover < 1 << 64 and 0 <= opponent < 1 << 64) or mover & opponent:
            raise ValueError("an Othello state's discs must be 64-bit boards, one disc a square")
        self._moves = self._over = None

    # -- bitboards ---------------------------------------------------------------------------
    @property
    def black(self) -> int:
        """Black's discs as a 64-bit bitboard."""
        return self._mover if self._player == 0 else self._opponent

    @property
    def white(self) -> int:
        """White's discs as a 64-bit bitboard."""
        return self._opponent if self._player == 0 else self._mover

    def _move_mask(self) -> int:
        if self._moves is None:
            self._moves = move_mask(self._mover, self._opponent)
        return self._moves

    def disc_counts(self) -> tuple[int, int]:
        """(Black's discs, White's discs)."""
        return self.black.bit_count(), self.white.bit_count()

    # -- the game's own evaluations (bit counts, no board built) ------------------------------
    @classmethod
    def cell_weights(cls) -> tuple[tuple[int, ...], ...]:
        """The classic square weights :data:`CELL_WEIGHTS`."""
        return CELL_WEIGHTS

    def _discs_of(self, player: int) -> tuple[int, int]:
        """(player's discs, the opponent's discs) as bitboards."""
        return (self.black, self.white) if player == 0 else (self.white, self.black)

    def cell_score(self, player: int) -> float:
        mine, theirs = self._discs_of(player)
        return float(
            sum(w * ((mine & m).bit_count() - (theirs & m).bit_count()) for w, m in _WEIGHT_MASKS)
        )

    def disc_difference(self, player: int) -> int:
        mine, theirs = self._discs_of(player)
        return mine.bit_count() - theirs.bit_count()

    def mobility(self, player: int) -> int:
        """``player``'s legal moves minus the opponent's, each counted as if to move (a forced
        pass counts as no move)."""
        mine, theirs = self._discs_of(player)
        return move_mask(mine, theirs).bit_count() - move_mask(theirs, mine).bit_count()

    # -- the protocol ------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        if self._over is None:
            self._over = not self._move_mask() and not move_mask(self._opponent, self._mover)
        return self._over

    def legal_actions(self) -> list[int]:
        moves = self._move_mask()
        if moves:
            return squares(moves)
        return [] if self.is_terminal() else [PASS]

    def play(self, action: int) -> Othello:
        if type(action) is not int:
            action = self._action_index(action)
        if 0 <= action < 64 and self._move_mask() >> action & 1:
            flipped = flips(action, self._mover, self._opponent)
            return Othello._make(
                self._opponent ^ flipped, self._mover | flipped | BIT[action], 1 - self._player
            )
        if action == PASS and not self._move_mask() and not self.is_terminal():
            return Othello._make(self._opponent, self._mover, 1 - self._player)
        raise self._illegal(action)

    def returns(self) -> Returns:
        if not self.is_terminal():
            return (0, 0)
        return _returns(self.black.bit_count(), self.white.bit_count())

    def rollout(self, rng: random.Random, max_plies: int | None = None) -> Returns:
        mover, opponent, swapped = random_playout(
            self._mover, self._opponent, rng.random, max_plies
        )
        black_to_move = (self._player == 0) != swapped
        black, white = (mover, opponent) if black_to_move else (opponent, mover)
        return _returns(black.bit_count(), white.bit_count())

    def cutoff_returns(self) -> Returns:
        """An unfinished game is scored as if it ended now: the side with more discs wins."""
        return _returns(self.black.bit_count(), self.white.bit_count())

    def rollouts(self, n: int, seed: int | None = None) -> np.ndarray:
        """Player 0's returns (+1, 0, -1) of ``n`` random playouts from here, as a numpy batch."""
        from mcts_course.games.othello_batch import batch_rollouts

        return batch_rollouts(self.black, self.white, self._player, n, seed)

    def board(self) -> Board:
        black, white = self.black, self.white
        return tuple(
            tuple(
                0 if black >> sq & 1 else 1 if white >> sq & 1 else -1
                for sq in range(row * SIZE, row * SIZE + SIZE)
            )
            for row in range(SIZE)
        )

    def _key(self) -> tuple[object, ...]:
        return (self._mover, self._opponent, self._player)

    # -- text --------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if not isinstance(action, bool) and hasattr(type(action), "__index__") and 0 <= action < 64:
            row, col = divmod(int(action), SIZE)
            return f"{FILES[col]}{row + 1}"
        raise IllegalActionError(f"{action!r} is not an Othello action (0..63 or PASS = 64)")

    def parse_action(self, text: str) -> int:
        word = str(text).strip().lower()
        if word in ("pass", "pa", "--"):
            return PASS
        if len(word) == 2 and word[0] in FILES and word[1] in "12345678":
            return (int(word[1]) - 1) * SIZE + FILES.index(word[0])
        raise IllegalActionError(f"{text!r} is not an Othello move: use a1..h8 or 'pass'")

    def __str__(self) -> str:
        black, white, moves = self.black, self.white, self._move_mask()
        lines = ["  a b c d e f g h"]
        for row in range(SIZE):
            cells = []
            for col in range(SIZE):
                bit = BIT[row * SIZE + col]
                mark = "X" if black & bit else "O" if white & bit else "*" if moves & bit else "."
                cells.append(mark)
            lines.append(f"{row + 1} " + " ".join(cells))
        b, w = self.disc_counts()
        if self.is_terminal():
            result = {0: "Black wins", 1: "White wins", None: "draw"}[self.winner()]
            lines.append(f"X (Black) {b}, O (White) {w}: game over, {result}")
        else:
            mover = "X (Black)" if self._player == 0 else "O (White)"
            lines.append(f"X (Black) {b}, O (White) {w}: {mover} to move")
        return "\n".join(lines)


def _returns(black: int, white: int) -> Returns:
    if black > white:
        return (1, -1)
    if white > black:
        return (-1, 1)
    return (0, 0)
