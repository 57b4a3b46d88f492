"""Reference solution: alpha-beta search from minimax, on Othello (exercise 6)."""

from __future__ import annotations

import math
from collections.abc import Callable

from mcts_course.games.base import GameState
from mcts_course.given import disc_difference

Evaluate = Callable[[GameState, int], float]


def minimax(
    state: GameState, depth: int, player: int, evaluate: Evaluate, stats: dict | None = None
) -> float:
    """The minimax value of ``state`` for ``player``, ``depth`` plies ahead (given).

    Every call counts one node in ``stats["nodes"]``.  A pass (Othello's action 64) is a move
    like any other; a finished game is evaluated whatever the depth left.
    """
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + 1
    if depth == 0 or state.is_terminal():
        return evaluate(state, player)
    values = [
        minimax(state.play(a), depth - 1, player, evaluate, stats) for a in state.legal_actions()
    ]
    return max(values) if state.current_player == player else min(values)


def alphabeta(
    state: GameState,
    depth: int,
    player: int,
    evaluate: Evaluate,
    alpha: float = -math.inf,
    beta: float = math.inf,
    stats: dict | None = None,
) -> float:
    """Minimax with alpha-beta pruning: the same value when minimax's lies in (alpha, beta)."""
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + 1
    if depth == 0 or state.is_terminal():
        return evaluate(state, player)
    if state.current_player == player:  # a max node raises alpha
        value = -math.inf
        for a in state.legal_actions():
            value = max(
                value, alphabeta(state.play(a), depth - 1, player, evaluate, alpha, beta, stats)
            )
            alpha = max(alpha, value)
            if alpha >= beta:  # the min node above will never allow this
                break
        return value
    value = math.inf  # a min node lowers beta
    for a in state.legal_actions():
        value = min(
            value, alphabeta(state.play(a), depth - 1, player, evaluate, alpha, beta, stats)
        )
        beta = min(beta, value)
        if alpha >= beta:
            break
    return value


def best_move(
    state: GameState, depth: int, evaluate: Evaluate = disc_difference, stats: dict | None = None
) -> tuple[int, float]:
    """The action with the highest alpha-beta value for the mover, and that value.

    Ties go to the smallest action.  ``depth`` counts the move itself, so depth 1 looks at the
    children only.
    """
    player, alpha = state.current_player, -math.inf
    best = None
    for a in state.legal_actions():
        value = alphabeta(state.play(a), depth - 1, player, evaluate, alpha, math.inf, stats)
        if best is None or value > alpha:
            best, alpha = a, value
    return best, alpha
