"""Exercise 6: alpha-beta search, from minimax, on Othello.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/alphabeta.py

Alpha-beta returns the same value as minimax but skips the moves that cannot change it.  The
grader compares your values with minimax's on many Othello positions, and counts the nodes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mcts_course.games.base import GameState

# Given: ``disc_difference(state, player)``, discs of ``player`` minus the opponent's (+-1000
# times the result at the end), an evaluation to try your search with.
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
    """Minimax with alpha-beta pruning.

    Contract (v = your result, m = the minimax value):
        * with the full window (alpha=-inf, beta=inf), v == m exactly;
        * in general: v <= alpha if m <= alpha; v >= beta if m >= beta; else v == m;
        * count one node per call in ``stats["nodes"]`` (when ``stats`` is not None), like
          ``minimax``: the grader checks the exact count (the value alone does not tell the
          two apart); alpha-beta then visits no more nodes than minimax, and fewer from
          depth 2 on in the page's reference table;
        * visit the actions in the order of ``state.legal_actions()`` and stop looking at a
          node's further actions as soon as alpha >= beta;
        * the default window is the full one: ``alpha=-math.inf``, ``beta=math.inf``.

    Hint: start from a copy of ``minimax``.  At a node where ``player`` moves, keep the best
    value so far and raise alpha to it; stop looking at further moves once alpha >= beta (the
    opponent above will never let the game come here).  Where the opponent moves, do the
    mirror image with beta.
    """
    raise NotImplementedError


def best_move(
    state: GameState, depth: int, evaluate: Evaluate = disc_difference, stats: dict | None = None
) -> tuple[int, float]:
    """The best action for the player to move and its value, ``depth`` plies deep.

    Contract: returns ``(action, value)`` where ``value`` is the highest minimax value (for
    ``state.current_player``) of the children searched ``depth - 1`` plies deep, and
    ``action`` the first child, in ``state.legal_actions()`` order, with that value: replace
    the best move only on a strictly better value.  Search each child with ``alphabeta``,
    passing the best value so far as ``alpha`` (``-math.inf`` for the first child) and
    ``stats`` on: the grader checks that the searches count no more nodes than that.

    Hint: the best value so far as alpha prunes the later children harder.
    """
    raise NotImplementedError


if __name__ == "__main__":
    from mcts_course.games import Othello

    stats_mm, stats_ab = {"nodes": 0}, {"nodes": 0}
    s = Othello()
    print(minimax(s, 4, 0, disc_difference, stats_mm), stats_mm)
    print(alphabeta(s, 4, 0, disc_difference, stats=stats_ab), stats_ab)
