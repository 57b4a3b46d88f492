"""MCTS-Solver (Winands, Björnsson and Saito, 2008): UCT that proves wins, losses and draws.

Plain UCT only ever estimates: a move that wins at once keeps being sampled, and a move that
loses by force is still chosen now and then by the exploration bonus.  MCTS-Solver adds one
fact per node, its *proven* game value when it is known, and propagates it up like minimax:

* a terminal node is proven: its value is the game's result for the player who moved into it;
* a node whose mover has a child proven to WIN for that mover is proven too (the mover will
  play it);
* a node whose children are all expanded and all proven takes the best of them for its mover
  (so a node is a proven loss only when every reply loses).

Values are rewards for the player who moved into the node (``node.player``): 1 win, 0.5 draw,
0 loss, the scale of ``node.wins``.  The original paper proves wins and losses; draws are
proven here by the same rule (the best of all-proven children), which tic-tac-toe needs.

What changes in UCT is four small hooks of the MCTS skeleton, overridden below; expansion and
the random playouts are the parent's:

* selection stops at a proven node (``descends``) and never enters a proven child (its
  ``score`` is -inf: there is nothing left to learn there);
* simulation of a proven node returns its proven result instead of a random playout;
* backpropagation updates the statistics as usual, then the proofs from the leaf upwards.

The final move is a proven win if there is one, never a proven loss when something else exists,
otherwise the most visited move, as in UCT, except that an unproven move whose mean does not beat
½ gives way to a proven draw (proven children get no more visits, so a proven draw could
otherwise lose the count to a move that in fact loses).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from mcts_course.agents.mcts import MCTSAgent, Move, Node, Outcome, argmax
from mcts_course.agents.rollout import Estimate, returns_for, reward, seen_by
from mcts_course.games.base import GameState

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class MCTSSolverAgent(MCTSAgent):
    """UCT with proven values (MCTS-Solver); takes the same arguments as :class:`MCTSAgent`.

    ``proven(node)`` is the proven value of a node of the last search (None when unknown), and
    ``last_root`` the root, as for UCT.  Once the root is proven, the iterations left cost no
    playouts (selection stops at the root, whose proven result is backed up).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.name = self.name.replace("MCTS(", "MCTS-Solver(", 1)
        # node -> proven value for node.player.  Kept beside the tree, not in Node (whose slots
        # are the plain UCT's), and cleared whenever a search starts from a fresh root.
        self._proven: dict[Node, float] = {}

    # -- what the solver knows --------------------------------------------------------------
    def proven(self, node: Node) -> float | None:
        """The proven value of ``node`` for ``node.player`` (1, 0.5, 0), or None if unknown."""
        if node not in self._proven and node.state.is_terminal():
            self._proven[node] = reward(node.state.returns(), node.player)
        return self._proven.get(node)

    def root_value(self, root: Node | None = None) -> float | None:
        """The proven value of the position searched, for the player TO MOVE there (or None)."""
        root = root or self.last_root
        if root is None:
            raise ValueError("no search has been run yet")
        value = self.proven(root)
        if value is None:
            return None
        return seen_by(value, root.player, root.state.current_player)

    def forget_tree(self) -> None:
        self._proven.clear()

    # -- the hooks that change ----------------------------------------------------------------
    def descends(self, node: Node) -> bool:
        """UCT's rule, but selection stops at a proven node."""
        return super().descends(node) and self.proven(node) is None

    def score(self, parent: Node, child: Node) -> float:
        """UCB1, and -inf for a proven child: settled, no more samples needed.  (A node whose
        children are all expanded and proven is proven itself, so some child is always open.)"""
        return -math.inf if self.proven(child) is not None else super().score(parent, child)

    def simulate(self, node: Node, rng: random.Random | None = None) -> Outcome:
        """A proven node's result without a playout; otherwise the parent's random playout."""
        value = self.proven(node)
        if value is None:
            return super().simulate(node, rng)
        result = round(2 * value - 1)  # the reward 1, 0.5, 0 as the return +1, 0, -1
        return Outcome(returns_for(node.player, result))

    def backpropagate(
        self, path: list[Node], returns: Estimate, moves: Sequence[Move] = ()
    ) -> None:
        """The statistics as in UCT, then the proofs, from the leaf up to the root."""
        super().backpropagate(path, returns, moves)
        for node in reversed(path):
            if self.proven(node) is None and not self._update_proof(node):
                break  # an unproven node: nothing above it can become proven by this iteration

    def _update_proof(self, node: Node) -> bool:
        """Prove ``node`` from its children if they allow it; True if it is proven now."""
        mover = node.state.current_player  # the player choosing among the children
        best: float | None = None
        complete = not node.untried and node.untried is not None
        for child in node.children.values():
            value = self.proven(child)
            if value is None:
                complete = False
                continue
            for_mover = seen_by(value, child.player, mover)
            if for_mover == WIN:
                best, complete = WIN, True  # the mover wins by playing this child
                break
            best = for_mover if best is None else max(best, for_mover)
        if not complete or best is None:
            return False
        self._proven[node] = seen_by(best, mover, node.player)
        return True

    # -- the final choice ---------------------------------------------------------------------
    def select_action(self, state: GameState) -> int:
        if len(self._legal(state)) == 1:
            return super().select_action(state)  # a forced move: UCT's bookkeeping, no search
        return self.best_action(self.search(state))

    def best_action(self, root: Node) -> int:
        """A proven win if any (the smallest action); else the most visited move that is not a
        proven loss (ties: the smallest action), unless it is unproven, a proven draw exists and
        the move's mean does not beat the draw's ½ (then the draw, the smallest if several);
        proven losses only when nothing else is left."""
        mover = root.state.current_player
        values = {action: self.proven(child) for action, child in root.children.items()}
        known = {
            a: seen_by(v, root.children[a].player, mover)
            for a, v in values.items()
            if v is not None
        }
        wins = [action for action, value in known.items() if value == WIN]
        if wins:
            return min(wins)
        safe = {a: ch for a, ch in root.children.items() if known.get(a) != LOSS} or root.children
        choice = argmax(safe, lambda child: child.visits)
        draws = [action for action, value in known.items() if value == DRAW]
        if draws and choice not in known:
            # A proven draw gets no visits once proven, so the most visited move may be an
            # unproven one that in fact loses: it is played only if its mean beats the draw.
            robust = root.children[choice]
            if seen_by(robust.wins / robust.visits, robust.player, mover) <= DRAW:
                return min(draws)
        return choice
