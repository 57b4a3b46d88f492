"""RAVE: UCT helped by all-moves-as-first (AMAF) statistics (Gelly and Silver, 2007, 2011).

A UCT node learns the value of its move only from the iterations that go through it: a few
at first, so its mean is noisy.  AMAF learns much faster from the same playouts.  A playout that
starts at node ``s`` and in which the player to move at ``s`` plays move ``a`` *at any later
time* counts as a sample for ``a`` at ``s``, as if ``a`` had been played first.  Each playout
thus updates the AMAF statistics of many children of every node on its path, not one.  The
estimate is biased (a move can be good now and bad later, or the other way round) but it has
many more samples.  RAVE (rapid action value estimation) blends the two, trusting AMAF while a
child has few visits and its own mean later::

    score(child) = (1 - beta) * mean + beta * amaf_mean + c * sqrt(ln N / n)
    beta         = sqrt(K / (3 N + K))

This is the "hand-selected schedule" of Gelly and Silver (2011): ``N`` is the number of visits of
the node choosing (the parent), and the *equivalence parameter* ``K`` the number of visits at
which the two estimates weigh the same (beta = 1/2 at N = K); beta = 1 before any visit and falls
towards 0 like ``1 / sqrt(N)``.  We keep UCB1's exploration term with the agent's ``c`` so that
RAVE differs from :class:`~mcts_course.agents.mcts.MCTSAgent` in the blend alone: ``K = 0``
gives beta = 0, plain UCT.  (Gelly and Silver also derive a schedule that minimises the mean
squared error of the blend, at the cost of a second parameter, the AMAF bias; the one-parameter
schedule is the one they started from, and it is enough to see what AMAF does.)

Which samples count, for a child of node ``s`` (its move ``a``, made by ``p``, the player to
move at ``s``): every iteration through ``s`` in which ``p`` played ``a`` at or after ``s``, in
the tree part of the path or in the playout; a move counts once per iteration even if ``p``
plays it again (a Connect Four column can be played several times).  This needs "the same move"
to mean something in another position: in Othello and tic-tac-toe an action is a cell, in
Connect Four a column, so it does.  Othello's pass is an action like the others; it is only ever
legal alone, so its AMAF value never has to compete with another move's.

Three hooks of the MCTS skeleton change: ``simulate`` records the playout's moves
(:func:`recorded_playout`, through the game protocol, hence slower than the game's own
rollout), ``backpropagate`` adds the AMAF statistics, and ``score`` is the blend.  Expansion and
the final choice (most visits) are UCT's.

With ``amaf_unvisited=True`` the agent uses AMAF as MoGo did (Gelly and Silver 2007, 2011):
a node gets ALL its children when it is expanded, so that every playout through it updates the
AMAF statistics of moves not yet tried as well, and selection ranks a child never visited by
its AMAF mean alone (beta = 1 for it; ``fpu`` while it has no AMAF sample either).  Plain
expansion instead draws the next untried move at random and uses AMAF only among the children
already visited.  (A fourth hook, ``grow``, changes in that mode.)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from mcts_course.agents.mcts import MCTSAgent, Move, Node, Outcome
from mcts_course.agents.rollout import Estimate, reward
from mcts_course.games.base import GameState, Returns

__all__ = ["Move", "RAVEAgent", "rave_beta", "recorded_playout"]


def recorded_playout(
    state: GameState, rng: random.Random, max_plies: int | None = None
) -> tuple[Returns, list[Move]]:
    """A uniformly random playout from ``state``, and the moves it played as (player, action).

    The same playout as the games' own :meth:`~mcts_course.games.base.GameState.rollout` (cut
    after ``max_plies`` plies if given and scored by ``cutoff_returns``), written through the
    protocol so that the moves can be kept.
    """
    moves: list[Move] = []
    while max_plies is None or len(moves) < max_plies:
        actions = state.legal_actions()
        if not actions:
            break
        action = actions[int(rng.random() * len(actions))]
        moves.append((state.current_player, action))
        state = state.play(action)
    return state.cutoff_returns(), moves


def rave_beta(k: float, parent_visits: int) -> float:
    """The weight of the AMAF mean: sqrt(K / (3 N + K)); 0 when K = 0 (plain UCT)."""
    if k == 0:
        return 0.0
    return math.sqrt(k / (3 * parent_visits + k))


class RAVEAgent(MCTSAgent):
    """UCT with RAVE; ``rave`` is the equivalence parameter K (>= 0; 0 is plain UCT).

    Takes the keywords of :class:`~mcts_course.agents.mcts.MCTSAgent` except ``evaluator`` and
    ``policy`` (RAVE needs the moves of a random playout, and selects by its own blend).
    :meth:`amaf` gives a node's AMAF statistics after a search.
    """

    def __init__(
        self,
        iterations: int | None = None,
        *,
        rave: float = 300,
        amaf_unvisited: bool = False,
        fpu: float = 1.0,
        **kwargs: Any,
    ) -> None:
        if not 0 <= rave < math.inf:  # (NaN fails too)
            raise ValueError(
                f"rave (the equivalence parameter K) must be a number >= 0, not {rave}"
            )
        if kwargs.get("evaluator") is not None:
            raise ValueError(
                "RAVE needs the moves of a random playout; evaluator= is for "
                "MCTSAgent (playout_depth= cuts RAVE's playouts)"
            )
        super().__init__(iterations, **kwargs)
        self.rave = rave
        self.amaf_unvisited, self.fpu = amaf_unvisited, fpu
        mode = ",all" if amaf_unvisited else ""
        self.name = self.name.replace("MCTS(", "RAVE(", 1).replace(")", f",K={rave:g}{mode})")
        # child -> [AMAF reward sum, AMAF count] for child.player, beside the tree as the
        # solver's proofs are; cleared whenever a search starts from a fresh root.
        self._amaf: dict[Node, list[float]] = {}

    def amaf(self, node: Node) -> tuple[float, int]:
        """The AMAF (reward sum, count) of the move into ``node``, for ``node.player``."""
        wins, count = self._amaf.get(node, (0.0, 0))
        return wins, int(count)

    def forget_tree(self) -> None:
        self._amaf.clear()

    # -- the hooks that change ----------------------------------------------------------------
    def simulate(self, node: Node, rng: random.Random | None = None) -> Outcome:
        """Simulation: a random playout's returns and the moves it played."""
        rng = self.rng if rng is None else rng
        return Outcome(*recorded_playout(node.state, rng, self.playout_depth))

    def backpropagate(
        self, path: list[Node], returns: Estimate, moves: Sequence[Move] = ()
    ) -> None:
        """UCT's statistics on the path, then AMAF: walking up from the leaf, the moves made
        from node ``s`` on (the playout's, then the tree's below ``s``) update every child of
        ``s`` whose move is among them, for the player who made it."""
        super().backpropagate(path, returns)
        # (player, action) played after the leaf; None is the root's action, never in a move
        later: set[tuple[int, int | None]] = set(moves)
        for depth in range(len(path) - 1, -1, -1):
            node = path[depth]
            if depth + 1 < len(path):
                child = path[depth + 1]
                later.add((child.player, child.action))  # the tree move made at node
            for child in node.children.values():
                if (child.player, child.action) in later:
                    stats = self._amaf.setdefault(child, [0.0, 0])
                    stats[0] += reward(returns, child.player)
                    stats[1] += 1

    def grow(self, node: Node) -> Node:
        """UCT's expansion; with ``amaf_unvisited``, all children at once and a random one of
        them returned for the playout (``node`` itself if the game is over there)."""
        if not self.amaf_unvisited:
            return super().grow(node)
        if not node.children and not node.state.is_terminal():
            for action in node.state.legal_actions():
                node.children[action] = self.make_child(node, action)
        node.untried = []
        if not node.children:
            return node
        fresh = [child for child in node.children.values() if child.visits == 0]
        return self.rng.choice(fresh) if fresh else node

    def score(self, parent: Node, child: Node) -> float:
        """The blend of the child's mean and its AMAF mean, plus UCB1's exploration bonus; a
        child never visited (only with ``amaf_unvisited``) scores its AMAF mean, or ``fpu``."""
        amaf_wins, amaf_count = self.amaf(child)
        if child.visits == 0:
            return amaf_wins / amaf_count if amaf_count else self.fpu
        beta = rave_beta(self.rave, parent.visits)
        amaf_mean = amaf_wins / amaf_count if amaf_count else child.mean
        explore = self.c * math.sqrt(math.log(parent.visits) / child.visits)
        return (1 - beta) * child.mean + beta * amaf_mean + explore
