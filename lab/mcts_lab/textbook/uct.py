"""UCT in four phases (Algorithm 8.1 of the book), as a textbook prints it.

A node holds a state, N (its visits) and W (the rewards of the player who moved into it).
Plain Python over the game protocol.  Random numbers are drawn as the package's
``MCTSAgent`` draws them (its expansion shuffles the untried moves and takes the last; its
playouts pick ``int(rng.random() * len(actions))``), so with the same seed this search grows the
engine's tree, visit for visit: ``tests/lab/test_textbook_mcts.py`` checks it.
"""

from __future__ import annotations

from random import Random

from mcts_course.games.base import GameState
from mcts_lab.textbook.bandit import SQRT2, playout, ucb1


class Node:
    """A node of the tree: STATE, PLAYER (who moved into it), N, W, its children."""

    def __init__(self, state: GameState, player: int, action: int = -1):
        self.state, self.player, self.action = state, player, action  # action -1: the root
        self.children: dict[int, Node] = {}  # action -> child
        self.untried: list[int] | None = None  # moves without a child, listed on first need
        self.N, self.W = 0, 0.0


def uct_search(state: GameState, budget: int, rng: Random, c: float = SQRT2) -> tuple[int, Node]:
    """The most visited move after ``budget`` iterations, and the tree."""
    root = Node(state, player=1 - state.current_player)
    for _ in range(budget):
        path = select(root, c)  # 1. selection
        leaf = expand(path[-1], root, rng)  # 2. expansion
        if leaf is not path[-1]:
            path.append(leaf)
        reward = playout(leaf.state, 0, rng)  # 3. simulation: player 0's reward
        backup(path, reward)  # 4. backpropagation
    return most_visited(root), root


def select(v: Node, c: float) -> list[Node]:
    """Down the tree by UCB1 while every move of ``v`` has its child; ties: the smallest move."""
    path = [v]
    while v.children and not v.untried:
        n = v.N
        v = max(v.children.values(), key=lambda u: (ucb1(u.W, u.N, n, c), -u.action))
        path.append(v)
    return path


def expand(v: Node, root: Node, rng: Random) -> Node:
    """One new child for a random untried move, once ``v`` has been visited."""
    if v is not root and v.N == 0:
        return v  # the expand threshold m = 1
    if v.untried is None:
        v.untried = v.state.legal_actions()
        rng.shuffle(v.untried)
    if not v.untried:
        return v  # a terminal state
    a = v.untried.pop()
    v.children[a] = Node(v.state.play(a), v.state.current_player, a)
    return v.children[a]


def backup(path: list[Node], reward0: float) -> None:
    """Every node counts a visit and the reward of the player who moved into it."""
    for u in path:
        u.N += 1
        u.W += reward0 if u.player == 0 else 1 - reward0


def most_visited(root: Node) -> int:
    """The final choice, the robust child (ties: the smallest action)."""
    return max(sorted(root.children), key=lambda a: root.children[a].N)
