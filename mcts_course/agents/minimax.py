"""Minimax and alpha-beta search to a fixed depth, with a static evaluation at the horizon.

Written like the book's pseudocode (and aima-python's ``games4e.py``): a ``max_value`` for the
nodes where ``player`` (the one we search for) moves and a ``min_value`` for the others.  Which
one applies is read from ``state.current_player``, never from the depth's parity, so Othello's
forced passes need no special case: a pass is just an action.

Both searches count the nodes they visit in a :class:`SearchStats`, which is what the book plots
to show how much alpha-beta prunes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TypeGuard

from mcts_course.agents.base import Agent, check_budget
from mcts_course.agents.evaluation import Evaluation, cell_score
from mcts_course.games.base import GameState

INF = math.inf


@dataclass
class SearchStats:
    """What a search did: ``nodes`` visited, ``horizon`` nodes cut off by the depth limit."""

    nodes: int = 0
    horizon: int = 0
    deadline: float | None = None  # time.perf_counter() value at which to give up


class SearchTimeout(Exception):
    """Raised inside a search when its deadline has passed."""


def _visit(stats: SearchStats) -> None:
    stats.nodes += 1
    if stats.deadline is not None and time.perf_counter() > stats.deadline:
        raise SearchTimeout


def minimax_value(
    state: GameState,
    depth: int,
    evaluate: Evaluation,
    player: int,
    stats: SearchStats | None = None,
) -> float:
    """The minimax value of ``state`` for ``player``, looking ``depth`` plies ahead."""
    stats = SearchStats() if stats is None else stats

    def value(s: GameState, d: int) -> float:
        return max_value(s, d) if s.current_player == player else min_value(s, d)

    def max_value(s: GameState, d: int) -> float:
        _visit(stats)
        if d == 0 or s.is_terminal():
            return leaf(s, d)
        return max(value(s.play(a), d - 1) for a in s.legal_actions())

    def min_value(s: GameState, d: int) -> float:
        _visit(stats)
        if d == 0 or s.is_terminal():
            return leaf(s, d)
        return min(value(s.play(a), d - 1) for a in s.legal_actions())

    def leaf(s: GameState, d: int) -> float:
        if d == 0 and not s.is_terminal():
            stats.horizon += 1
        return evaluate(s, player)

    return value(state, depth)


@dataclass
class TableEntry:
    """What a transposition table remembers of a position searched ``depth`` plies deep: its
    ``value`` for the searching player, whether that value is ``EXACT`` or only a ``LOWER`` or
    ``UPPER`` bound (a cut-off stopped the search early), and the ``best`` move found there."""

    depth: int
    value: float
    bound: str
    best: int | None


EXACT, LOWER, UPPER = "exact", "lower", "upper"


def alphabeta_value(
    state: GameState,
    depth: int,
    evaluate: Evaluation,
    player: int,
    alpha: float = -INF,
    beta: float = INF,
    stats: SearchStats | None = None,
    order: bool = True,
    table: dict[GameState, TableEntry] | None = None,
) -> float:
    """The minimax value of ``state`` for ``player``, with alpha-beta pruning.

    ``alpha`` is the value ``player`` is already sure of, ``beta`` the value the opponent is
    sure of; a branch that cannot end between them is cut.  With the full window (the default)
    the result equals :func:`minimax_value`.  With ``order`` the children are searched best
    first by the static evaluation, which makes cut-offs come earlier.

    ``table``, a transposition table (a dict kept by the caller for searches for the same
    ``player``): a position already searched to the same depth is answered from it when its
    stored value or bound settles the question for the current window, and the best move
    stored for a position (from any depth, say the previous iteration of iterative deepening)
    is searched first.  Entries are used only at the depth they were searched to, so the table
    changes the work, never the value.
    """
    stats = SearchStats() if stats is None else stats

    def value(s: GameState, d: int, alpha: float, beta: float) -> float:
        _visit(stats)
        if d == 0 or s.is_terminal():
            return leaf(s, d)
        entry = lookup(s)
        if settled(entry, d, alpha, beta):
            return entry.value
        maximizing = s.current_player == player  # MAX moves here, else MIN
        window, v, best = (alpha, beta), -INF if maximizing else INF, None
        for action, child in children(s, d, maximizing, entry):
            w = value(child, d - 1, alpha, beta)
            if maximizing:
                if w > v:
                    v, best = w, action
                if v >= beta:
                    break  # MIN will never let the game come here
                alpha = max(alpha, v)
            else:
                if w < v:
                    v, best = w, action
                if v <= alpha:
                    break  # MAX already has something better elsewhere
                beta = min(beta, v)
        store(s, d, v, window, best)
        return v

    def children(
        s: GameState, d: int, best_first: bool, entry: TableEntry | None
    ) -> list[tuple[int, GameState]]:
        kids = [(a, s.play(a)) for a in s.legal_actions()]
        if order and d > 1 and len(kids) > 1:
            kids.sort(key=lambda kid: evaluate(kid[1], player), reverse=best_first)
        if entry is not None and entry.best is not None:  # the table's best move first
            kids.sort(key=lambda kid: kid[0] != entry.best)  # (a stable sort)
        return kids

    def leaf(s: GameState, d: int) -> float:
        if d == 0 and not s.is_terminal():
            stats.horizon += 1
        return evaluate(s, player)

    # -- the transposition table (nothing happens without one) --
    def lookup(s: GameState) -> TableEntry | None:
        return None if table is None else table.get(s)

    def settled(
        entry: TableEntry | None, d: int, alpha: float, beta: float
    ) -> TypeGuard[TableEntry]:
        """Does the stored result, searched to this depth, answer the search in this window?"""
        if entry is None or entry.depth != d:
            return False
        return (
            entry.bound == EXACT
            or (entry.bound == LOWER and entry.value >= beta)
            or (entry.bound == UPPER and entry.value <= alpha)
        )

    def store(
        s: GameState, d: int, v: float, window: tuple[float, float], best: int | None
    ) -> None:
        if table is not None:
            bound = UPPER if v <= window[0] else LOWER if v >= window[1] else EXACT
            table[s] = TableEntry(d, v, bound, best)

    return value(state, depth, alpha, beta)


DEFAULT_DEPTH = 4  # alpha-beta's depth when neither a depth nor a time_limit is given


class MinimaxAgent(Agent):
    """Plays the move with the best minimax value ``depth`` plies ahead (ties: the smallest
    action).  ``evaluate(state, player)`` scores the positions at the horizon."""

    def __init__(
        self, depth: int = 2, *, evaluate: Evaluation | None = None, seed: int | None = None
    ):
        super().__init__(seed)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, not {depth}")
        self.depth = depth
        self.evaluate = evaluate or cell_score
        self.nodes = 0
        self.name = f"Minimax({depth})"

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        player = state.current_player
        stats = SearchStats(nodes=1)  # the root
        best_action, best_value = actions[0], -INF
        for action in actions:  # in legal_actions() order: a strict > keeps the smallest of ties
            v = minimax_value(state.play(action), self.depth - 1, self.evaluate, player, stats)
            if v > best_value:
                best_action, best_value = action, v
        self.nodes = stats.nodes
        return best_action


class AlphaBetaAgent(Agent):
    """Alpha-beta search to a fixed ``depth``, or iterative deepening under ``time_limit``.

    With a time limit, depths 1, 2, 3, ... are searched until time runs out (or ``depth``, if
    given, is reached, or the whole game tree fits); the move of the deepest finished search is
    played.  Neither a depth nor a time: depth 4.  Each iteration tries the previous best move
    first, then the others by static value; among moves of equal value the smallest action is
    played, whatever the search order.

    ``tt``: keep a transposition table during each move's search (all its iterations): a
    position reached again by another move order is answered from the table when an entry of
    the same depth settles it, and the best move stored for a position is searched first.  The
    move and value are those of the search without it; ``nodes`` says what it saves.
    """

    def __init__(
        self,
        depth: int | None = None,
        *,
        time_limit: float | None = None,
        evaluate: Evaluation | None = None,
        tt: bool = False,
        seed: int | None = None,
    ):
        super().__init__(seed)
        self.depth = check_budget("depth", depth, time_limit, DEFAULT_DEPTH)
        self.time_limit = time_limit
        self.evaluate = evaluate or cell_score
        self.tt = tt
        self.table: dict[GameState, TableEntry] = {}  # the last move's transposition table
        self.nodes = 0
        self.depth_reached = 0
        budget = [] if depth is None else [f"{depth}"]
        budget += [] if time_limit is None else [f"{time_limit:g}s"]
        budget += ["TT"] if tt else []
        self.name = f"AlphaBeta({','.join(budget)})"

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        self.nodes, self.depth_reached, self.table = 0, 0, {}
        if len(actions) == 1:
            return actions[0]
        player = state.current_player
        # Static ordering for the first iteration (a stable sort keeps legal order among ties).
        actions.sort(key=lambda a: self.evaluate(state.play(a), player), reverse=True)
        if self.time_limit is None:
            stats = SearchStats()
            assert self.depth is not None  # __init__ sets one when there is no time limit
            best = self._search_root(state, actions, self.depth, stats)
            self.nodes, self.depth_reached = stats.nodes, self.depth
            return best
        stats = SearchStats(deadline=time.perf_counter() + self.time_limit)
        best, depth = actions[0], 1
        while self.depth is None or depth <= self.depth:
            stats.horizon = 0
            try:
                # Depth 1 always finishes, so there is always a searched move to play.
                if depth == 1:
                    stats.deadline, deadline = None, stats.deadline
                    best = self._search_root(state, actions, depth, stats)
                    stats.deadline = deadline
                else:
                    best = self._search_root(state, actions, depth, stats)
            except SearchTimeout:
                break
            self.depth_reached = depth
            if stats.horizon == 0:
                break  # nothing was cut off by the depth: the whole game tree was searched
            actions.remove(best)
            actions.insert(0, best)  # principal move first in the next iteration
            depth += 1
        self.nodes = stats.nodes
        return best

    def _search_root(
        self, state: GameState, actions: list[int], depth: int, stats: SearchStats
    ) -> int:
        """The best of ``actions`` (searched in that order); ties go to the smallest action.

        A move searched after an equal-valued larger one must show that it reaches the best
        value, not only that it cannot beat it: it is searched with alpha just below the best
        value, so that a tie comes back exact (and a worse move still fails low).
        """
        player = state.current_player
        table = self.table if self.tt else None
        stats.nodes += 1
        best_action, alpha = actions[0], -INF
        for index, action in enumerate(actions):
            child = state.play(action)
            if index and action < best_action:
                low = math.nextafter(alpha, -INF)
                v = alphabeta_value(
                    child, depth - 1, self.evaluate, player, low, INF, stats, table=table
                )
                better = v >= alpha
            else:
                v = alphabeta_value(
                    child, depth - 1, self.evaluate, player, alpha, INF, stats, table=table
                )
                better = v > alpha
            if better:
                best_action, alpha = action, v
        return best_action
