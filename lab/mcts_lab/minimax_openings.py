"""Minimax at depth 2 against the cell-score agent over paired openings: computed once, shipped.

Both agents are deterministic, so a match from the start position would be two games repeated.
The unit is therefore a random opening (a length drawn uniformly from 2 to 6 plies, then that
many uniformly random legal moves from the start), played twice with the colours swapped.  An
opening that is the same position as an earlier one, or one of its rotations or reflections,
is thrown away and drawn again (``othello_symmetry_key``): a deterministic pair of agents would
replay the same games, and the bootstrap over openings would count them twice.
``python -m mcts_lab.minimax_openings`` plays the 200 openings (chosen before the run, not
scanned) and writes ``data/minimax_openings.json`` with the seed and every opening's score;
the chapter loads it and replays a sample of the openings (:func:`recheck`) to show that the
file is what these agents and this seed give.
"""

from __future__ import annotations

import json
from importlib import resources

from mcts_course.agents import AlphaBetaAgent, CellScoreAgent, MinimaxAgent
from mcts_course.games import Othello
from mcts_lab.basics import OpeningPairs, opening_pairs, othello_symmetry_key, random_positions

OPENINGS = 200
PLIES = (2, 6)
SEED = 1
FILE = "minimax_openings.json"
KEY = othello_symmetry_key  # one opening per position up to the board's eight symmetries


def play(openings: int = OPENINGS) -> OpeningPairs:
    """The first ``openings`` openings of the stored sequence (``random_positions`` draws them
    in order, so a prefix is the same openings)."""
    return opening_pairs(
        MinimaxAgent(depth=2), CellScoreAgent(), Othello, openings, PLIES, SEED, KEY
    )


def one_ply(openings: int = OPENINGS) -> OpeningPairs:
    """Alpha-beta at depth 1 against the cell-score agent on the same openings: the whole
    board scored after the agent's own move, flips included, and no reply considered.  It
    separates what the whole-board evaluation adds from what the second ply adds (depth 2
    against depth 1 in :mod:`mcts_lab.depth_openings`).  Cheap enough to play at build time."""
    return opening_pairs(
        AlphaBetaAgent(depth=1), CellScoreAgent(), Othello, openings, PLIES, SEED, KEY
    )


def load() -> OpeningPairs:
    """The shipped result."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return OpeningPairs(tuple(data["names"]), [float(s) for s in data["scores"]])


def recheck(stored: OpeningPairs, openings: int = 10) -> bool:
    """Replay the first ``openings`` openings: the same scores as the file?"""
    return play(openings).scores == stored.scores[:openings]


def distinct_openings(openings: int = OPENINGS) -> int:
    """How many different positions the openings are once mirror images count as one
    (``random_positions`` with ``KEY`` draws them so, so this equals ``openings``)."""
    return len({KEY(s) for s in random_positions(Othello, openings, PLIES, SEED, KEY)})


def plain_draws(openings: int = OPENINGS) -> tuple[int, int, int]:
    """What drawing without any check would give: ``openings`` independent random openings,
    then how many distinct positions they are, and how many up to symmetry."""
    import random

    from mcts_course.games.base import GameState, random_position

    rng = random.Random(SEED)
    drawn: list[GameState] = []
    while len(drawn) < openings:
        state = random_position(Othello, rng.randint(*PLIES), rng)
        if state is not None:
            drawn.append(state)
    return len(drawn), len(set(drawn)), len({KEY(s) for s in drawn})


def main() -> None:  # pragma: no cover - 400 games of depth-2 minimax
    result = play()
    text = json.dumps(
        {
            "openings": OPENINGS,
            "plies": list(PLIES),
            "seed": SEED,
            "distinct": "up to the eight symmetries of the board",
            "names": list(result.names),
            "scores": result.scores,
        },
        indent=0,
    )
    (resources.files("mcts_lab") / "data" / FILE).write_text(text + "\n")  # type: ignore[attr-defined]
    print(result.score, result.interval(), flush=True)


if __name__ == "__main__":
    main()
