"""What a correct solution produces: the exercise pages' reference results and their pictures.

The exercise pages show the student's results and the reference's with the same functions, so
the two can be compared point by point.  The reference is the package's own ``MCTSAgent`` (the
grader refuses notebooks that import the reference solutions, so the pages do not either); it
follows the same contract as the exercises' MCTS, with its random numbers drawn in another order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcts_course.agents import MCTSAgent
from mcts_course.agents.exact import best_actions
from mcts_course.games import GameState
from mcts_course.stats import wilson_interval


@dataclass(frozen=True)
class Point:
    """One (c, threshold, iterations) point of exercise 3's experiment, over its seeds."""

    c: float
    expand_threshold: int
    iterations: int
    seeds: int
    mean_value: float  # mean over the seeds of the chosen move's mean reward
    best_share: float  # share of the seeds whose chosen move keeps the exact game value

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.best_share, self.seeds)


def corrected_intervals(
    results: dict[str, Any], alpha: float = 0.05
) -> tuple[float, dict[str, tuple[float, float]]]:
    """Wilson intervals on several match scores (``.score``, ``.games``) read together against
    one half: each at level 1 - alpha/k (Bonferroni), so that the k hold together with
    1 - alpha; ``(level, name -> interval)``."""
    level = 1 - alpha / len(results)
    return level, {name: wilson_interval(r.score, r.games, level) for name, r in results.items()}


def summarise(rows: Sequence[dict], position: GameState) -> list[Point]:
    """Exercise 3's rows (the contract of ``experiment``) as one point per parameter set,
    judged against the exact values of ``position``'s moves."""
    best = set(best_actions(position))
    groups: dict[tuple[float, int, int], list[dict]] = {}
    for row in rows:
        key = (row["c"], row["expand_threshold"], row["iterations"])
        groups.setdefault(key, []).append(row)
    points = []
    for (c, threshold, iterations), group in sorted(groups.items()):
        points.append(
            Point(
                c,
                threshold,
                iterations,
                len(group),
                sum(r["value"] for r in group) / len(group),
                sum(r["action"] in best for r in group) / len(group),
            )
        )
    return points


def reference_rows(
    position: GameState,
    iterations: Sequence[int],
    cs: Sequence[float],
    thresholds: Sequence[int],
    seeds: Sequence[int],
) -> list[dict]:
    """The rows exercise 3's ``experiment`` returns, computed with the package's MCTS."""
    rows = []
    for n in iterations:
        for c in cs:
            for threshold in thresholds:
                for seed in seeds:
                    agent = MCTSAgent(n, c=c, expand_threshold=threshold, seed=seed)
                    action = agent.select_action(position)
                    child = agent.last_root.children[action]
                    rows.append(
                        {
                            "iterations": n,
                            "c": c,
                            "expand_threshold": threshold,
                            "seed": seed,
                            "action": action,
                            "value": child.mean,
                            "visits": child.visits,
                            "nodes": tree_size(agent.last_root),
                        }
                    )
    return rows


def tree_size(root) -> int:
    """The number of nodes of a search tree."""
    stack, count = [root], 0
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children.values())
    return count


def experiment_figure(
    points: Sequence[Point],
    title: str,
    exact_value: float | None = None,
    chance: float | None = None,
):
    """Exercise 3's picture: the chosen move's value, and the share of seeds that chose a move
    keeping the exact value (95% Wilson bars), against the iterations, one line per setting.
    ``exact_value`` draws the exact value on the left, ``chance`` a random move's share on the
    right, as dashed lines."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    settings = sorted({(p.c, p.expand_threshold) for p in points})
    for c, threshold in settings:
        mine = [p for p in points if (p.c, p.expand_threshold) == (c, threshold)]
        xs = [p.iterations for p in mine]
        label = f"c = {c:g}" + (f", threshold {threshold}" if len(settings) > 1 else "")
        left.plot(xs, [p.mean_value for p in mine], marker="o", label=label)
        low = [p.best_share - p.interval[0] for p in mine]
        high = [p.interval[1] - p.best_share for p in mine]
        right.errorbar(
            xs, [p.best_share for p in mine], yerr=[low, high], marker="o", capsize=3, label=label
        )
    if exact_value is not None:
        left.axhline(exact_value, color="grey", linestyle="--", label="exact value")
    if chance is not None:
        right.axhline(chance, color="grey", linestyle="--", label="a random move")
        right.legend(fontsize="small")
    left.set(xscale="log", xlabel="iterations", ylabel="value of the chosen move")
    right.set(
        xscale="log", xlabel="iterations", ylabel="share of seeds on a best move", ylim=(0, 1.05)
    )
    left.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# -- exercise 6: the nodes minimax and alpha-beta visit --------------------------------------------
@dataclass(frozen=True)
class NodeCount:
    """Minimax and alpha-beta from one position at one depth: their values and node counts
    (alpha-beta's are None while it is not implemented)."""

    depth: int
    minimax_value: float
    minimax_nodes: int
    alphabeta_value: float | None
    alphabeta_nodes: int | None


def node_counts(
    position: GameState, depths: Sequence[int], evaluate, minimax, alphabeta
) -> list[NodeCount]:
    """Exercise 6's comparison: ``minimax`` and ``alphabeta`` (the exercise's signatures,
    counting one node per call in ``stats["nodes"]``) from ``position`` at each depth."""
    player = position.current_player
    out = []
    for depth in depths:
        mm, ab = {"nodes": 0}, {"nodes": 0}
        value = minimax(position, depth, player, evaluate, mm)
        try:
            pruned = alphabeta(position, depth, player, evaluate, stats=ab)
        except NotImplementedError:
            out.append(NodeCount(depth, value, mm["nodes"], None, None))
            continue
        out.append(NodeCount(depth, value, mm["nodes"], pruned, ab["nodes"]))
    return out


def node_table(counts: Sequence[NodeCount]):
    """The node counts as a table (alpha-beta's columns say so while it is missing)."""
    from mcts_lab.present import Table

    def shown(value, spec):
        return "not implemented" if value is None else format(value, spec)

    rows = [
        [
            c.depth,
            format(c.minimax_value, "g"),
            format(c.minimax_nodes, ","),
            shown(c.alphabeta_value, "g"),
            shown(c.alphabeta_nodes, ","),
        ]
        for c in counts
    ]
    return Table(
        ["depth", "minimax value", "minimax nodes", "alpha-beta value", "alpha-beta nodes"],
        rows,
        right=["depth", "minimax nodes", "alpha-beta nodes"],
    )


def library_minimax(
    state: GameState, depth: int, player: int, evaluate, stats: dict | None = None
) -> float:
    """The package's minimax with exercise 6's signature (nodes counted the same way)."""
    from mcts_course.agents import SearchStats, minimax_value

    counter = SearchStats()
    value = minimax_value(state, depth, evaluate, player, stats=counter)
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + counter.nodes
    return value


def library_alphabeta(
    state: GameState,
    depth: int,
    player: int,
    evaluate,
    alpha: float = -float("inf"),
    beta: float = float("inf"),
    stats: dict | None = None,
) -> float:
    """The package's alpha-beta with exercise 6's signature: moves in ``legal_actions()``
    order, as the exercise's, and nodes counted the same way."""
    from mcts_course.agents import SearchStats, alphabeta_value

    counter = SearchStats()
    value = alphabeta_value(state, depth, evaluate, player, alpha, beta, stats=counter, order=False)
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + counter.nodes
    return value
