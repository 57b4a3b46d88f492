"""Reference solution: the rules of Connect Four on a plain board, and MCTS on them (exercise 5).

The board is a list of 7 columns; each column lists the discs (0 or 1) from the bottom up and
holds at most 6 of them.  ``[[0], [], [1, 0], [], [], [], []]`` has a disc of player 0 at the
bottom of column 0, and in column 2 a disc of player 1 with one of player 0 on top of it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from mcts_course.games.base import GameState, Returns
from mcts_course.given import Node, reward

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


# -- MCTS, copied from the tic-tac-toe solution (exercises 1 and 2): this file stands alone ------
def ucb1(wins: float, visits: int, parent_visits: int, c: float = math.sqrt(2)) -> float:
    """UCB1 score of a child: mean reward plus exploration bonus; inf when never visited."""
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def select_child(node: Node, c: float) -> Node:
    """The child with the highest UCB1 score; ties go to the smallest action."""
    action = max(
        sorted(node.children),
        key=lambda a: ucb1(node.children[a].wins, node.children[a].visits, node.visits, c),
    )
    return node.children[action]


def simulate(state: GameState, rng: random.Random) -> Returns:
    """Play uniformly random moves (``rng.choice`` of the legal actions) to the end."""
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()


def backpropagate(path: Sequence[Node], returns: Returns) -> None:
    """Add one visit and the reward seen by each node's player to every node on the path."""
    for node in path:
        node.visits += 1
        node.wins += reward(returns, node.player)


def expand(node: Node, rng: random.Random) -> Node:
    """Add the child of one untried action, ``rng.choice(node.untried)``, and return it."""
    action = rng.choice(node.untried)
    node.untried.remove(action)
    child = Node(node.state.play(action), parent=node, action=action)
    node.children[action] = child
    return child


def mcts_search(
    state: GameState,
    iterations: int,
    c: float = math.sqrt(2),
    expand_threshold: int = 1,
    rng: random.Random | None = None,
) -> Node:
    """Run ``iterations`` rounds of select, expand, simulate, backpropagate; return the root."""
    rng = rng or random.Random()
    root = Node(state)
    for _ in range(iterations):
        node, path = root, [root]
        while not node.untried and node.children:  # fully expanded: descend by UCB1
            node = select_child(node, c)
            path.append(node)
        if node.untried and (node is root or node.visits >= expand_threshold):
            node = expand(node, rng)
            path.append(node)
        backpropagate(path, simulate(node.state, rng))
    return root


def best_action(root: Node) -> int:
    """The most visited child's action (the robust child); ties go to the smallest action."""
    return max(sorted(root.children), key=lambda a: root.children[a].visits)


class MCTSPlayer:
    """MCTS on ``Position`` (so on the rules above), with the player's own generator."""

    def __init__(self, iterations: int = 1000, c: float = math.sqrt(2), seed: int | None = None):
        self.iterations = iterations
        self.c = c
        self.rng = random.Random(seed)
        self.name = f"MCTS({iterations})"

    def select_action(self, board: Board, player: int) -> int:
        root = mcts_search(Position(board, player), self.iterations, self.c, 1, self.rng)
        return best_action(root)


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
