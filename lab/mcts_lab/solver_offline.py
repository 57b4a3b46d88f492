"""MCTS-Solver against plain UCT in Connect Four at 1,000 iterations per move: computed once,
shipped as data.

Both agents are the package's (``mcts-solver`` is ``mcts`` with proven values backed up, same
c, same playouts), with the same number of iterations per move, colours alternating.  The 100
games take minutes, too long for the book's build, so ``python -m mcts_lab.solver_offline``
plays them and writes ``data/solver_offline.json`` with the specs, the seed and every game's
result; the chapter loads the file and replays the first games (:func:`recheck`).  The budget
and the number of games were chosen before the run; nothing was scanned.
"""

from __future__ import annotations

import json
from importlib import resources

from mcts_course.arena import MatchResult, match
from mcts_course.games import ConnectFour

ITERATIONS = 1000
GAMES = 100
SEED = 5
SPECS = (f"mcts-solver:iterations={ITERATIONS}", f"mcts:iterations={ITERATIONS}")
FILE = "solver_offline.json"


def play(games: int = GAMES, n_jobs: int | None = 1) -> MatchResult:
    return match(ConnectFour, *SPECS, games=games, seed=SEED, n_jobs=n_jobs, keep_moves=False)


def load() -> MatchResult:
    """The shipped match, seen from MCTS-Solver."""
    row = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return MatchResult(
        game=row["game"],
        names=tuple(row["names"]),
        a_player=row["a_player"],
        returns=[tuple(r) for r in row["returns"]],
        seed=row["seed"],
    )


def recheck(stored: MatchResult, games: int = 2) -> bool:
    """Replay the first ``games`` games: the same colours and results as the file?"""
    again = play(games=games)
    return again.a_player == stored.a_player[:games] and [tuple(r) for r in again.returns] == [
        tuple(r) for r in stored.returns[:games]
    ]


def main() -> None:  # pragma: no cover - minutes of matches
    result = play(n_jobs=2)
    print(result.score, result.interval, flush=True)
    row = {
        "specs": list(SPECS),
        "game": result.game,
        "names": list(result.names),
        "a_player": result.a_player,
        "returns": [list(r) for r in result.returns],
        "seed": result.seed,
    }
    folder = resources.files("mcts_lab") / "data"
    (folder / FILE).write_text(json.dumps(row, indent=0) + "\n")  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
