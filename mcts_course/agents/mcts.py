"""Monte Carlo Tree Search with UCT (Kocsis and Szepesvari, 2006).

Each iteration runs the four phases of the book's pseudocode::

    path   = select(root)            # 1. follow the best UCT child while nodes are fully expanded
    leaf   = expand(path[-1])        # 2. add one untried child (once the node has been visited
                                     #    expand_threshold times)
    result = simulate(leaf)          # 3. a random playout from the leaf: returns (r0, r1)
    backpropagate(path + [leaf], result)   # 4. every node on the path counts the result

The code is split as in OpenSpiel: an evaluator (:class:`~mcts_course.agents.rollout.RandomRollout`
plays the random playout), the :class:`Node` of the tree, and the agent.

Rewards are 1 for a win, 0.5 for a draw and 0 for a loss.  A node stores ``wins``, the reward
sum of the player who made the move INTO it (``node.player``, its parent's
``state.current_player``), so that a parent picks among its children by their ``wins`` as seen
by the player choosing.  The mover is always read from the state, never from the depth's
parity, which keeps Othello's passes right.  With rewards in [0, 1] the UCB1 exploration
constant is c = sqrt(2) (Auer et al., 2002), the default.
"""

from __future__ import annotations

import math
import time

from mcts_course.agents.base import Agent
from mcts_course.agents.rollout import RandomRollout
from mcts_course.games.base import GameState, Returns

SQRT2 = math.sqrt(2)


class Node:
    """A node of the search tree: a state, and statistics of the move that led to it."""

    __slots__ = ("state", "action", "player", "children", "untried", "visits", "wins")

    def __init__(self, state: GameState, action: int | None = None, player: int | None = None):
        self.state = state
        self.action = action  # the move that led here (None at the root)
        # The player who made that move; at the root, the opponent of the player to move.
        self.player = 1 - state.current_player if player is None else player
        self.children: dict[int, Node] = {}
        self.untried: list[int] | None = None  # actions not expanded yet (listed on first need)
        self.visits = 0
        self.wins = 0.0  # reward sum for self.player: win 1, draw 0.5, loss 0

    @property
    def mean(self) -> float:
        """The average reward of the move into this node, for the player who made it."""
        return self.wins / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        return f"Node(action={self.action}, player={self.player}, {self.wins:g}/{self.visits})"


def uct_value(child: Node, parent_visits: int, c: float = SQRT2) -> float:
    """UCT: the child's mean reward plus an exploration bonus for rarely tried moves.

    mean + c * sqrt(ln(parent visits) / child visits)
    """
    if child.visits == 0:
        return math.inf
    return child.wins / child.visits + c * math.sqrt(math.log(parent_visits) / child.visits)


def robust_max(root: Node) -> int:
    """The final choice: the most visited child's action (ties: the better mean)."""
    best = max(root.children.values(), key=lambda ch: (ch.visits, ch.mean))
    return best.action  # type: ignore[return-value]


def root_table(root: Node, c: float = SQRT2) -> list[dict]:
    """One row per child of the root, most visited first: action, move, visits, wins, mean, uct."""
    rows = [
        {
            "action": child.action,
            "move": root.state.action_to_string(action),
            "visits": child.visits,
            "wins": child.wins,
            "mean": child.mean,
            "uct": uct_value(child, root.visits, c),
        }
        for action, child in root.children.items()
    ]
    return sorted(rows, key=lambda row: (-row["visits"], -row["mean"], row["action"]))


class MCTSAgent(Agent):
    """UCT search with a budget of ``iterations`` and/or ``time_limit`` seconds (whichever ends
    first), then the most visited move.

    ``expand_threshold``: visits a leaf needs before it gets children (1 = expand at the second
    visit; the root is always expanded).  ``playout_depth``: cut playouts after so many plies.
    ``tree_reuse``: start the next search from the subtree of the position reached.
    """

    def __init__(
        self,
        iterations: int | None = 200,
        time_limit: float | None = None,
        c: float = SQRT2,
        expand_threshold: int = 1,
        playout_depth: int | None = None,
        tree_reuse: bool = False,
        seed: int | None = None,
        evaluator: RandomRollout | None = None,
    ):
        super().__init__(seed)
        if iterations is None and time_limit is None:
            raise ValueError("give iterations, a time_limit or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be >= 1, not {iterations}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be > 0 seconds, not {time_limit}")
        if expand_threshold < 1:
            raise ValueError(f"expand_threshold must be >= 1, not {expand_threshold}")
        if c < 0:
            raise ValueError(f"c must be >= 0, not {c}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.c = c
        self.expand_threshold = expand_threshold
        self.evaluator = evaluator or RandomRollout(playout_depth)
        self.tree_reuse = tree_reuse
        self.last_root: Node | None = None
        self.last_iterations = 0
        budget = [f"{iterations}"] if iterations is not None else []
        budget += [f"{time_limit:g}s"] if time_limit is not None else []
        self.name = f"MCTS({','.join(budget)})"

    @property
    def playout_depth(self) -> int | None:
        return self.evaluator.playout_depth

    def reset(self) -> None:
        self.last_root = None

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:
            return actions[0]  # nothing to think about (often Othello's forced pass)
        return robust_max(self.search(state))

    def root_table(self, root: Node | None = None) -> list[dict]:
        """The statistics of the root's children (default: the last search's root)."""
        root = root or self.last_root
        if root is None:
            raise ValueError("no search has been run yet")
        return root_table(root, self.c)

    # -- the search ----------------------------------------------------------------------------
    def search(self, state: GameState) -> Node:
        """Run the search from ``state`` and return the root of the tree."""
        root = self._reused_root(state) if self.tree_reuse else None
        root = root or Node(state)
        iterations = math.inf if self.iterations is None else self.iterations
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while done < iterations:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            path = self.select(root)
            leaf = self.expand(path[-1], is_root=len(path) == 1)
            if leaf is not path[-1]:
                path.append(leaf)
            self.backpropagate(path, self.simulate(leaf))
            done += 1
        self.last_iterations = done
        self.last_root = root
        return root

    def select(self, node: Node) -> list[Node]:
        """Selection: from the root, follow the child with the highest UCT value while the node
        is fully expanded; return the path.  The loop computes uct_value() inline (hot path)."""
        path = [node]
        c = self.c
        while node.children and not node.untried:
            log_n = math.log(node.visits)
            best_value = -1.0
            for child in node.children.values():
                value = child.wins / child.visits + c * math.sqrt(log_n / child.visits)
                if value > best_value:
                    node, best_value = child, value
            path.append(node)
        return path

    def expand(self, node: Node, is_root: bool = False) -> Node:
        """Expansion: give ``node`` one new child, for a random untried action, once it has been
        visited ``expand_threshold`` times; return the child (or ``node`` if it stays a leaf)."""
        if node.visits < self.expand_threshold and not is_root:
            return node
        if node.untried is None:
            node.untried = node.state.legal_actions()
            self.rng.shuffle(node.untried)  # pop() from the end then gives a random order
        if not node.untried:
            return node  # a terminal state
        action = node.untried.pop()
        child = Node(node.state.play(action), action, node.state.current_player)
        node.children[action] = child
        return child

    def simulate(self, node: Node) -> Returns:
        """Simulation: the returns (r0, r1) of a random playout from the node's state."""
        return self.evaluator.evaluate(node.state, self.rng)

    @staticmethod
    def backpropagate(path: list[Node], returns: Returns) -> None:
        """Backpropagation: each node on the path counts a visit and the reward of its player."""
        rewards = ((returns[0] + 1) / 2, (returns[1] + 1) / 2)  # win 1, draw 0.5, loss 0
        for node in path:
            node.visits += 1
            node.wins += rewards[node.player]

    def _reused_root(self, state: GameState) -> Node | None:
        """The node for ``state`` in the last tree, up to two plies below its root."""
        root = self.last_root
        if root is None:
            return None
        frontier = [root]
        for _ in range(3):
            for node in frontier:
                if node.state == state:
                    return node
            frontier = [child for node in frontier for child in node.children.values()]
        return None
