"""Root parallelization at an equal total budget, 200 Connect Four games: computed once, shipped.

Two searches of 250 iterations each (merged votes) against one search of 500, per move.  With a
fixed number of iterations the games do not depend on the machine, so they can be played once
(``python -m mcts_lab.parallel_offline``, a few minutes) and shipped as
``data/parallel_budget.json``; the chapter replays the first games (:func:`recheck`) to show
that the file is what this match and this seed give.  The budget and the number of games were
chosen before the run.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from mcts_course.arena import MatchResult
from mcts_course.games import ConnectFour
from mcts_lab.parallel import equal_budget_match

ITERATIONS = 500
GAMES = 200
SEED = 1
FILE = "parallel_budget.json"


def play(games: int = GAMES, n_jobs: int | None = 1) -> MatchResult:
    return equal_budget_match(ConnectFour, ITERATIONS, games=games, seed=SEED, n_jobs=n_jobs)


def load() -> MatchResult:
    row = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    if (row["iterations"], row["seed"]) != (ITERATIONS, SEED):
        raise ValueError("the shipped match was played with other settings")
    return MatchResult(
        game=row["game"],
        names=tuple(row["names"]),
        a_player=row["a_player"],
        returns=[tuple(r) for r in row["returns"]],
        seed=row["seed"],
    )


def recheck(stored: MatchResult, games: int = 2) -> bool:
    """Replay the first ``games`` games: the same colours and results as stored?"""
    again = play(games=games)
    return again.a_player == stored.a_player[:games] and [tuple(r) for r in again.returns] == [
        tuple(r) for r in stored.returns[:games]
    ]


def main() -> None:  # pragma: no cover - minutes of games
    result = play(n_jobs=2)
    row = {
        "iterations": ITERATIONS,
        "seed": result.seed,
        "game": result.game,
        "names": list(result.names),
        "a_player": result.a_player,
        "returns": [list(r) for r in result.returns],
    }
    (Path(__file__).parent / "data" / FILE).write_text(json.dumps(row) + "\n")
    print(result.score, result.interval, flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
