"""UCT in four phases (Algorithm 8.1 of the book), as a textbook prints it.

The nodes are the exercises' :class:`mcts_course.given.Node` (state, parent, action, children,
untried moves, visits, wins, and the player who moved into the node).  Plain Python over the
game protocol.  Random numbers are drawn as the package's ``MCTSAgent`` draws them (a node's
untried moves are shuffled when it is first expanded and taken from the end; playouts pick
``int(rng.random() * len(actions))``), so with the same seed this search grows the engine's
tree, visit for visit: ``tests/lab/test_textbook_mcts.py`` checks it.
"""

from __future__ import annotations

from random import Random

from mcts_course.games.base import GameState
from mcts_course.given import Node
from mcts_lab.textbook.bandit import SQRT2, playout, ucb1


def uct_search(state: GameState, budget: int, rng: Random, c: float = SQRT2) -> tuple[int, Node]:
    """The most visited move after ``budget`` iterations, and the tree."""
    root = Node(state)
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
        n = v.visits
        v = max(v.children.values(), key=lambda u: (ucb1(u.wins, u.visits, n, c), -u.action))
        path.append(v)
    return path


def expand(v: Node, root: Node, rng: Random) -> Node:
    """One new child for a random untried move, once ``v`` has been visited."""
    if (v is not root and v.visits == 0) or not v.untried:
        return v  # the expand threshold m = 1, or a terminal state
    if not v.children:
        rng.shuffle(v.untried)  # a random order, drawn when v is first expanded
    a = v.untried.pop()
    v.children[a] = Node(v.state.play(a), v, a)
    return v.children[a]


def backup(path: list[Node], reward0: float) -> None:
    """Every node counts a visit and the reward of the player who moved into it."""
    for u in path:
        u.visits += 1
        u.wins += reward0 if u.player == 0 else 1 - reward0


def most_visited(root: Node) -> int:
    """The final choice, the robust child (ties: the smallest action)."""
    return max(sorted(root.children), key=lambda a: root.children[a].visits)
