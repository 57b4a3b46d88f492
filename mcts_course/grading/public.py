"""What the grader and the student's process share: the given ``Node`` class and the helper
functions a test hands to the student's code by name (Othello evaluations for alpha-beta).

Nothing here answers an exercise: the given code of the exercise files (defined once in
:mod:`mcts_course.given`), and evaluations that are not graded.  A function listed in
:data:`PUBLIC` crosses the process boundary as its name and runs in the student's process
(calling back the grader for every evaluation would be slow).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcts_course.games.base import GameState
from mcts_course.given import Node, disc_difference

__all__ = ["PUBLIC", "Node", "disc_difference", "weighted"]


def _cells(state: GameState) -> list[tuple[int, int, int]]:
    """(row, col, owner) of every occupied cell."""
    return [
        (r, c, int(v))
        for r, row in enumerate(state.board())
        for c, v in enumerate(row)
        if int(v) >= 0
    ]


WEIGHTS = (
    (100, -20, 10, 5, 5, 10, -20, 100),
    (-20, -50, -2, -2, -2, -2, -50, -20),
    (10, -2, -1, -1, -1, -1, -2, 10),
    (5, -2, -1, -1, -1, -1, -2, 5),
    (5, -2, -1, -1, -1, -1, -2, 5),
    (10, -2, -1, -1, -1, -1, -2, 10),
    (-20, -50, -2, -2, -2, -2, -50, -20),
    (100, -20, 10, 5, 5, 10, -20, 100),
)


def weighted(state: GameState, player: int) -> float:
    """Cell weights of ``player`` minus the opponent's (a second evaluation, so that a solution
    cannot depend on disc_difference); +-10000 times the result at the end."""
    if state.is_terminal():
        return 10000.0 * state.returns()[player]
    return float(sum(WEIGHTS[r][c] * (1 if v == player else -1) for r, c, v in _cells(state)))


# Bandit policies handed to monte_carlo_move (not the graded ones: those would be answers).
def round_robin(counts: list[int], sums: list[float], rng: Any) -> int:
    """The least played arm (the first of them)."""
    return min(range(len(counts)), key=lambda i: counts[i])


def greedy_after_5(counts: list[int], sums: list[float], rng: Any) -> int:
    """Five playouts of each arm, then the best mean so far."""
    if min(counts) < 5:
        return round_robin(counts, sums, rng)
    return max(range(len(counts)), key=lambda i: sums[i] / counts[i])


def last_once_then_first(counts: list[int], sums: list[float], rng: Any) -> int:
    """One playout of the last arm, then the first arm only."""
    return len(counts) - 1 if counts[-1] == 0 else 0


PUBLIC: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (disc_difference, weighted, round_robin, greedy_after_5, last_once_then_first)
}
