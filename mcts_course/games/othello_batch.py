"""Many random Othello games at once: bitboards in numpy ``uint64`` arrays.

Each game of the batch is a pair of bitboards (mover, opponent), exactly as in
:mod:`mcts_course.games.othello`; every numpy operation below advances all unfinished games by
one ply.  Per ply:

1. legal moves of every game by *Kogge-Stone style* flood fills: in each of the 8 directions,
   slide the mover's discs over runs of opponent discs; an empty square just past a run is legal;
2. one legal move per game chosen uniformly (a random rank among the set bits, found by binary
   search on bit counts);
3. the discs that move flips, again by sliding from the new disc in the 8 directions;
4. games without a move pass; a game ends when both players pass in a row.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

_U = np.uint64
NOT_A = _U(0xFEFEFEFEFEFEFEFE)  # every file but a: what may receive a shift to the east
NOT_H = _U(0x7F7F7F7F7F7F7F7F)  # every file but h: what may receive a shift to the west
ALL = _U(0xFFFFFFFFFFFFFFFF)

Bitboards = NDArray[np.uint64]  # one 64-bit bitboard per game of the batch

# (shift, mask applied after the shift); positive = left shift (towards higher squares).
_DIRECTIONS = [
    (1, NOT_A),
    (-1, NOT_H),
    (8, ALL),
    (-8, ALL),
    (9, NOT_A),
    (7, NOT_H),
    (-7, NOT_A),
    (-9, NOT_H),
]


def _shift(x: Bitboards, shift: int, mask: np.uint64) -> Bitboards:
    # numpy's stubs type the shifts of uint64 arrays as Any: the annotation restores the type
    shifted: Bitboards = ((x << _U(shift)) if shift > 0 else (x >> _U(-shift))) & mask
    return shifted


def legal_moves(mover: Bitboards, opponent: Bitboards) -> Bitboards:
    """The bitboards of legal squares for the movers of a batch."""
    empty = ~(mover | opponent)
    moves = np.zeros_like(mover)
    for shift, mask in _DIRECTIONS:
        run = _shift(mover, shift, mask) & opponent  # opponent discs next to a mover disc
        for _ in range(5):  # a run has at most 6 discs
            run |= _shift(run, shift, mask) & opponent
        moves |= _shift(run, shift, mask) & empty
    return moves


def flipped_discs(move: Bitboards, mover: Bitboards, opponent: Bitboards) -> Bitboards:
    """The opponent discs flipped by playing ``move`` (one bit per game, or 0 for no move)."""
    flipped = np.zeros_like(mover)
    for shift, mask in _DIRECTIONS:
        run = _shift(move, shift, mask) & opponent
        for _ in range(5):
            run |= _shift(run, shift, mask) & opponent
        closed = (_shift(run, shift, mask) & mover) != 0  # the run ends on a mover disc
        flipped |= np.where(closed, run, _U(0))
    return flipped


def random_set_bit(masks: Bitboards, uniform: NDArray[np.float64]) -> Bitboards:
    """One set bit of each mask, uniformly at random (0 where the mask is 0).

    ``uniform`` holds floats in [0, 1).  The k-th set bit is found by halving the window:
    if the low half holds more than k set bits the bit is there, else skip them.
    """
    rank = (uniform * np.bitwise_count(masks)).astype(np.uint64)
    position = np.zeros_like(masks)
    window = masks.copy()
    for width in (32, 16, 8, 4, 2, 1):
        low = window & _U((1 << width) - 1)
        in_low = np.bitwise_count(low).astype(np.uint64)
        high = rank >= in_low
        rank -= np.where(high, in_low, _U(0))
        position += np.where(high, _U(width), _U(0))
        window = np.where(high, window >> _U(width), low)
    bits: Bitboards = np.where(masks != 0, _U(1) << position, _U(0))
    return bits


def batch_rollouts(
    black: int, white: int, player: int, n: int, seed: int | None = None
) -> NDArray[np.int8]:
    """Player 0's returns (+1, 0, -1 as int8) of ``n`` random games from one position."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    rng = np.random.default_rng(seed)
    mover = np.full(n, black if player == 0 else white, dtype=np.uint64)
    opponent = np.full(n, white if player == 0 else black, dtype=np.uint64)
    black_moves = np.full(n, player == 0)  # is the mover of each game Black?
    passed = np.zeros(n, dtype=bool)
    live = np.arange(n)  # games still being played, as indexes into the result
    final_black = np.zeros(n, dtype=np.uint64)
    final_white = np.zeros(n, dtype=np.uint64)
    while live.size:
        moves = legal_moves(mover, opponent)
        stuck = moves == 0
        over = stuck & passed
        if over.any():  # record finished games and drop them from the batch
            done, keep = live[over], ~over
            final_black[done] = np.where(black_moves[over], mover[over], opponent[over])
            final_white[done] = np.where(black_moves[over], opponent[over], mover[over])
            live, mover, opponent = live[keep], mover[keep], opponent[keep]
            moves, stuck, black_moves = moves[keep], stuck[keep], black_moves[keep]
        move = random_set_bit(moves, rng.random(live.size))
        flipped = flipped_discs(move, mover, opponent)
        mover, opponent = opponent ^ flipped, mover | move | flipped  # then the other side moves
        black_moves = ~black_moves
        passed = stuck
    difference = np.bitwise_count(final_black).astype(np.int16) - np.bitwise_count(final_white)
    return np.sign(difference).astype(np.int8)
