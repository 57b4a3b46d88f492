"""RAVE as MoGo used it against UCT, at 1,000 iterations per move: computed once, shipped as data.

The matches take many times a chapter's build (a RAVE iteration records its playout through
the game protocol), so ``python -m mcts_lab.rave_offline`` plays them and
writes ``data/rave_offline.json`` with the specs, the seed and every game's result; the chapter
loads the file and replays the first games of each match (:func:`recheck`) to show that the
file is what these specs and this seed give.  The budget, 1,000 iterations per move, and the
number of games were chosen before the run; nothing was scanned.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources

from mcts_course.arena import MatchResult, match
from mcts_course.games import ConnectFour
from mcts_course.stats import holm
from mcts_lab.present import Table, p_text

ITERATIONS = 1000
GAMES = 100
SEED = 11
# name -> (RAVE's spec, UCT's spec): each agent with the K and c the tic-tac-toe tuning chose
# for it (chapter 13, mcts_lab.rave_scan): MoGo's RAVE (all children, AMAF for unvisited moves,
# K = 3,000, no exploration term), RAVE with UCT's expansion (K = 300, c = 0.35), and UCT
# (c = 0.7).
PAIRINGS = {
    "RAVE as MoGo (K=3000, c=0) vs UCT (c=0.7)": (
        f"mcts:iterations={ITERATIONS},rave=3000,amaf_unvisited=1,c=0",
        f"mcts:iterations={ITERATIONS},c=0.7",
    ),
    "RAVE, random expansion (K=300, c=0.35) vs UCT (c=0.7)": (
        f"mcts:iterations={ITERATIONS},rave=300,c=0.35",
        f"mcts:iterations={ITERATIONS},c=0.7",
    ),
}
FILE = "rave_offline.json"


@dataclass
class Stored:
    """One stored match: its specs and, per game, A's colour and the returns."""

    name: str
    specs: tuple[str, str]
    result: MatchResult

    @property
    def p_value(self) -> float:
        """Two-sided p-value of "RAVE and UCT are even" (score 50%): the exact sign test over
        the games, each game a unit.  A draw is the same whichever side is favoured, so only
        the decisive games count, and under "even" each is a win for RAVE with chance 1/2
        (this is the sign-flip test over the games' returns, computed exactly instead of by
        resampling)."""
        return sign_test_p(self.result.wins, self.result.losses)


def sign_test_p(wins: int, losses: int) -> float:
    """The exact two-sided sign test: twice the binomial(wins + losses, 1/2) tail beyond the
    smaller count, at most 1."""
    n, k = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / float(2**n))


def holm_rejections(stored: list[Stored]) -> dict[str, bool]:
    """Holm's correction at 5% over the stored matches: which "even" hypotheses fall.  The
    matches are read together, so neither is judged at the uncorrected level."""
    return dict(zip([s.name for s in stored], holm([s.p_value for s in stored]), strict=True))


def play(name: str, games: int = GAMES, n_jobs: int | None = 1) -> MatchResult:
    a, b = PAIRINGS[name]
    return match(ConnectFour, a, b, games=games, seed=SEED, n_jobs=n_jobs, keep_moves=False)


def load() -> list[Stored]:
    """The shipped matches."""
    text = (resources.files("mcts_lab") / "data" / FILE).read_text()
    stored = []
    for row in json.loads(text)["matches"]:
        result = MatchResult.from_json(row)
        stored.append(Stored(row["name"], tuple(row["specs"]), result))
    return stored


def recheck(stored: Stored, games: int = 4) -> bool:
    """Replay the first ``games`` games of a stored match: the same colours and results?"""
    again = play(stored.name, games=games)
    return again.a_player == stored.result.a_player[:games] and [
        tuple(r) for r in again.returns
    ] == [tuple(r) for r in stored.result.returns[:games]]


def table(stored: list[Stored]) -> Table:
    """One row per stored match: games, RAVE's wins-draws-losses, its score with the 95%
    interval, the p-value of "even" and whether Holm's correction over the rows rejects it."""
    rejected = holm_rejections(stored)
    rows = []
    for match_ in stored:
        r = match_.result
        lo, hi = r.interval
        verdict = "yes" if rejected[match_.name] else "no"
        rows.append(
            [
                match_.name,
                r.games,
                f"{r.wins}-{r.draws}-{r.losses}",
                r.score,
                lo,
                hi,
                p_text(match_.p_value),
                verdict,
            ]
        )
    return Table(
        [
            "match (1,000 iterations per move)",
            "games",
            "wins-draws-losses",
            "score",
            "95% low",
            "95% high",
            "p (even)",
            "not even, Holm",
        ],
        rows,
        {"score": ".1%", "95% low": ".1%", "95% high": ".1%"},
        right=["games", "wins-draws-losses", "score", "95% low", "95% high", "p (even)"],
    )


def main() -> None:  # pragma: no cover - the whole set of matches
    rows = []
    folder = resources.files("mcts_lab") / "data"
    for name, specs in PAIRINGS.items():
        result = play(name, n_jobs=1)
        rows.append({"name": name, "specs": list(specs), **result.to_json()})
        print(name, result.score, result.interval, f"{result.seconds:.0f} s", flush=True)
        # written after every match, so that a stopped run keeps the matches it finished
        text = json.dumps({"iterations": ITERATIONS, "seed": SEED, "matches": rows}, indent=0)
        (folder / FILE).write_text(text + "\n")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
