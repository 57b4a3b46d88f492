"""Exercise 5: the rules of Connect Four, and an MCTS player that beats random play.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/connect4.py

The board is a plain Python value: a list of 7 columns; each column lists its discs (0 or 1)
from the BOTTOM up and holds at most 6 of them.  For example ``[[0], [], [1, 0], [], [], [], []]``
has a disc of player 0 at the bottom of column 0, and in column 2 a disc of player 1 with a
disc of player 0 on top of it.  Columns are numbered 0..6 (people call them 1..7).
"""

from __future__ import annotations

import math
import random

from mcts_course.games.base import GameState

COLS, ROWS = 7, 6
Board = list[list[int]]


def empty_board() -> Board:
    """A board with no discs (given)."""
    return [[] for _ in range(COLS)]


def show(board: Board) -> str:
    """The board as text, top row first; X is player 0, O player 1 (given)."""
    lines = []
    for row in reversed(range(ROWS)):
        cells = [".XO"[board[c][row] + 1] if row < len(board[c]) else "." for c in range(COLS)]
        lines.append(" ".join(cells))
    return "\n".join(lines + ["1 2 3 4 5 6 7"])


def legal_columns(board: Board) -> list[int]:
    """The columns where a disc can still be dropped, in increasing order.

    Contract: column c is legal when it holds fewer than 6 discs.
    """
    raise NotImplementedError


def drop(board: Board, column: int, player: int) -> Board:
    """A NEW board: ``board`` with a disc of ``player`` dropped into ``column``.

    Contract: the disc lands on top of the column (it is appended to the column's list);
    ``board`` itself is left unchanged; raise ``ValueError`` when ``column`` is not in 0..6 or
    is full.

    Hint: ``[list(col) for col in board]`` copies the board.
    """
    raise NotImplementedError


def is_win(board: Board, player: int) -> bool:
    """True when ``player`` has four discs in a row: horizontally, vertically, or along either
    diagonal (rising "/" or falling "\\").

    Contract: works on any board of the representation above (even one that no game could
    reach, with lines of both players); returns a bool.

    Hint: write a helper ``disc(board, col, row)`` that returns None off the board or on an
    empty cell; then from every disc of ``player`` look along the four directions (1, 0),
    (0, 1), (1, 1) and (1, -1) as (column step, row step).
    """
    raise NotImplementedError


class MCTSPlayer:
    """An MCTS player for Connect Four: ``MCTSPlayer(iterations=1000, c=sqrt(2), seed=None)``.

    Contract: ``.name`` is a short string; ``.select_action(state)`` takes a
    ``mcts_course.games.ConnectFour`` state (the game protocol: ``legal_actions``, ``play``,
    ``is_terminal``, ``returns``, ``current_player``) and returns a legal column after
    ``iterations`` rounds of MCTS with UCB1 (constant ``c``), random playouts, and the most
    visited child as the move.  With 200 iterations it must beat random play 9 games in 10.

    Hint: your tic-tac-toe MCTS (exercises 1 to 4) works unchanged on any game of the protocol:
    copy its Node class and functions here (with files: or import them from your ttt_mcts.py
    when it sits in the same folder).
    """

    def __init__(self, iterations: int = 1000, c: float = math.sqrt(2), seed: int | None = None):
        self.rng = random.Random(seed)
        raise NotImplementedError

    def select_action(self, state: GameState) -> int:
        raise NotImplementedError


if __name__ == "__main__":
    from mcts_course.games import ConnectFour

    state, me, player = ConnectFour(), 0, MCTSPlayer(iterations=2000)
    while not state.is_terminal():
        print(state)
        if state.current_player == me:
            state = state.play(state.parse_action(input("your column (1-7): ")))
        else:
            state = state.play(player.select_action(state))
    print(state, state.returns())
