"""Game-tree search as the chapters show it: minimax, alpha-beta, negamax, iterative deepening.

Each function follows one pseudocode block of the book line by line, over the game protocol of
chapter 1 only (``current_player``, ``legal_actions()``, ``play(a)``, ``is_terminal()``,
``returns()``), in the style of Russell and Norvig's chapter 5.  They carry none of the engine's
speed-ups (move ordering, transposition tables, node counts), so they are slow, and that is the
point: ``tests/lab/test_textbook_search.py`` checks that they return what the package's
:mod:`mcts_course.agents.minimax` and :mod:`mcts_course.agents.exact` return.

An evaluation is a function ``evaluate(state, player)`` that gives a finished game its result
times a large constant (:func:`mcts_course.agents.evaluation.cell_score` does), so a search
needs no separate UTILITY at the leaves.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

State = Any  # anything with the game protocol: a GameState, or a drawn ExplicitTree
Evaluation = Callable[[State, int], float]
INF = math.inf


def minimax_search(state: State, depth: int, evaluate: Evaluation) -> int:
    """Algorithm 4.1: the move with the best minimax value (ties: the smallest move)."""
    player = state.current_player
    actions: list[int] = state.legal_actions()
    return max(actions, key=lambda a: (value(state.play(a), depth - 1, evaluate, player), -a))


def value(state: State, depth: int, evaluate: Evaluation, player: int) -> float:
    """VALUE of Algorithm 4.1: the value of ``state`` for ``player``, ``depth`` plies ahead."""
    if state.is_terminal() or depth == 0:
        return evaluate(state, player)
    values = [value(state.play(a), depth - 1, evaluate, player) for a in state.legal_actions()]
    return max(values) if state.current_player == player else min(values)


def alphabeta_search(state: State, depth: int, evaluate: Evaluation) -> int:
    """Algorithm 4.2: minimax's move, found with alpha-beta pruning."""
    player, alpha, best = state.current_player, -INF, -1  # -1: none yet (line 2)
    for a in state.legal_actions():  # every value beats -INF, so the first move sets best
        v = ab_value(state.play(a), depth - 1, evaluate, player, alpha, INF)
        if v > alpha:  # a strict > keeps the first, and smallest, of equal moves
            alpha, best = v, a
    return best


def ab_value(
    s: State, d: int, evaluate: Evaluation, p: int, alpha: float = -INF, beta: float = INF
) -> float:
    """AB-VALUE of Algorithm 4.2: the value of ``s`` for ``p`` if it lies in (alpha, beta)."""
    if s.is_terminal() or d == 0:
        return evaluate(s, p)
    if s.current_player == p:  # MAX raises alpha
        v = -INF
        for a in s.legal_actions():
            v = max(v, ab_value(s.play(a), d - 1, evaluate, p, alpha, beta))
            if v >= beta:
                return v  # MIN will never let the game come here
            alpha = max(alpha, v)
    else:  # MIN lowers beta
        v = INF
        for a in s.legal_actions():
            v = min(v, ab_value(s.play(a), d - 1, evaluate, p, alpha, beta))
            if v <= alpha:
                return v  # MAX has something better elsewhere
            beta = min(beta, v)
    return v


def negamax(state: State, alpha: float = -1, beta: float = 1) -> float:
    """Algorithm 5.1: the exact value of ``state`` for the player to move, +1, 0 or -1."""
    if state.is_terminal():
        return float(state.returns()[state.current_player])
    v = -math.inf
    for a in state.legal_actions():
        child = state.play(a)
        if child.current_player == state.current_player:  # a skipped turn: the mover again
            w = negamax(child, alpha, beta)
        else:
            w = -negamax(child, -beta, -alpha)  # the opponent's window, negated and swapped
        v = max(v, w)
        alpha = max(alpha, v)
        if alpha >= beta:
            return v  # the opponent will not allow this position
    return v


# The names VALUE and AB-VALUE of the pseudocode, not the package's ``minimax_value`` and
# ``alphabeta_value`` (mcts_course.agents), which order moves and count nodes: a reader meets
# both in chapter 4 and must not mistake one for the other.  The old names stay as aliases for
# the pages that compare the two (the engine appendix, chapter 5).
minimax_value = value
alphabeta_value = ab_value


class TimeUp(Exception):
    """The time limit passed inside a search (line 8 of Algorithm 4.3)."""


def iterative_deepening(
    state: State, time_limit: float, evaluate: Evaluation, max_depth: int = 64
) -> tuple[int, int]:
    """Algorithm 4.3 without move ordering (lines 2, 6): the move and depth of the deepest
    alpha-beta search finished within ``time_limit`` s; one with no horizon ends it (line 5)."""
    deadline, timed, horizon = time.perf_counter() + time_limit, False, False

    def leaf(s: State, p: int) -> float:  # every search ends here: note horizons, watch the clock
        nonlocal horizon
        horizon = horizon or not s.is_terminal()
        if timed and time.perf_counter() > deadline:
            raise TimeUp  # line 8: abandon this search, keep the deepest finished one
        return evaluate(s, p)

    best, depth = alphabeta_search(state, 1, leaf), 1  # line 3, not timed; timed from here on
    timed = True
    while depth < max_depth and horizon:  # line 5: stop when every line reached the end
        horizon = False
        try:
            a = alphabeta_search(state, depth + 1, leaf)  # line 7
        except TimeUp:
            break
        best, depth = a, depth + 1  # line 9
    return best, depth
