"""Does depth buy strength?  Alpha-beta at depths 1 to 4 in a round robin over paired openings.

Every pair of depths meets on the same openings as chapter 4's minimax-against-cell-score
match (200 openings of 2 to 6 random plies, seed 1, distinct up to the board's symmetries,
chosen before the run), each opening played
twice with the colours swapped; the opening is the unit.  All agents use the cell-score
evaluation and break ties the same way, so they differ only in how far they look.
``python -m mcts_lab.depth_openings`` plays the six pairs once and writes
``data/depth_openings.json`` with the seed and every opening's score; the chapter loads it and
replays a sample of the openings (:func:`recheck`) to show that the file is what these agents
and this seed give.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from itertools import combinations

import numpy as np

from mcts_course.agents import AlphaBetaAgent
from mcts_course.games import Othello
from mcts_lab.basics import OpeningPairs, opening_pairs
from mcts_lab.minimax_openings import KEY, OPENINGS, PLIES, SEED

DEPTHS = (1, 2, 3, 4)
FILE = "depth_openings.json"


def pairs(depths: tuple[int, ...] = DEPTHS) -> list[tuple[int, int]]:
    """Every pair of depths, the shallower first: (1, 2), (1, 3), ..., (3, 4)."""
    return list(combinations(depths, 2))


def play(shallow: int, deep: int, openings: int = OPENINGS) -> OpeningPairs:
    """The deeper search against the shallower one on the first ``openings`` openings; the
    scores are the deeper search's."""
    return opening_pairs(
        AlphaBetaAgent(depth=deep),
        AlphaBetaAgent(depth=shallow),
        Othello,
        openings,
        PLIES,
        SEED,
        KEY,
    )


@dataclass
class RoundRobin:
    """The deeper search's score per opening, for every pair of depths."""

    scores: dict[tuple[int, int], list[float]]

    @property
    def openings(self) -> int:
        return len(next(iter(self.scores.values())))

    def score(self, shallow: int, deep: int) -> float:
        return float(np.mean(self.scores[(shallow, deep)]))

    def interval(self, shallow: int, deep: int, confidence: float) -> tuple[float, float]:
        """Bootstrap interval of the deeper search's score, resampling openings."""
        from mcts_course.stats import bootstrap_interval

        return bootstrap_interval(self.scores[(shallow, deep)], confidence=confidence)

    def p_value(self, shallow: int, deep: int) -> float:
        """Two-sided sign-flip p-value of "the deeper search scores 50%", over openings."""
        from mcts_course.stats import sign_flip_p_value

        return sign_flip_p_value([s - 0.5 for s in self.scores[(shallow, deep)]])


def load() -> RoundRobin:
    """The shipped result."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return RoundRobin(
        {(int(a), int(b)): [float(s) for s in scores] for a, b, scores in data["pairs"]}
    )


def recheck(stored: RoundRobin, openings: int = 3) -> bool:
    """Replay the first ``openings`` openings of every pair: the same scores as the file?"""
    return all(
        play(a, b, openings).scores == stored.scores[(a, b)][:openings] for a, b in stored.scores
    )


def main() -> None:  # pragma: no cover - 2,400 games of alpha-beta up to depth 4
    result = {}
    for a, b in pairs():
        result[(a, b)] = play(a, b).scores
        print(a, b, np.mean(result[(a, b)]), flush=True)
    text = json.dumps(
        {
            "openings": OPENINGS,
            "plies": list(PLIES),
            "seed": SEED,
            "distinct": "up to the eight symmetries of the board",
            "depths": list(DEPTHS),
            "pairs": [[a, b, scores] for (a, b), scores in result.items()],
        },
        indent=0,
    )
    (resources.files("mcts_lab") / "data" / FILE).write_text(text + "\n")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
