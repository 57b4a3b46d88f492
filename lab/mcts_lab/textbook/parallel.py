"""Root parallelization as a reader would write it: independent searches, their votes summed.

The package's :class:`~mcts_course.agents.parallel.RootParallelAgent` runs the searches in
worker processes and merges them with :func:`~mcts_course.agents.parallel.merge_roots`; this
loop does the same one search after the other, which gives the same counts for the same seeds.
"""

from __future__ import annotations

import math

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


def ucb(wins: float, visits: int, parent_visits: int, c: float = math.sqrt(2)) -> float:
    """UCB1 of a child with ``visits`` (at least one) and total reward ``wins``."""
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def virtual_loss_choices(
    stats: dict[int, tuple[int, float]], parent_visits: int, c: float = math.sqrt(2)
) -> tuple[int, int, int]:
    """Two threads select a child of the same node (``stats``: move -> (visits, total reward)).
    Returns thread 1's move, thread 2's move once thread 1 has put a virtual loss on its child
    (one more visit, no reward yet), and thread 2's move without the virtual loss."""

    def best(table: dict[int, tuple[int, float]], n: int) -> int:
        return max(sorted(table), key=lambda a: ucb(table[a][1], table[a][0], n, c))

    first = best(stats, parent_visits)
    visits, wins = stats[first]
    marked = {**stats, first: (visits + 1, wins)}  # the virtual loss: a visit, reward 0 so far
    return first, best(marked, parent_visits + 1), best(stats, parent_visits)


def parallel_picture(state: GameState, searches: int = 3, iterations: int = 300, seed: int = 0):
    """Left: root parallelization, each move's root visits in ``searches`` independent trees,
    stacked, so that a bar's height is the merged count.  Right: tree parallelization, the UCB1
    score of each child of the root of one tree before and after thread 1's virtual loss."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    names = state.legal_actions()
    labels = [state.action_to_string(a) for a in names]
    bottom = [0] * len(names)
    for k in range(searches):
        root = MCTSAgent(iterations, seed=seed + k).search(state)
        counts = [root.children[a].visits if a in root.children else 0 for a in names]
        left.bar(labels, counts, bottom=bottom, label=f"tree {k + 1} (seed {seed + k})")
        bottom = [b + n for b, n in zip(bottom, counts, strict=True)]
    left.set_title(f"Root parallelization: {searches} trees, visits summed", fontsize=10)
    left.set_ylabel("root visits")
    left.legend(frameon=False, fontsize=8)
    root = MCTSAgent(iterations, seed=seed).search(state)
    stats = {a: (u.visits, u.wins) for a, u in root.children.items()}
    first, second, _ = virtual_loss_choices(stats, root.visits)
    before = [ucb(stats[a][1], stats[a][0], root.visits) for a in names]
    marked = {**stats, first: (stats[first][0] + 1, stats[first][1])}
    after = [ucb(marked[a][1], marked[a][0], root.visits + 1) for a in names]
    x = range(len(names))
    right.bar([i - 0.2 for i in x], before, 0.4, label="thread 1 sees")
    right.bar([i + 0.2 for i in x], after, 0.4, label="thread 2 sees (virtual loss on thread 1's)")
    # the scores of the two chosen moves, written on their bars: the drop is small
    for a in (first, second):
        i = names.index(a)
        for dx, score in ((-0.2, before[i]), (0.2, after[i])):
            right.text(
                i + dx, score, f"{score:.2f}", ha="center", va="bottom", fontsize=7, rotation=90
            )
    right.set_xticks(list(x), labels)
    # the axis starts at 1, the largest mean reward (not just below the smallest bar, which
    # would exaggerate the differences); the top leaves room for the legend
    low, high = min(before + after), max(before + after)
    bottom = 1.0 if low > 1.0 else 0.0  # 0 if some score is below 1
    right.set_ylim(bottom, high + 0.5 * (high - bottom))
    right.set_title(
        f"Tree parallelization: thread 1 takes {state.action_to_string(first)}, "
        f"thread 2 {state.action_to_string(second)}",
        fontsize=10,
    )
    right.set_ylabel("UCB1 score at the root")
    right.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig
