"""The iteration budgets of "MCTS given the solver's time" (endgame chapter), measured once.

How many iterations MCTS runs in the time the solver takes depends on the machine and on its
load, and so would every share computed from a timed search.  ``python -m
mcts_lab.endgame_offline`` therefore solves the FFO positions #1-19 once, lets MCTS (seed
``SEED``) search each position for the solver's time there, and writes the iterations it
reached, with the solver's seconds, to ``data/endgame_offline.json``.  The chapter then gives
MCTS exactly those iterations (:func:`mcts_at_budgets`), a seeded and deterministic search, so
its decisions are the same at every build; only the budgets come from the file.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mcts_course.agents import MCTSAgent
from mcts_lab.endgames import EqualTime, FFOSolution, ffo_solutions
from mcts_lab.ffo import Share, SolvedPosition, load_ffo

SEED = 0
FILE = "endgame_offline.json"


@dataclass(frozen=True)
class Budgets:
    """Per FFO position (by number): the solver's seconds and MCTS's iterations in them."""

    seed: int
    seconds: dict[int, float]
    iterations: dict[int, int]


def measure(solutions: list[FFOSolution], seed: int = SEED) -> Budgets:
    """MCTS searching each position for the solver's time there: the iterations it reached."""
    iterations = {}
    for s in solutions:
        agent = MCTSAgent(time_limit=s.seconds, seed=seed)
        agent.select_action(s.position.state)
        iterations[s.position.number] = agent.last_iterations
    return Budgets(seed, {s.position.number: s.seconds for s in solutions}, iterations)


def load() -> Budgets:
    text = (resources.files("mcts_lab") / "data" / FILE).read_text()
    raw = json.loads(text)
    return Budgets(
        raw["seed"],
        {int(k): float(v) for k, v in raw["seconds"].items()},
        {int(k): int(v) for k, v in raw["iterations"].items()},
    )


def mcts_at_budgets(
    positions: list[SolvedPosition], budgets: Budgets, seed: int = SEED
) -> EqualTime:
    """MCTS with, in each position, the stored iterations: one seeded decision per position,
    counted as a best move and as a move that keeps the outcome."""
    moves = [
        MCTSAgent(budgets.iterations[p.number], seed=seed).select_action(p.state) for p in positions
    ]
    by_best = tuple(float(a in p.best_moves) for p, a in zip(positions, moves, strict=True))
    by_kept = tuple(float(p.keeps_outcome(a)) for p, a in zip(positions, moves, strict=True))
    every = int(sum(by_best))
    seconds = statistics.fmean(budgets.seconds[p.number] for p in positions)
    share = Share(
        "MCTS, the solver's time",
        every,
        int(sum(by_kept)),
        len(positions),
        every,
        seconds,
        by_best,
        by_kept,
    )
    return EqualTime(share, statistics.fmean(budgets.iterations[p.number] for p in positions))


def main() -> None:
    solutions = ffo_solutions(load_ffo())
    budgets = measure(solutions)
    out = Path(__file__).parent / "data" / FILE
    out.write_text(
        json.dumps(
            {
                "seed": budgets.seed,
                "seconds": {str(k): round(v, 4) for k, v in budgets.seconds.items()},
                "iterations": {str(k): v for k, v in budgets.iterations.items()},
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out}: {sum(budgets.iterations.values())} iterations in all")


if __name__ == "__main__":
    main()
