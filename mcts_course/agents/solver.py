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

What changes in UCT is exactly three phases, overridden below; expansion and the random
playouts are the parent's:

* selection never enters a proven child (there is nothing left to learn there), and stops at
  a proven node;
* simulation of a proven node returns its proven result instead of a random playout;
* backpropagation updates the statistics as usual, then the proofs from the leaf upwards.

The final move is a proven win if there is one, never a proven loss when something else exists,
otherwise the most visited move, as in UCT.
"""

from __future__ import annotations

import math

from mcts_course.agents.bandits import ucb1
from mcts_course.agents.mcts import MCTSAgent, Node
from mcts_course.agents.rollout import reward
from mcts_course.games.base import GameState, Returns

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class MCTSSolverAgent(MCTSAgent):
    """UCT with proven values (MCTS-Solver); takes the same arguments as :class:`MCTSAgent`.

    ``proven(node)`` is the proven value of a node of the last search (None when unknown), and
    ``last_root`` the root, as for UCT.  Once the root is proven, the iterations left cost no
    playouts (selection stops at the root, whose proven result is backed up).
    """

    def __init__(self, *args, **kwargs) -> None:
        if kwargs.get("policy", "ucb1") != "ucb1":  # select() below is UCT's, proofs aside
            raise ValueError("MCTS-Solver selects by UCB1 only; policy= is for MCTSAgent")
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
        return value if root.player == root.state.current_player else 1.0 - value

    def reset(self) -> None:
        super().reset()
        self._proven.clear()

    # -- the phases that change -----------------------------------------------------------------
    def search(self, state: GameState) -> Node:
        if not self.tree_reuse:
            self._proven.clear()  # the old tree is dropped: so are its proofs
        return super().search(state)

    def select(self, node: Node) -> list[Node]:
        """UCT selection (ties: the smallest action) among the children that are not proven;
        stop at a proven node."""
        path = [node]
        c = self.c
        while node.children and not node.untried and self.proven(node) is None:
            parent_visits, best, best_value = node.visits, None, -math.inf
            for action in sorted(node.children):
                child = node.children[action]
                if self.proven(child) is not None:
                    continue  # settled: no more samples needed
                value = ucb1(child.wins, child.visits, parent_visits, c)
                if value > best_value:
                    best, best_value = child, value
            if best is None:  # cannot happen: a fully expanded node with all children proven
                break  # is proven itself (see _update_proof)
            node = best
            path.append(node)
        return path

    def simulate(self, node: Node) -> Returns:
        """A proven node's result without a playout; otherwise the parent's random playout."""
        value = self.proven(node)
        if value is None:
            return super().simulate(node)
        score = round(2 * value - 1)  # reward -> return for node.player: 1, 0, -1
        return (score, -score) if node.player == 0 else (-score, score)

    def backpropagate(self, path: list[Node], returns: Returns) -> None:  # type: ignore[override]
        """The statistics as in UCT, then the proofs, from the leaf up to the root."""
        MCTSAgent.backpropagate(path, returns)
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
            for_mover = value if child.player == mover else 1.0 - value
            if for_mover == WIN:
                best, complete = WIN, True  # the mover wins by playing this child
                break
            best = for_mover if best is None else max(best, for_mover)
        if not complete or best is None:
            return False
        self._proven[node] = best if node.player == mover else 1.0 - best
        return True

    # -- the final choice ---------------------------------------------------------------------
    def select_action(self, state: GameState) -> int:
        if len(self._legal(state)) == 1:
            return super().select_action(state)  # a forced move: UCT's bookkeeping, no search
        return self.best_action(self.search(state))

    def best_action(self, root: Node) -> int:
        """A proven win if any; else the most visited move that is not a proven loss (ties: the
        smallest action); proven losses only when nothing else is left."""
        mover = root.state.current_player

        def for_mover(child: Node) -> float | None:
            value = self.proven(child)
            if value is None:
                return None
            return value if child.player == mover else 1.0 - value

        children = sorted(root.children.values(), key=lambda ch: ch.action)
        wins = [ch for ch in children if for_mover(ch) == WIN]
        if wins:
            return wins[0].action  # type: ignore[return-value]
        safe = [ch for ch in children if for_mover(ch) != LOSS] or children
        return max(safe, key=lambda ch: (ch.visits, -ch.action)).action  # type: ignore[return-value]
