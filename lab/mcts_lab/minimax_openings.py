"""Minimax at depth 2 against the cell-score agent over paired openings: computed once, shipped.

Both agents are deterministic, so a match from the start position would be two games repeated.
The unit is therefore a random opening (2 to 6 uniformly random plies from the start), played
twice with the colours swapped.  ``python -m mcts_lab.minimax_openings`` plays the 200
openings (chosen before the run, not scanned) and writes ``data/minimax_openings.json`` with
the seed and every opening's score; the chapter loads it and replays a sample of the openings
(:func:`recheck`) to show that the file is what these agents and this seed give.
"""

from __future__ import annotations

import json
from importlib import resources

from mcts_course.agents import CellScoreAgent, MinimaxAgent
from mcts_course.games import Othello
from mcts_lab.basics import OpeningPairs, opening_pairs, random_positions

OPENINGS = 200
PLIES = (2, 6)
SEED = 1
FILE = "minimax_openings.json"


def play(openings: int = OPENINGS) -> OpeningPairs:
    """The first ``openings`` openings of the stored sequence (``random_positions`` draws them
    in order, so a prefix is the same openings)."""
    return opening_pairs(MinimaxAgent(depth=2), CellScoreAgent(), Othello, openings, PLIES, SEED)


def load() -> OpeningPairs:
    """The shipped result."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return OpeningPairs(tuple(data["names"]), [float(s) for s in data["scores"]])


def recheck(stored: OpeningPairs, openings: int = 10) -> bool:
    """Replay the first ``openings`` openings: the same scores as the file?"""
    return play(openings).scores == stored.scores[:openings]


def distinct_openings(openings: int = OPENINGS) -> int:
    """How many different positions the openings are (``random_positions`` draws distinct
    ones, so this equals ``openings``)."""
    return len(set(random_positions(Othello, openings, PLIES, SEED)))


def main() -> None:  # pragma: no cover - 400 games of depth-2 minimax
    result = play()
    text = json.dumps(
        {
            "openings": OPENINGS,
            "plies": list(PLIES),
            "seed": SEED,
            "names": list(result.names),
            "scores": result.scores,
        },
        indent=0,
    )
    (resources.files("mcts_lab") / "data" / FILE).write_text(text + "\n")  # type: ignore[union-attr]
    print(result.score, result.interval(), flush=True)


if __name__ == "__main__":
    main()
