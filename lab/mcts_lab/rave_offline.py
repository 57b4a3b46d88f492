"""RAVE as MoGo used it against UCT, at 1,000 iterations per move: computed once, shipped as data.

The matches take tens of minutes (a RAVE iteration records its playout through the game
protocol), too long for the book's build, so ``python -m mcts_lab.rave_offline`` plays them and
writes ``data/rave_offline.json`` with the specs, the seed and every game's result; the chapter
loads the file and replays the first games of each match (:func:`recheck`) to show that the
file is what these specs and this seed give.  The budget, 1,000 iterations per move, and the
number of games were chosen before the run; nothing was scanned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from mcts_course.arena import MatchResult, match
from mcts_course.games import ConnectFour
from mcts_lab.present import Table

ITERATIONS = 1000
GAMES = 100
SEED = 11
# name -> (RAVE's spec, UCT's spec): MoGo's RAVE (all children, AMAF for unvisited moves, no
# exploration term, as Gelly and Silver found best with RAVE) and the chapter's RAVE, each
# against UCT with the package's c.
PAIRINGS = {
    "RAVE as MoGo (K=300, c=0) vs UCT": (
        f"mcts:iterations={ITERATIONS},rave=300,amaf_unvisited=1,c=0",
        f"mcts:iterations={ITERATIONS}",
    ),
    "RAVE, random expansion (K=300) vs UCT": (
        f"mcts:iterations={ITERATIONS},rave=300",
        f"mcts:iterations={ITERATIONS}",
    ),
}
FILE = "rave_offline.json"


@dataclass
class Stored:
    """One stored match: its specs and, per game, A's colour and the returns."""

    name: str
    specs: tuple[str, str]
    result: MatchResult


def play(name: str, games: int = GAMES, n_jobs: int | None = 1) -> MatchResult:
    a, b = PAIRINGS[name]
    return match(ConnectFour, a, b, games=games, seed=SEED, n_jobs=n_jobs, keep_moves=False)


def load() -> list[Stored]:
    """The shipped matches."""
    text = (resources.files("mcts_lab") / "data" / FILE).read_text()
    stored = []
    for row in json.loads(text)["matches"]:
        result = MatchResult(
            game=row["game"],
            names=tuple(row["names"]),
            a_player=row["a_player"],
            returns=[tuple(r) for r in row["returns"]],
            seed=row["seed"],
        )
        stored.append(Stored(row["name"], tuple(row["specs"]), result))
    return stored


def recheck(stored: Stored, games: int = 4) -> bool:
    """Replay the first ``games`` games of a stored match: the same colours and results?"""
    again = play(stored.name, games=games)
    return again.a_player == stored.result.a_player[:games] and [
        tuple(r) for r in again.returns
    ] == [tuple(r) for r in stored.result.returns[:games]]


def table(stored: list[Stored]) -> Table:
    """One row per stored match: games, wins-draws-losses of RAVE, its score and interval."""
    rows = []
    for match_ in stored:
        r = match_.result
        lo, hi = r.interval
        rows.append([match_.name, r.games, f"{r.wins}-{r.draws}-{r.losses}", r.score, lo, hi])
    return Table(
        [
            "match (1,000 iterations per move)",
            "games",
            "wins-draws-losses",
            "score",
            "95% low",
            "95% high",
        ],
        rows,
        {"score": ".1%", "95% low": ".1%", "95% high": ".1%"},
        right=["games", "wins-draws-losses", "score", "95% low", "95% high"],
    )


def main() -> None:  # pragma: no cover - tens of minutes of matches
    rows = []
    for name, specs in PAIRINGS.items():
        result = play(name, n_jobs=2)
        rows.append(
            {
                "name": name,
                "specs": list(specs),
                "game": result.game,
                "names": list(result.names),
                "a_player": result.a_player,
                "returns": [list(r) for r in result.returns],
                "seed": result.seed,
            }
        )
        print(name, result.score, result.interval, flush=True)
    folder = resources.files("mcts_lab") / "data"
    text = json.dumps({"iterations": ITERATIONS, "seed": SEED, "matches": rows}, indent=0)
    (folder / FILE).write_text(text + "\n")  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
