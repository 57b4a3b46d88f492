"""Root parallelization on the solved tic-tac-toe classes, counted in iterations, not seconds.

Each class (one canonical position per symmetry class where the choice matters) is searched
``seeds`` times by each arm; an arm is ``searches`` independent UCT trees of ``iterations``
each, merged by their root votes (:func:`mcts_lab.textbook.parallel.merged_root_counts`).  The
seeds are shared between arms (the first tree of every arm is the same tree), so the arms are
compared paired on classes, the unit, as in the RAVE experiment of :mod:`mcts_lab.rave_scan`.
"""

from __future__ import annotations

import numpy as np

from mcts_lab.rave_scan import Positions
from mcts_lab.textbook.parallel import merged_root_counts


def joint_choice(counts: dict[int, int]) -> int:
    """The most voted move of the merged counts (ties: the smallest action)."""
    return max(counts, key=lambda a: (counts[a], -a))


def class_mistakes(positions: Positions, searches: int, iterations: int, seeds: int) -> np.ndarray:
    """Each class's mistake rate over its ``seeds`` searches: the share of them whose joint
    choice is not an optimal move.  Search ``j`` of class ``n`` starts its trees at seed
    ``2 * (seeds * n + j)``, the same for every arm."""
    rates = []
    for number, state, optimal in zip(
        positions.numbers, positions.states, positions.optimal, strict=True
    ):
        wrong = 0
        for j in range(seeds):
            counts = merged_root_counts(state, searches, iterations, seed=2 * (seeds * number + j))
            wrong += joint_choice(counts) not in optimal
        rates.append(wrong / seeds)
    return np.array(rates)
