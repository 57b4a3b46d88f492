"""Flat Monte Carlo (200 playouts) against minimax at depth 2 from varied openings: computed once.

The Monte Carlo chapter's matches start from the standard opening against a deterministic
opponent, so their games sample a narrow set of positions.  This check plays the same two agents
from random openings (2 to 6 uniformly random plies, the openings of
:mod:`mcts_lab.minimax_openings`), each opening twice with the colours swapped; the opening is
the unit.  The budget (200 playouts per decision), the number of openings and the seed were
fixed before the run.  ``python -m mcts_lab.flat_openings_offline`` plays them and writes
``data/flat_openings.json``; the chapter loads it and replays the first opening (:func:`recheck`).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from mcts_course.agents import MinimaxAgent, MonteCarloAgent
from mcts_course.games import Othello
from mcts_lab.basics import OpeningPairs, opening_pairs

BUDGET = 200  # playouts per decision, in total
OPENINGS = 100
PLIES = (2, 6)
SEED = 1  # the openings (random_positions) and flat Monte Carlo's playouts
FILE = "flat_openings.json"


def play(openings: int = OPENINGS) -> OpeningPairs:
    """The first ``openings`` openings, flat Monte Carlo as agent A.  The agents are made afresh
    and the openings are played in order, so a prefix replays the same games."""
    agent = MonteCarloAgent(playouts=BUDGET, seed=SEED)
    return opening_pairs(agent, MinimaxAgent(depth=2), Othello, openings, PLIES, SEED)


def load() -> OpeningPairs:
    """The shipped result."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return OpeningPairs(tuple(data["names"]), [float(s) for s in data["scores"]])


def recheck(stored: OpeningPairs, openings: int = 1) -> bool:
    """Replay the first ``openings`` openings: the same scores as the file?"""
    return play(openings).scores == stored.scores[:openings]


def main() -> None:  # pragma: no cover - 200 games at 200 playouts a decision
    result = play()
    text = json.dumps(
        {
            "budget": BUDGET,
            "openings": OPENINGS,
            "plies": list(PLIES),
            "seed": SEED,
            "names": list(result.names),
            "scores": result.scores,
        },
        indent=0,
    )
    path = Path(str(resources.files("mcts_lab") / "data" / FILE))
    path.write_text(text + "\n")
    print(f"{path}: score {result.score:.3f} over {result.openings} openings")


if __name__ == "__main__":  # pragma: no cover
    main()
