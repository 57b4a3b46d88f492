"""The agents of the earlier course material, rebuilt from what their published code does.

The book's appendix (section "For instructors: the earlier course", the only page that names
that material) lists where the book departs from it and prints no result that rests on it:
the material is not public.  Its code differs from the package's agents in a few ways that can
change a score; the variants here reproduce those differences on top of the package's own
methods, so that an instructor can rerun a match "under their rules"
(:func:`mcts_lab.flat.earlier_matches`, :func:`mcts_lab.mcts_matches.earlier_matches` and
:func:`~mcts_lab.mcts_matches.earlier_reruns`).  Size such a match first: the book's earlier
replays, of 30 to 60 games a match, were too small to attribute a gap to any one difference.

* :class:`EarlierMCTS` (the MCTS web page): every node on the path adds the playout's result
  **for the player at the root** (no change of perspective between levels, so inside the tree
  the opponent is assumed to help), and the exploration term uses the logarithm of the
  **global iteration count** instead of the parent's visits.  A leaf is expanded once it has
  been visited **more than** ``threshold`` times, and a playout plays ``depth + 1`` plies.
  ``flip=True`` keeps only the second difference (the package's change of perspective with
  their global count), so that a rerun can change one thing at a time.
* :func:`earlier_flat` (the flat Monte Carlo page): ``count`` playouts per decision in total,
  round robin over the moves, the best mean wins, playouts of ``depth + 1`` plies.
* :func:`lecture_minimax` (the lecture notes): its "depth 2" minimax applies the move, then
  recurses while ``depth < 2``, which evaluates positions **3 plies** ahead.
* :func:`disc_count_minimax`: the web pages' players default to an evaluation named
  ``mass_count`` (counting squares), not a table of cell weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mcts_course.agents import AlphaBetaAgent, MCTSAgent, MinimaxAgent, MonteCarloAgent
from mcts_course.agents.bandits import SQRT2
from mcts_course.agents.evaluation import disc_count
from mcts_course.agents.mcts import Move, Node


class EarlierMCTS(MCTSAgent):
    """MCTS as the earlier web page's code runs it (see the module docstring)."""

    def __init__(
        self,
        iterations: int = 200,
        *,
        threshold: int = 20,
        depth: int = 20,
        time_limit: float | None = None,
        c: float = SQRT2,
        flip: bool = False,
        seed: int | None = None,
    ):
        # "visits > threshold" is the package's "visits >= threshold + 1"; their playout loop
        # runs while depth <= max_depth, one ply more than max_depth.
        super().__init__(
            iterations,
            time_limit=time_limit,
            c=c,
            expand_threshold=threshold + 1,
            playout_depth=depth + 1,
            seed=seed,
        )
        self.flip = flip  # True: backpropagate as the package does (only the count differs)
        self.name = f"EarlierMCTS({iterations}{', flip' if flip else ''})"
        self._root: Node | None = None
        self._count = 0

    def select(self, node: Node) -> list[Node]:
        """Selection with ln(iterations so far) in every node's exploration term."""
        if node is not self._root:  # a new search starts: the global count starts again
            self._root, self._count = node, 0
        log_n = math.log(self._count) if self._count > 1 else 0.0
        self._count += 1
        path = [node]
        c = self.c
        while node.children and not node.untried:
            best_value = -math.inf
            for child in node.children.values():
                value = child.wins / child.visits + c * math.sqrt(log_n / child.visits)
                if value > best_value:
                    node, best_value = child, value
            path.append(node)
        return path

    def backpropagate(
        self, path: list[Node], returns: tuple[int, int], moves: Sequence[Move] = ()
    ) -> None:
        """Every node on the path adds the reward of the player to move at the root (or, with
        ``flip``, the reward of each node's own player, as the package does)."""
        if self.flip:
            super().backpropagate(path, returns, moves)
            return
        me = path[0].state.current_player
        reward = (returns[me] + 1) / 2
        for node in path:
            node.visits += 1
            node.wins += reward


def earlier_flat(count: int, *, depth: int = 20, seed: int | None = None) -> MonteCarloAgent:
    """Flat Monte Carlo as the earlier page's code runs it: ``count`` playouts in total."""
    agent = MonteCarloAgent(playouts=count, playout_depth=depth + 1, seed=seed)
    agent.name = f"EarlierMC({count})"
    return agent


def lecture_minimax(seed: int | None = None) -> AlphaBetaAgent:
    """The lecture notes' "depth 2" minimax with cell scores: it looks 3 plies ahead.  Alpha-beta
    finds the same minimax value five times faster (only the tie-breaks can differ)."""
    agent = AlphaBetaAgent(depth=3, seed=seed)
    agent.name = "Minimax(3 plies)"
    return agent


def disc_count_minimax(depth: int = 2, seed: int | None = None) -> MinimaxAgent:
    """Minimax whose evaluation counts discs (mine minus the opponent's), not cell weights."""
    agent = MinimaxAgent(depth=depth, evaluate=disc_count, seed=seed)
    agent.name = f"Minimax({depth}, disc count)"
    return agent
