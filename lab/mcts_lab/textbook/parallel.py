"""Root parallelization as a reader would write it: independent searches, their votes summed.

The package's :class:`~mcts_course.agents.parallel.RootParallelAgent` runs the searches in
worker processes and merges them with :func:`~mcts_course.agents.parallel.merge_roots`; this
loop does the same one search after the other, which gives the same counts for the same seeds.
"""

from __future__ import annotations

from mcts_course.agents.mcts import MCTSAgent
from mcts_course.games.base import GameState


def merged_root_counts(
    state: GameState, searches: int, iterations: int, seed: int = 0
) -> dict[int, int]:
    """ROOT-PARALLEL: ``searches`` independent UCT trees (seeds ``seed``, ``seed + 1``, ...),
    each move's root visits summed over them; the most visited move is the joint choice."""
    counts: dict[int, int] = {}
    for k in range(searches):  # in parallel in the engine: nothing is shared between trees
        root = MCTSAgent(iterations, seed=seed + k).search(state)
        for action, child in root.children.items():
            counts[action] = counts.get(action, 0) + child.visits
    return counts
