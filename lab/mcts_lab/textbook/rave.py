"""RAVE as a textbook writes it: the AMAF backup and the blended score (Gelly and Silver 2007).

Both functions work on the package's own search nodes, so that the tests can hold them against
:class:`~mcts_course.agents.rave.RAVEAgent` after the same search; ``amaf`` maps a node to the
(reward sum, count) of the playouts that count as samples of its move.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from mcts_course.agents.mcts import Node

AMAF = dict[Node, tuple[float, int]]


def amaf_backup(
    path: list[Node], moves: Iterable[tuple[int, int]], returns: tuple[float, ...], amaf: AMAF
) -> None:
    """After UCT's backup: walking up from the leaf, each child of a node of the path whose
    move (player, action) was played from that node on gets one AMAF sample."""
    # the playout's moves, then the tree's below each node, as we walk up
    later: set[tuple[int, int | None]] = set(moves)
    for depth in range(len(path) - 1, -1, -1):
        node = path[depth]
        if depth + 1 < len(path):
            below = path[depth + 1]
            later.add((below.player, below.action))
        for child in node.children.values():
            if (child.player, child.action) in later:
                wins, count = amaf.get(child, (0.0, 0))
                amaf[child] = (wins + (1 + returns[child.player]) / 2, count + 1)


def rave_score(
    parent: Node, child: Node, amaf: AMAF, k: float, c: float, fpu: float = 1.0
) -> float:
    """(1 - beta) Q + beta AMAF-Q + c sqrt(ln N / n), with beta = sqrt(K / (3N + K))."""
    wins, count = amaf.get(child, (0.0, 0))
    if child.visits == 0:  # as MoGo: a move not tried yet is ranked by its AMAF mean alone
        return wins / count if count else fpu
    beta = math.sqrt(k / (3 * parent.visits + k)) if k else 0.0
    amaf_mean = wins / count if count else child.mean
    explore = c * math.sqrt(math.log(parent.visits) / child.visits)
    return (1 - beta) * child.mean + beta * amaf_mean + explore
