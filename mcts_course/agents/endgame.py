"""Exact Othello endgames: the final disc margin under perfect play, by alpha-beta to the end.

In the last moves of an Othello game one wrong move can turn a win into a loss, and the
averages of MCTS do not see the one exact line that matters.  Real programs (Logistello, Edax)
therefore stop estimating near the end and *solve*: they search every line to the end of the
game, and play the move of the best exact margin.  This module is such a solver, in plain
Python (it runs in the browser too), specialised to Othello's bitboards where
:mod:`mcts_course.agents.exact` is generic and small.

The value of a position is its **final disc margin** for the player to move: their discs minus
the opponent's at the end of perfect play, the empty squares counted for the winner.  It is
negamax alpha-beta, as in :mod:`~mcts_course.agents.exact`, with the refinements every endgame
solver uses:

* **fastest-first ordering**: the moves that leave the opponent the fewest replies are searched
  first (corners count double); such moves are often best, and they have the smallest
  subtrees, so good cut-offs come cheaply;
* a **transposition table** at the nodes far from the end, holding bounds on the margin and the
  best move found, which is tried first when the position comes again;
* **principal variation search**: after the first move, each move is only *tested* with a null
  window (can it beat the best so far?), which is cheaper than computing its margin, and
  searched again for its margin only when the test says yes;
* near the end, where most nodes are, no move list and no table: the empty squares are tried in
  a fixed order (corners first, and first those in regions with an odd number of empty squares,
  the **parity** heuristic: who plays last in a region gains there), and the last empty square
  is scored by counting flips alone.

Passes are moves like any other: a player without a move passes, and when neither can move the
game ends, wherever the empty squares are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import cast

from mcts_course.agents.base import Agent
from mcts_course.games.base import GameState
from mcts_course.games.othello import (
    BIT,
    CORNERS,
    NEIGHBOURS,
    PASS,
    Othello,
    final_margin,
    flips,
    legal_mask,
    squares,
)

# Nodes with more empty squares than this use the table, move lists and ordering; the rest the
# plain loop over the empty squares.  The table holds positions at least this far from the end.
SHALLOW = 6

# The order in which the plain loop tries squares: corners, then the squares next to nothing
# dangerous, then the C- and X-squares next to the corners last (a usual static order).
_SQUARE_ORDER = [
    0,
    7,
    56,
    63,  # corners
    2,
    5,
    16,
    23,
    40,
    47,
    58,
    61,  # A-squares
    3,
    4,
    24,
    31,
    32,
    39,
    59,
    60,  # B-squares
    18,
    21,
    42,
    45,  # the inner corners of the centre
    19,
    20,
    26,
    29,
    34,
    37,
    43,
    44,
    27,
    28,
    35,
    36,  # the centre
    10,
    11,
    12,
    13,
    17,
    22,
    25,
    30,
    33,
    38,
    41,
    46,
    50,
    51,
    52,
    53,  # the second ring
    1,
    6,
    8,
    15,
    48,
    55,
    57,
    62,  # C-squares
    9,
    14,
    49,
    54,  # X-squares
]
# The quadrant bit of each square, for the parity heuristic.
_QUADRANT = [1 << ((sq // 8 >= 4) * 2 + (sq % 8 >= 4)) for sq in range(64)]


@dataclass(frozen=True)
class Solution:
    """The result of one exact search: the margin for the player to move, a move that achieves
    it (``PASS`` when the mover must pass, ``None`` when the game is over), the nodes visited
    and the seconds it took."""

    margin: int
    move: int | None
    nodes: int
    seconds: float


class EndgameSolver:
    """One exact search with its node count and transposition table.

    The table maps (mover's discs, opponent's discs) to (lower bound, upper bound, best move).
    It stays valid between searches of the same game, so the agent keeps one solver per game.
    """

    def __init__(self) -> None:
        self.nodes = 0
        self.table: dict[tuple[int, int], tuple[int, int, int]] = {}

    # -- the public searches ----------------------------------------------------------------
    def solve(self, state: GameState) -> Solution:
        """The exact margin of ``state`` for the player to move, and a best move."""
        mover, opponent = _bitboards(state)
        started, nodes = time.perf_counter(), self.nodes
        empties = _empties(mover, opponent)
        margin = self.search(mover, opponent, empties, -65, 65)
        move = self.best_move(mover, opponent, margin)
        return Solution(margin, move, self.nodes - nodes, time.perf_counter() - started)

    def search(
        self,
        mover: int,
        opponent: int,
        empties: list[int],
        alpha: int,
        beta: int,
        passed: bool = False,
    ) -> int:
        """Negamax alpha-beta: the margin if it lies in (alpha, beta), otherwise a bound on the
        same side (fail-soft).  ``empties``: the empty squares (in the static order; the list
        is changed during the search and restored)."""
        if len(empties) > SHALLOW:
            return self._deep(mover, opponent, empties, alpha, beta, passed)
        return self._shallow(mover, opponent, empties, alpha, beta, passed)

    def move_margins(self, state: GameState) -> dict[int, int]:
        """The exact margin of every legal move of ``state``, for the player to move."""
        mover, opponent = _bitboards(state)
        margins = {}
        for action in state.legal_actions():
            if action == PASS:
                child = (opponent, mover)
                margins[action] = -self.search(*child, _empties(*child), -65, 65, passed=True)
            else:
                f = flips(action, mover, opponent)
                child = (opponent ^ f, mover | f | BIT[action])
                margins[action] = -self.search(*child, _empties(*child), -65, 65)
        return margins

    def best_moves(self, state: GameState) -> tuple[int, list[int]]:
        """The exact margin of ``state`` and all the legal moves that achieve it.  Each move
        after the search is only tested (can it reach the margin?) with a null window."""
        mover, opponent = _bitboards(state)
        actions = state.legal_actions()
        if actions == [PASS]:
            return -self.search(opponent, mover, _empties(mover, opponent), -65, 65, True), [PASS]
        margin = self.search(mover, opponent, _empties(mover, opponent), -65, 65)
        best = []
        for action in actions:
            f = flips(action, mover, opponent)
            child = (opponent ^ f, mover | f | BIT[action])
            # margin - 1 < value of the move?  i.e. the child's value <= -margin.
            if -self.search(*child, _empties(*child), -margin, -margin + 1) >= margin:
                best.append(action)
        return margin, best

    def best_move(self, mover: int, opponent: int, margin: int) -> int | None:
        """A move that achieves ``margin`` (the table's move when it has one)."""
        moves = legal_mask(mover, opponent)
        if not moves:
            return None if not legal_mask(opponent, mover) else PASS
        entry = self.table.get((mover, opponent))
        candidates = squares(moves)
        if entry is not None and entry[2] in candidates:
            candidates.remove(entry[2])
            candidates.insert(0, entry[2])
        for sq in candidates:
            f = flips(sq, mover, opponent)
            child = (opponent ^ f, mover | f | BIT[sq])
            if -self.search(*child, _empties(*child), -margin, -margin + 1) >= margin:
                return sq
        raise AssertionError("no move reaches the position's margin")  # pragma: no cover

    # -- far from the end: move lists, ordering, the table, null windows ---------------------
    def _deep(
        self, mover: int, opponent: int, empties: list[int], alpha: int, beta: int, passed: bool
    ) -> int:
        self.nodes += 1
        key = (mover, opponent)
        entry = self.table.get(key)
        hint = -1
        if entry is not None:
            low, high, hint = entry
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        moves = legal_mask(mover, opponent)
        if not moves:
            if passed:  # neither player can move: the game is over
                return final_margin(mover, opponent)
            return -self._deep(opponent, mover, empties, -beta, -alpha, True)
        # Fastest first: the fewest replies for the opponent (a corner reply counts twice).
        children = []
        while moves:
            bit = moves & -moves
            moves ^= bit
            sq = bit.bit_length() - 1
            f = flips(sq, mover, opponent)
            child_mover, child_opponent = opponent ^ f, mover | f | bit
            replies = legal_mask(child_mover, child_opponent)
            order = -1000 if sq == hint else replies.bit_count() + (replies & CORNERS).bit_count()
            children.append((order, sq, child_mover, child_opponent))
        children.sort()
        window_low = alpha
        best, best_move = -65, children[0][1]
        first = True
        for _, sq, child_mover, child_opponent in children:
            empties.remove(sq)
            if first:
                value = -self.search(child_mover, child_opponent, empties, -beta, -alpha)
                first = False
            else:  # a null-window test first: does this move beat alpha at all?
                value = -self.search(child_mover, child_opponent, empties, -alpha - 1, -alpha)
                if alpha < value < beta:  # it does: now its margin, at least value
                    value = -self.search(child_mover, child_opponent, empties, -beta, 1 - value)
            _insert(empties, sq)
            if value > best:
                best, best_move = value, sq
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        low, high = (entry[0], entry[1]) if entry is not None else (-65, 65)
        if best >= beta:
            self.table[key] = (max(low, best), high, best_move)
        elif best <= window_low:
            self.table[key] = (low, min(high, best), best_move)
        else:
            self.table[key] = (best, best, best_move)
        return best

    # -- near the end: a plain loop over the empty squares -----------------------------------
    def _shallow(
        self, mover: int, opponent: int, empties: list[int], alpha: int, beta: int, passed: bool
    ) -> int:
        n = len(empties)
        if n == 1:
            return self._last(mover, opponent, empties[0])
        self.nodes += 1
        if n == 0:
            return final_margin(mover, opponent)
        best = -65
        # Parity: first the squares of quadrants with an odd number of empty squares (with
        # three or fewer empty squares the order hardly matters: one pass over them).
        parity = 0
        if n > 3:
            for sq in empties:
                parity ^= _QUADRANT[sq]
        for odd in (True, False) if parity else (False,):
            for i in range(n):
                sq = empties[i]
                if parity and bool(parity & _QUADRANT[sq]) is not odd:
                    continue
                if not opponent & NEIGHBOURS[sq]:
                    continue
                f = flips(sq, mover, opponent)
                if not f:
                    continue
                del empties[i]
                value = -self._shallow(
                    opponent ^ f, mover | f | BIT[sq], empties, -beta, -alpha, False
                )
                empties.insert(i, sq)
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            return best
        if best == -65:  # no move: pass, or the game is over
            if passed:
                return final_margin(mover, opponent)
            return -self._shallow(opponent, mover, empties, -beta, -alpha, True)
        return best

    def _last(self, mover: int, opponent: int, sq: int) -> int:
        """The margin with one empty square left: count the flips, no recursion."""
        self.nodes += 1
        f = flips(sq, mover, opponent)
        if f:
            return 2 * (mover.bit_count() + f.bit_count()) - 62  # mover ends with 64 - theirs
        f = flips(sq, opponent, mover)
        if f:  # the mover passes, the opponent fills the last square
            return 62 - 2 * (opponent.bit_count() + f.bit_count())
        return final_margin(mover, opponent)


def _bitboards(state: GameState) -> tuple[int, int]:
    if not isinstance(state, Othello):
        raise ValueError(
            f"the endgame solver plays Othello only, not {getattr(state, 'NAME', state)!r} "
            "(for small games of any kind, use PerfectAgent of mcts_course.agents.exact)"
        )
    if state.current_player == 0:
        return state.black, state.white
    return state.white, state.black


_RANK = {sq: r for r, sq in enumerate(_SQUARE_ORDER)}


def _empties(mover: int, opponent: int) -> list[int]:
    occupied = mover | opponent
    return [sq for sq in _SQUARE_ORDER if not occupied >> sq & 1]


def _insert(empties: list[int], sq: int) -> None:
    """Put ``sq`` back into ``empties`` at its place in the static order."""
    rank = _RANK[sq]
    for i, other in enumerate(empties):
        if _RANK[other] > rank:
            empties.insert(i, sq)
            return
    empties.append(sq)


def solve_endgame(state: GameState) -> int:
    """The exact final disc margin of the Othello position ``state`` for the player to move:
    their discs minus the opponent's after perfect play by both, the empty squares counted for
    the winner (positive: a win, 0: a draw, negative: a loss)."""
    return EndgameSolver().solve(state).margin


def endgame_margins(state: GameState) -> dict[int, int]:
    """The exact final margin of every legal move of ``state``, for the player to move."""
    return EndgameSolver().move_margins(state)


def empty_squares(state: GameState) -> int:
    """The number of empty squares of an Othello position."""
    board = cast(Othello, state)  # any state with black and white bitboards will do
    return 64 - (board.black | board.white).bit_count()


class EndgameAgent(Agent):
    """Perfect Othello endgame play: a move of the best exact final margin, drawn at random
    (from the agent's seeded generator) among the equally good ones.

    Othello only: on another game :meth:`select_action` raises a ``ValueError`` that says so
    (the generic :class:`~mcts_course.agents.exact.PerfectAgent` plays small games of any kind).
    ``max_empties``: refuse positions with more empty squares than this (a ``ValueError``),
    since each one more multiplies the time (by about two on the FFO positions #1-19, which
    take up to about a second each with 16 empty squares).  The transposition table is kept
    for the rest of the game: the positions searched for one move come again in the next.
    """

    name = "endgame"

    def __init__(self, max_empties: int = 20, *, seed: int | None = None):
        super().__init__(seed)
        if not 0 <= max_empties <= 60:
            raise ValueError(f"max_empties must be between 0 and 60, not {max_empties}")
        self.max_empties = max_empties
        self.solver = EndgameSolver()
        self.last_margin: int | None = None

    def reset(self) -> None:
        self.solver = EndgameSolver()
        self.last_margin = None

    def select_action(self, state: GameState) -> int:
        _bitboards(state)  # the clear error on another game
        actions = self._legal(state)
        empties = empty_squares(state)
        if empties > self.max_empties:
            raise ValueError(
                f"endgame: {empties} empty squares is more than max_empties={self.max_empties}; "
                "solve later in the game, or hand over from MCTS with mcts:endgame=N"
            )
        if len(actions) == 1:
            self.last_margin = None
            return actions[0]
        if len(self.solver.table) > 1_000_000:
            self.solver = EndgameSolver()
        self.last_margin, best = self.solver.best_moves(state)
        return self.rng.choice(best)


class EndgameHandover(Agent):
    """Any agent, handing over to perfect play when ``endgame`` or fewer squares are empty:
    how real Othello programs combine a heuristic search with an exact endgame.  ``mcts:
    endgame=N`` builds it around MCTS.  The inner agent plays the rest of the game; seeding and
    resetting reach both (Othello only, like :class:`EndgameAgent`)."""

    def __init__(self, agent: Agent, endgame: int, *, seed: int | None = None):
        super().__init__(seed)
        if not 1 <= endgame <= 60:
            raise ValueError(f"endgame must be between 1 and 60 empty squares, not {endgame}")
        self.agent = agent
        self.endgame = endgame
        self.solver_agent = EndgameAgent(endgame, seed=seed)
        self.name = f"{agent.name}+endgame({endgame})"

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.agent.seed(seed)
        self.solver_agent.seed(seed)

    def reset(self) -> None:
        self.agent.reset()
        self.solver_agent.reset()

    def select_action(self, state: GameState) -> int:
        _bitboards(state)
        if empty_squares(state) <= self.endgame:
            return self.solver_agent.select_action(state)
        return self.agent.select_action(state)
