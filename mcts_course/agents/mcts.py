"""Monte Carlo Tree Search with UCT (Kocsis and Szepesvari, 2006): one skeleton, small hooks.

Each iteration (:meth:`MCTSAgent.step`) runs the four phases of the book's pseudocode::

    path    = select(root)           # 1. from the root, take select_child while descends(node):
                                     #    the child of best score(parent, child) (UCB1 here)
    leaf    = expand(path[-1])       # 2. once visited expand_threshold times, grow(node) adds
                                     #    children (one untried move here) and says which to value
    outcome = simulate(leaf)         # 3. the evaluator's returns (r0, r1) (a random playout), and
                                     #    the moves played after the leaf where they are recorded
    backpropagate(path + [leaf], outcome.returns, outcome.moves)   # 4. every node counts them

The code is split as in OpenSpiel: an evaluator (any :class:`~mcts_course.agents.rollout.Evaluator`;
:class:`~mcts_course.agents.rollout.RandomRollout` plays the random playout), the :class:`Node`
of the tree, and the agent.  The variants keep this loop and override a few small hooks:
``score`` (RAVE's blend, PUCT's prior term, the transposition table's edge counts, the solver's
"never a proven child"), ``grow`` and ``make_child`` (PUCT adds all children with their priors;
the table links a position's one node), ``simulate`` (RAVE records the playout's moves, the
solver returns a proven result) and ``backpropagate`` (one signature for all; each variant adds
its own statistics after UCT's).

Rewards are 1 for a win, 0.5 for a draw and 0 for a loss (the convention's one home is
:mod:`~mcts_course.agents.rollout`).  A node stores ``wins``, the reward sum of the player who
made the move INTO it (``node.player``, its parent's
``state.current_player``), so that a parent picks among its children by their ``wins`` as seen
by the player choosing.  The mover is always read from the state, never from the depth's
parity, which keeps Othello's passes right.  Selection scores children with
:func:`~mcts_course.agents.bandits.ucb1`; with rewards in [0, 1] its exploration constant is
c = sqrt(2) (Auer et al., 2002), the default.  Ties go to the smallest action, everywhere
(:func:`argmax`).
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple, TypeVar

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
from mcts_course.agents.rollout import Estimate, Evaluator, RandomRollout, reward
from mcts_course.games.base import GameState

DEFAULT_ITERATIONS = 200  # when neither iterations nor a time_limit is given
# How selection chooses a child: UCB1 is UCT; the others are the bandit chapter's alternatives,
# there so that exercise 7 can compare the policies inside the tree as well as at a flat root.
TREE_POLICIES = ("ucb1", "egreedy", "softmax")

Move = tuple[int, int]  # (player, action), as a recorded playout lists its moves
T = TypeVar("T")


def argmax(options: Mapping[int, T], key: Callable[[T], float]) -> int:
    """The action (a key of ``options``) whose option has the highest ``key``; ties: the
    smallest action, whatever the order of ``options``.  Every choice of the MCTS family (a
    child in selection, the final move, PUCT's first child) goes through here."""
    items = iter(options.items())
    first = next(items, None)
    if first is None:
        raise ValueError("argmax of no options")
    best_action, best_value = first[0], key(first[1])
    for action, option in items:
        value = key(option)
        if value > best_value or (value == best_value and action < best_action):
            best_action, best_value = action, value
    return best_action


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


class Outcome(NamedTuple):
    """What :meth:`MCTSAgent.simulate` found at a leaf: the ``returns`` (r0, r1), and the
    ``moves`` played after the leaf as (player, action) where they were recorded (RAVE's
    playouts; empty otherwise)."""

    returns: Estimate
    moves: Sequence[Move] = ()


class Step(NamedTuple):
    """What one MCTS iteration did: the ``path`` from the root to the leaf evaluated (including
    a node added by expansion), that new node (``expanded``, None if none was added) and the
    evaluator's ``returns`` (r0, r1), which every node on the path counted."""

    path: list[Node]
    expanded: Node | None
    returns: Estimate


def most_visited_child(root: Node) -> int:
    """The final choice: the most visited child's action (ties: the smallest action).

    Chaslot et al.'s *robust child*; not their *robust-max child* (most visits and best mean)."""
    return argmax(root.children, lambda child: child.visits)


def robust_max(root: Node) -> int:
    """Deprecated alias of :func:`most_visited_child` (the old name suggested the robust-max
    child, which this is not)."""
    warnings.warn(
        "robust_max is deprecated; use most_visited_child", DeprecationWarning, stacklevel=2
    )
    return most_visited_child(root)


def root_table(root: Node, c: float = SQRT2) -> list[dict[str, Any]]:
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
        if policy != "ucb1" and type(self).score is not MCTSAgent.score:
            raise ValueError(
                f"{type(self).__name__} selects by its own score; policy= is for MCTSAgent"
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
        self.forget_tree()

    def forget_tree(self) -> None:
        """Drop what a variant keeps beside the tree (priors, proofs, AMAF statistics ...):
        called by :meth:`reset`, and when a search starts without ``tree_reuse``."""

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:  # nothing to think about (often Othello's forced pass)
            reused = self._reused_root(state) if self.tree_reuse else None
            self.last_root = reused or Node(state)
            self.last_iterations = 0
            return actions[0]
        return most_visited_child(self.search(state))

    def root_table(self, root: Node | None = None) -> list[dict[str, Any]]:
        """The statistics of the root's children (default: the last search's root)."""
        root = root or self.last_root
        if root is None:
            raise ValueError("no search has been run yet")
        return root_table(root, self.c)

    # -- the skeleton: one loop, every variant's ----------------------------------------------
    def search(self, state: GameState) -> Node:
        """Run the search from ``state`` and return the root of the tree."""
        if not self.tree_reuse:
            self.forget_tree()  # the old tree is dropped: so is what was kept beside it
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
        returns, moves = self.simulate(leaf)
        self.backpropagate(path, returns, moves)
        return Step(path, expanded, returns)

    def select(self, node: Node) -> list[Node]:
        """Selection: from ``node``, descend to the child :meth:`select_child` picks while
        :meth:`descends` says so; return the path."""
        path = [node]
        while self.descends(node):
            node = self.select_child(node)
            path.append(node)
        return path

    def expand(self, node: Node, is_root: bool = False) -> Node:
        """Expansion: once ``node`` has been visited ``expand_threshold`` times (the root at
        once), :meth:`grow` gives it children; return the node to evaluate (``node`` itself if
        it stays a leaf)."""
        if node.visits < self.expand_threshold and not is_root:
            return node
        return self.grow(node)

    # -- the hooks the variants override --------------------------------------------------------
    def descends(self, node: Node) -> bool:
        """Whether selection goes on below ``node``: once it has a child for every move."""
        return bool(node.children) and not node.untried

    def select_child(self, node: Node) -> Node:
        """The child with the highest :meth:`score` (ties: the smallest action): a bandit at
        every node.  (With ``policy="egreedy"`` or ``"softmax"``, :meth:`policy_child` decides.)"""
        if self.policy != "ucb1":
            return self.policy_child(node)
        return node.children[argmax(node.children, partial(self.score, node))]

    def score(self, parent: Node, child: Node) -> float:
        """The selection score of ``child`` seen from ``parent``: UCB1."""
        return ucb1(child.wins, child.visits, parent.visits, self.c)

    def policy_child(self, node: Node) -> Node:
        """The child the epsilon-greedy or softmax rule picks, the children in action order."""
        children = [node.children[action] for action in sorted(node.children)]
        wins, visits = [ch.wins for ch in children], [ch.visits for ch in children]
        if self.policy == "egreedy":
            return children[epsilon_greedy(wins, visits, self.rng, self.epsilon)]
        return children[softmax(wins, visits, self.rng, self.temperature)]

    def grow(self, node: Node) -> Node:
        """The expansion policy: one new child, for a random untried action; return it (or
        ``node`` at a terminal state)."""
        if node.untried is None:
            node.untried = node.state.legal_actions()
            self.rng.shuffle(node.untried)  # pop() from the end then gives a random order
        if not node.untried:
            return node  # a terminal state
        action = node.untried.pop()
        child = node.children[action] = self.make_child(node, action)
        return child

    def make_child(self, node: Node, action: int) -> Node:
        """The node that ``action`` from ``node`` leads to (a new one here)."""
        return Node(node.state.play(action), action, node.state.current_player)

    def simulate(self, node: Node, rng: random.Random | None = None) -> Outcome:
        """Simulation: the evaluator's returns (r0, r1) from the node's state (a random
        playout), drawn from ``rng`` (default: the agent's own)."""
        return Outcome(self.evaluator.evaluate(node.state, self.rng if rng is None else rng))

    def backpropagate(
        self, path: list[Node], returns: Estimate, moves: Sequence[Move] = ()
    ) -> None:
        """Backpropagation: each node on the path counts a visit and the reward of its player.
        (``moves``, the playout's, are for the variants that learn from them.)"""
        rewards = (reward(returns, 0), reward(returns, 1))
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
