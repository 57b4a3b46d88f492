"""UCT on a tree against UCT on a graph (transpositions), on solved Connect Four positions.

Chapter 13 asks whether sharing the statistics of transpositions makes MCTS stronger in a game
with many transpositions, at a budget where the tree still errs.  The design was fixed before
the first run (only the speed was measured first, on three positions: about 0.06 s of processor
time per search of 3,000 iterations, tree or graph):

* **positions**: every position of the shipped sample of Pascal Pons' Middle-Easy and
  Middle-Medium test sets (:mod:`mcts_lab.pons_offline`, ``data/pons_offline.json``, not solved
  again) that the solver settled within its cap and where a mistake is possible (some legal
  move changes the win/draw/loss class); in the others no move is a mistake and both agents
  score 0 by construction;
* **agents**: :data:`SPECS`, UCT (``mcts:``) and the graph search
  (``mcts:transpositions=1``), both with c = 0.7: the c the chapter already uses for UCT and
  for the graph (what the tic-tac-toe tuning chose, and what the chapter's Connect Four RAVE
  matches give UCT), so that the table is the only difference;
* **budget**: :data:`ITERATIONS` iterations per search, one budget, nothing scanned;
* **seeds**: :data:`SEEDS` searches per position and agent, seeds :func:`seed_of` (the set, the
  line, the repetition), the same for both agents;
* **unit**: the position, whose number is its mistake rate over its searches; the comparison
  (graph minus tree) is paired over the positions, with a 95% bootstrap interval
  (:func:`mcts_course.stats.paired_interval`) and a sign-flip p-value; the rates sit near 0, so
  per the book's rule no "equally good" claim is made: the difference is reported with its
  interval, and the ratio of the two rates with a bootstrap interval;
* **nodes**: each search's node count (the graph's positions; the tree's nodes), reported as
  the graph's share of the tree's.

``python -m mcts_lab.tp_connect4`` runs it (a few processor-minutes) and writes
``data/tp_connect4.json``; the chapter loads it (:func:`load`) and replays a few searches
(:func:`recheck`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mcts_course.stats import paired_interval, sign_flip_p_value
from mcts_lab import pons_offline

ITERATIONS = 3000
SEEDS = 8
C = 0.7
SPECS = {
    "tree": f"mcts:iterations={ITERATIONS},c={C}",
    "graph": f"mcts:iterations={ITERATIONS},transpositions=1,c={C}",
}
FILE = "tp_connect4.json"


def seed_of(set_index: int, line: int, repetition: int) -> int:
    """The seed of one search: the same for tree and graph (lines are below 1,000)."""
    return 100_000 * set_index + 10 * line + repetition


def positions(data: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The solved positions of the sample where some legal move is a mistake, in the file's
    order, each with its set's index."""
    data = pons_offline.load() if data is None else data
    out = []
    for index, name in enumerate(pons_offline.SETS):
        for row in data["sets"][name]:
            keeps = row["keeps"]
            if keeps is not None and any(k is False for k in keeps):
                out.append({"set": name, "set_index": index, **row})
    return out


def search(spec: str, moves: str, seed: int, iterations: int | None = None) -> tuple[int, int]:
    """One search: the move played and the nodes the search grew (``iterations`` overrides the
    spec's budget, for tests)."""
    from mcts_course.agents import make_agent
    from mcts_lab.enhancements import count_nodes

    if iterations is not None:
        spec = spec.replace(f"iterations={ITERATIONS}", f"iterations={iterations}")
    agent = make_agent(spec, seed=seed)
    action = int(agent.select_action(pons_offline.state_of(moves)))
    nodes = agent.nodes if hasattr(agent, "nodes") else count_nodes(agent.last_root)
    return action, int(nodes)


def run(
    rows: list[dict[str, Any]], seeds: int = SEEDS, iterations: int | None = None
) -> list[dict[str, Any]]:
    """Every search of the design on ``rows``: per position and agent, the moves, whether each
    is a mistake, and the nodes."""
    out = []
    for row in rows:
        record: dict[str, Any] = {"set": row["set"], "line": row["line"], "moves": row["moves"]}
        for agent, spec in SPECS.items():
            played = [
                search(spec, row["moves"], seed_of(row["set_index"], row["line"], j), iterations)
                for j in range(seeds)
            ]
            record[agent] = {
                "moves": [a for a, _ in played],
                "mistakes": [int(pons_offline.is_mistake(row["keeps"], a)) for a, _ in played],
                "nodes": [n for _, n in played],
            }
        out.append(record)
        print(
            row["set"],
            row["line"],
            record["tree"]["mistakes"],
            record["graph"]["mistakes"],
            flush=True,
            file=sys.stderr,
        )
    return out


def main() -> None:  # pragma: no cover - a few processor-minutes
    data = {"iterations": ITERATIONS, "seeds": SEEDS, "specs": SPECS, "positions": run(positions())}
    out = Path(__file__).parent / "data" / FILE
    out.write_text(json.dumps(data, indent=0) + "\n")


def load() -> dict[str, Any]:
    """The shipped searches (``data/tp_connect4.json``)."""
    return dict(json.loads((resources.files("mcts_lab") / "data" / FILE).read_text()))


@dataclass
class Result:
    """Per position, the mistake rate of tree and graph over the seeds, and the comparison."""

    sets: list[str]
    tree: np.ndarray
    graph: np.ndarray
    tree_nodes: float  # mean nodes per search
    graph_nodes: float

    @property
    def difference(self) -> float:
        """Graph minus tree, mean over the positions."""
        return float((self.graph - self.tree).mean())

    def interval(self) -> tuple[float, float]:
        """95% paired bootstrap interval of the difference over the positions."""
        return paired_interval(self.graph, self.tree)

    def p_value(self) -> float:
        """Sign-flip p-value of "no difference", the position being the unit."""
        return sign_flip_p_value(self.graph - self.tree)

    def ratio_interval(self, resamples: int = 10_000, seed: int = 0) -> tuple[float, float]:
        """95% bootstrap interval over the positions of the ratio graph rate / tree rate (both
        resampled together)."""
        picks = np.random.default_rng(seed).integers(0, len(self.tree), (resamples, len(self.tree)))
        ratios = self.graph[picks].mean(axis=1) / np.maximum(self.tree[picks].mean(axis=1), 1e-12)
        low, high = np.quantile(ratios, [0.025, 0.975])
        return float(low), float(high)

    def count(self, name: str) -> int:
        return sum(s == name for s in self.sets)


def result(data: dict[str, Any] | None = None) -> Result:
    data = load() if data is None else data
    rows = data["positions"]
    return Result(
        [r["set"] for r in rows],
        np.array([np.mean(r["tree"]["mistakes"]) for r in rows]),
        np.array([np.mean(r["graph"]["mistakes"]) for r in rows]),
        float(np.mean([n for r in rows for n in r["tree"]["nodes"]])),
        float(np.mean([n for r in rows for n in r["graph"]["nodes"]])),
    )


def recheck(data: dict[str, Any] | None = None, count: int = 2) -> bool:
    """Replay the first search (first seed) of both agents on the first ``count`` positions: the
    same moves and nodes as the file?"""
    data = load() if data is None else data
    by_key = {(p["set"], p["line"]): p for p in positions()}
    for stored in data["positions"][:count]:
        row = by_key[(stored["set"], stored["line"])]
        seed = seed_of(row["set_index"], row["line"], 0)
        for agent, spec in SPECS.items():
            action, nodes = search(spec, row["moves"], seed)
            if (action, nodes) != (stored[agent]["moves"][0], stored[agent]["nodes"][0]):
                return False
    return True


if __name__ == "__main__":
    main()
