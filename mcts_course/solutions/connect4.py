"""Reference solution: the rules of Connect Four on a plain board, and an MCTS player (exercise 5).

The board is a list of 7 columns; each column lists the discs (0 or 1) from the bottom up and
holds at most 6 of them.  ``[[0], [], [1, 0], [], [], [], []]`` has a disc of player 0 at the
bottom of column 0, and in column 2 a disc of player 1 with one of player 0 on top of it.
"""

from __future__ import annotations

import math
import random

from mcts_course.games.base import GameState, Returns
from mcts_course.given import Node

COLS, ROWS = 7, 6
Board = list[list[int]]

# The four directions of a line, as (column step, row step): one of each pair of opposites.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


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
    """The columns that are not full, in increasing order."""
    return [col for col in range(COLS) if len(board[col]) < ROWS]


def drop(board: Board, column: int, player: int) -> Board:
    """A NEW board with a disc of ``player`` dropped into ``column``; ``board`` is unchanged.

    Raises ValueError when the column does not exist or is full.
    """
    if not 0 <= column < COLS or len(board[column]) >= ROWS:
        raise ValueError(f"column {column} is not a legal move")
    new = [list(col) for col in board]
    new[column].append(player)
    return new


def disc(board: Board, col: int, row: int) -> int | None:
    """The disc at (col, row), row 0 at the bottom; None when empty or off the board."""
    if 0 <= col < COLS and 0 <= row < len(board[col]):
        return board[col][row]
    return None


def is_win(board: Board, player: int) -> bool:
    """True when ``player`` has four discs in a row: across, up, or along either diagonal."""
    for col in range(COLS):
        for row in range(len(board[col])):
            if board[col][row] != player:
                continue
            for dc, dr in DIRECTIONS:
                if all(disc(board, col + k * dc, row + k * dr) == player for k in range(1, 4)):
                    return True
    return False


# -- the player: MCTS on the game protocol (the same algorithm as in tic-tac-toe) ----------------
def _ucb1(child: Node, parent_visits: int, c: float) -> float:
    if child.visits == 0:
        return math.inf
    return child.wins / child.visits + c * math.sqrt(math.log(parent_visits) / child.visits)


def _simulate(state: GameState, rng: random.Random) -> Returns:
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()


class MCTSPlayer:
    """An MCTS player for any game of the protocol; meant for ``ConnectFour`` states."""

    def __init__(self, iterations: int = 1000, c: float = math.sqrt(2), seed: int | None = None):
        self.iterations = iterations
        self.c = c
        self.rng = random.Random(seed)
        self.name = f"MCTS({iterations})"

    def select_action(self, state: GameState) -> int:
        root = Node(state)
        for _ in range(self.iterations):
            node, path = root, [root]
            while not node.untried and node.children:
                node = max(
                    node.children.values(), key=lambda ch, n=node: _ucb1(ch, n.visits, self.c)
                )
                path.append(node)
            if node.untried:
                action = self.rng.choice(node.untried)
                node.untried.remove(action)
                node.children[action] = Node(node.state.play(action), node, action)
                node = node.children[action]
                path.append(node)
            returns = _simulate(node.state, self.rng)
            for n in path:
                n.visits += 1
                n.wins += (returns[n.player] + 1) / 2
        return max(sorted(root.children), key=lambda a: root.children[a].visits)
