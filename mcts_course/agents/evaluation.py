"""Static evaluation functions for the search agents (minimax, alpha-beta).

An evaluation function takes ``(state, player)`` and returns a float from ``player``'s point of
view: bigger is better for ``player``.  A finished game is worth ``WIN_SCORE`` times its return
(+1 win, 0 draw, -1 loss), far beyond anything a heuristic can give, so that a search always
prefers a sure win to a good-looking position.  Before the end, each function asks the game for
its own fast evaluation (:meth:`~mcts_course.games.base.GameState.cell_score` and friends), so
nothing here knows how a game stores its board.

The functions are pluggable: ``AlphaBetaAgent(evaluate=mobility)``.
"""

from __future__ import annotations

from collections.abc import Callable

from mcts_course.games.base import GameState, Weights, winning_lines_table
from mcts_course.games.othello import CELL_WEIGHTS

Evaluation = Callable[[GameState, int], float]

WIN_SCORE = 1_000_000.0

__all__ = [
    "CELL_WEIGHTS",
    "EVALUATIONS",
    "WIN_SCORE",
    "Evaluation",
    "cell_score",
    "cell_weights",
    "disc_count",
    "mobility",
    "terminal_value",
    "winning_lines_table",
]


def cell_weights(game: type[GameState]) -> Weights:
    """The weight table of a game: :data:`CELL_WEIGHTS` for Othello, the number of winning
    lines through a cell in tic-tac-toe and Connect Four (the game's ``cell_weights()``)."""
    return game.cell_weights()


def terminal_value(state: GameState, player: int) -> float:
    """A finished game: +WIN_SCORE for a win, -WIN_SCORE for a loss, 0 for a draw."""
    return WIN_SCORE * state.returns()[player]


def cell_score(state: GameState, player: int) -> float:
    """Sum of the weights of ``player``'s cells minus those of the opponent's cells."""
    if state.is_terminal():
        return terminal_value(state, player)
    return state.cell_score(player)


def disc_count(state: GameState, player: int) -> float:
    """``player``'s discs (or marks) minus the opponent's."""
    if state.is_terminal():
        return terminal_value(state, player)
    return float(state.disc_difference(player))


def mobility(state: GameState, player: int) -> float:
    """``player``'s number of legal moves minus the opponent's.

    It matters in Othello; in tic-tac-toe and Connect Four both players always have the same
    moves, so it is 0 until the game ends.
    """
    if state.is_terminal():
        return terminal_value(state, player)
    return float(state.mobility(player))


EVALUATIONS: dict[str, Evaluation] = {
    "cellscore": cell_score,
    "discs": disc_count,
    "mobility": mobility,
}
