"""Static evaluation functions for the search agents (minimax, alpha-beta).

An evaluation function takes ``(state, player)`` and returns a float from ``player``'s point of
view: bigger is better for ``player``.  A finished game is worth ``WIN_SCORE`` times its return
(+1 win, 0 draw, -1 loss), far beyond anything a heuristic can give, so that a search always
prefers a sure win to a good-looking position.

The functions are pluggable: ``AlphaBetaAgent(evaluate=mobility)``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from mcts_course.games.base import GameState
from mcts_course.games.othello import PASS, Othello

Evaluation = Callable[[GameState, int], float]

WIN_SCORE = 1_000_000.0

# The classic Othello square weights: corners are gold, the squares next to them poison.
# Rows of ints (numpy.array(CELL_WEIGHTS) for an array); row 0 is rank 1, printed on top.
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
Weights = tuple[tuple[int, ...], ...]

# How many in a row win, for the games won by a line.
LINE_LENGTH = {"tictactoe": 3, "connect4": 4}


def winning_lines_table(rows: int, cols: int, length: int) -> Weights:
    """How many winning lines (rows, columns, diagonals of ``length`` cells) pass through each cell.

    For tic-tac-toe the centre lies on 4 lines, a corner on 3, an edge on 2; for Connect Four this
    gives the well-known table with 13 in the middle columns.
    """
    table = [[0] * cols for _ in range(rows)]
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for row in range(rows):
            for col in range(cols):
                end_row, end_col = row + d_row * (length - 1), col + d_col * (length - 1)
                if 0 <= end_row < rows and 0 <= end_col < cols:
                    for k in range(length):
                        table[row + d_row * k][col + d_col * k] += 1
    return tuple(tuple(row) for row in table)


@cache
def cell_weights(game: type[GameState]) -> Weights:
    """The weight table of a game: CELL_WEIGHTS for Othello, winning lines through a cell else."""
    if game.NAME == "othello":
        return CELL_WEIGHTS
    return winning_lines_table(game.ROWS, game.COLS, LINE_LENGTH[game.NAME])


def terminal_value(state: GameState, player: int) -> float:
    """A finished game: +WIN_SCORE for a win, -WIN_SCORE for a loss, 0 for a draw."""
    return WIN_SCORE * state.returns()[player]


# Othello fast path: one bitboard per distinct weight, so a score is a few popcounts.
_OTHELLO_WEIGHT_MASKS = [
    (w, sum(1 << sq for sq in range(64) if CELL_WEIGHTS[sq // 8][sq % 8] == w))
    for w in sorted({w for row in CELL_WEIGHTS for w in row} - {0})
]


def cell_score(state: GameState, player: int) -> float:
    """Sum of the weights of ``player``'s cells minus those of the opponent's cells."""
    if state.is_terminal():
        return terminal_value(state, player)
    if isinstance(state, Othello):
        mine, theirs = (state.black, state.white) if player == 0 else (state.white, state.black)
        return float(
            sum(
                w * ((mine & m).bit_count() - (theirs & m).bit_count())
                for w, m in _OTHELLO_WEIGHT_MASKS
            )
        )
    weights = cell_weights(type(state))
    score = 0
    for board_row, weight_row in zip(state.board(), weights, strict=True):
        for owner, weight in zip(board_row, weight_row, strict=True):
            if owner >= 0:
                score += weight if owner == player else -weight
    return float(score)


def disc_count(state: GameState, player: int) -> float:
    """``player``'s discs (or marks) minus the opponent's."""
    if state.is_terminal():
        return terminal_value(state, player)
    cells = [owner for row in state.board() for owner in row]
    return float(cells.count(player) - cells.count(1 - player))


def legal_move_count(state: GameState, player: int) -> int:
    """How many moves ``player`` would have if it were their turn (a forced pass counts 0)."""
    if isinstance(state, Othello) and state.current_player != player:
        state = Othello(state.black, state.white, player)  # the same discs, the other to move
    actions = state.legal_actions()
    return 0 if actions == [PASS] and isinstance(state, Othello) else len(actions)


def mobility(state: GameState, player: int) -> float:
    """``player``'s number of legal moves minus the opponent's.

    It matters in Othello; in tic-tac-toe and Connect Four both players always have the same
    moves, so it is 0 until the game ends.
    """
    if state.is_terminal():
        return terminal_value(state, player)
    if not isinstance(state, Othello):
        return 0.0
    return float(legal_move_count(state, player) - legal_move_count(state, 1 - player))


EVALUATIONS: dict[str, Evaluation] = {
    "cellscore": cell_score,
    "discs": disc_count,
    "mobility": mobility,
}
