"""Monte Carlo Tree Search with UCT (Kocsis and Szepesvari, 2006).

Each iteration (:meth:`MCTSAgent.step`) runs the four phases of the book's pseudocode::

    path   = select(root)            # 1. follow the best UCB1 child while nodes are fully expanded
                                     #    (select_child; policy= swaps in another bandit rule)
    leaf   = expand(path[-1])        # 2. add one untried child (once the node has been visited
                                     #    expand_threshold times)
    result = simulate(leaf)          # 3. the evaluator's returns (r0, r1): a random playout
    backpropagate(path + [leaf], result)   # 4. every node on the path counts the result

The code is split as in OpenSpiel: an evaluator (any :class:`~mcts_course.agents.rollout.Evaluator`;
:class:`~mcts_course.agents.rollout.RandomRollout` plays the random playout), the :class:`Node`
of the tree, and the agent.  Subclasses (MCTS-Solver, PUCT) override single phases.

Rewards are 1 for a win, 0.5 for a draw and 0 for a loss.  A node stores ``wins``, the reward
sum of the player who made the move INTO it (``node.player``, its parent's
``state.current_player``), so that a parent picks among its children by their ``wins`` as seen
by the player choosing.  The mover is always read from the state, never from the depth's
parity, which keeps Othello's passes right.  Selection scores children with
:func:`~mcts_course.agents.bandits.ucb1`; with rewards in [0, 1] its exploration constant is
c = sqrt(2) (Auer et al., 2002), the default.  Ties go to the smallest action, everywhere.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

from mcts_course.agents.bandits import (
    EPSILON,
    SQRT2,
    TEMPERATURE,
    check_parameters,
    epsilon_greedy,
    softmax,
    ucb1,
)
from mcts_course.agents.base import Agent, check_budget
from mcts_course.agents.rollout import Evaluator, RandomRollout
from mcts_course.games.base import GameState, Returns

DEFAULT_ITERATIONS = 200  # when neither iterations nor a time_limit is given
# How selection chooses a child: UCB1 is UCT; the others are the bandit chapter's alternatives,
# there so that exercise 7 can compare the policies inside the tree as well as at a flat root.
TREE_POLICIES = ("ucb1", "egreedy", "softmax")


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


class Step(NamedTuple):
    """What one MCTS iteration did: the ``path`` from the root to the leaf evaluated (including
    a node added by expansion), that new node (``expanded``, None if none was added) and the
    evaluator's ``returns`` (r0, r1), which every node on the path counted."""

    path: list[Node]
    expanded: Node | None
    returns: Returns


def robust_max(root: Node) -> int:
    """The final choice: the most visited child's action (ties: the smallest action)."""
    best = max(root.children.values(), key=lambda ch: (ch.visits, -ch.action))
    return best.action  # type: ignore[return-value]


def root_table(root: Node, c: float = SQRT2) -> list[dict]:
    """One row per child of the root, most visited first: action, move, visits, wins, mean, and
    ``uct``, the child's :func:`~mcts_course.agents.bandits.ucb1` score."""
    rows = [
        {
            "action": child.action,
            "move": root.state.action_to_string(action),
            "visits": child.visits,
            "wins": child.wins,
            "mean": child.mean,
            "uct": ucb1(child.wins, child.visits, root.visits, c),
        }
        for action, child in root.children.items()
    ]
    return sorted(rows, key=lambda row: (-row["visits"], -row["mean"], row["action"]))


class MCTSAgent(Agent):
    """UCT search, then the most visited move (ties: the smallest action).

    Budget: ``iterations`` and/or ``time_limit`` seconds, whichever ends first; ``time_limit``
    alone searches for that time; neither gives 200 iterations.
    ``expand_threshold``: visits a leaf needs before it gets children (1 = expand at the second
    visit; the root is always expanded).  ``playout_depth``: cut the random playouts after so many
    plies.  ``evaluator``: how a leaf is valued instead (an :class:`Evaluator`; giving it with
    ``playout_depth`` is an error).  ``tree_reuse``: start the next search from the subtree of the
    position reached.  After every move, forced or not, ``last_root`` is the tree of the position
    just played and ``last_iterations`` the iterations run (0 for a forced move).
    ``policy``: the bandit rule that picks a child during selection, ``"ucb1"`` (UCT, the
    default), ``"egreedy"`` (with ``epsilon``) or ``"softmax"`` (with ``temperature``), as in
    :class:`~mcts_course.agents.montecarlo.MonteCarloAgent`.
    """

    def __init__(
        self,
        iterations: int | None = None,
        *,
        time_limit: float | None = None,
        c: float = SQRT2,
        expand_threshold: int = 1,
        playout_depth: int | None = None,
        tree_reuse: bool = False,
        evaluator: Evaluator | None = None,
        policy: str = "ucb1",
        epsilon: float = EPSILON,
        temperature: float = TEMPERATURE,
        seed: int | None = None,
    ):
        super().__init__(seed)
        if policy not in TREE_POLICIES:
            raise ValueError(
                f"unknown tree policy {policy!r}; choose one of: {', '.join(TREE_POLICIES)}"
            )
        check_parameters(epsilon, temperature)
        iterations = check_budget("iterations", iterations, time_limit, DEFAULT_ITERATIONS)
        if expand_threshold < 1:
            raise ValueError(f"expand_threshold must be >= 1, not {expand_threshold}")
        if c < 0:
            raise ValueError(f"c must be >= 0, not {c}")
        if evaluator is not None and playout_depth is not None:
            raise ValueError(
                "give an evaluator or a playout_depth, not both (for cut playouts with a custom "
                "evaluator, build it with its own depth, e.g. RandomRollout(playout_depth=20))"
            )
        if evaluator is not None and not isinstance(evaluator, Evaluator):
            raise TypeError(f"evaluator must have evaluate(state, rng), not {evaluator!r}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.c = c
        self.policy, self.epsilon, self.temperature = policy, epsilon, temperature
        self.expand_threshold = expand_threshold
        self.evaluator: Evaluator = evaluator or RandomRollout(playout_depth)
        self.tree_reuse = tree_reuse
        self.last_root: Node | None = None
        self.last_iterations = 0
        budget = [f"{iterations}"] if iterations is not None else []
        budget += [f"{time_limit:g}s"] if time_limit is not None else []
        budget += [] if policy == "ucb1" else [policy]
        self.name = f"MCTS({','.join(budget)})"

    @property
    def playout_depth(self) -> int | None:
        """The evaluator's playout depth (None: playouts to the end, or not a playout)."""
        return getattr(self.evaluator, "playout_depth", None)

    def reset(self) -> None:
        self.last_root = None

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:  # nothing to think about (often Othello's forced pass)
            reused = self._reused_root(state) if self.tree_reuse else None
            self.last_root = reused or Node(state)
            self.last_iterations = 0
            return actions[0]
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
            self.step(root)
            done += 1
        self.last_iterations = done
        self.last_root = root
        return root

    def step(self, root: Node) -> Step:
        """One iteration from ``root``: select, expand, simulate, backpropagate."""
        path = self.select(root)
        leaf = self.expand(path[-1], is_root=len(path) == 1)
        expanded = None
        if leaf is not path[-1]:
            path.append(leaf)
            expanded = leaf
        returns = self.simulate(leaf)
        self.backpropagate(path, returns)
        return Step(path, expanded, returns)

    def select(self, node: Node) -> list[Node]:
        """Selection: from ``node``, descend to the child :meth:`select_child` picks while the
        node is fully expanded; return the path."""
        path = [node]
        while node.children and not node.untried:
            node = self.select_child(node)
            path.append(node)
        return path

    def select_child(self, node: Node) -> Node:
        """The child with the highest UCB1 score (ties: the smallest action): a bandit at every
        node.  (With ``policy="egreedy"`` or ``"softmax"``, :meth:`policy_child` decides.)"""
        if self.policy != "ucb1":
            return self.policy_child(node)
        parent_visits, c = node.visits, self.c
        best, best_value = None, -1.0
        for child in node.children.values():
            value = ucb1(child.wins, child.visits, parent_visits, c)
            if value > best_value or (value == best_value and child.action < best.action):
                best, best_value = child, value
        return best  # type: ignore[return-value]

    def policy_child(self, node: Node) -> Node:
        """The child the epsilon-greedy or softmax rule picks, the children in action order."""
        children = sorted(node.children.values(), key=lambda child: child.action)
        wins, visits = [ch.wins for ch in children], [ch.visits for ch in children]
        if self.policy == "egreedy":
            return children[epsilon_greedy(wins, visits, self.rng, self.epsilon)]
        return children[softmax(wins, visits, self.rng, self.temperature)]

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
