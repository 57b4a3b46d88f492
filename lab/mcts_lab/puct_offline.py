"""The prior control of the PUCT chapter at 1,000 iterations per move: computed once, shipped.

Three matches (PUCT(cells) against PUCT(uniform), PUCT(uniform) against UCT, PUCT(cells)
against UCT), 100 games each, in Connect Four and in Othello: six matches, every agent with
1,000 iterations per move.  Match ``k`` of a game (in the order of ``PAIRINGS``) is seeded with
``SEEDS[game] + k``.  The games take far too long for the book's build (an Othello game costs
several times a Connect Four game), so ``python -m mcts_lab.puct_offline`` plays them and writes
``data/puct_offline.json`` with the specs, the seeds and every game's result; a run plays only
the matches the file does not hold yet, and writes the file after each match.  The chapter
loads the file and replays a sample (:func:`recheck`: the first game of a match) to show that
the file is what these specs and seeds give.  The chapter reads the six matches together, with
Holm's correction over all six (:func:`holm_rejections`).  The budget, the number of games and
the seeds were chosen before the runs; nothing was scanned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from mcts_course.agents import make_agent
from mcts_course.arena import MatchResult, match
from mcts_course.games import ConnectFour, GameState, Othello
from mcts_course.stats import holm, sign_flip_p_value
from mcts_lab.present import Table, game_title, p_text
from mcts_lab.puct import PAIRINGS

ITERATIONS = 1000
GAMES = 100
SEEDS = {"connect4": 1, "othello": 2}  # match k of a game uses seed + k
GAME_CLASSES: dict[str, type[GameState]] = {"connect4": ConnectFour, "othello": Othello}
FILE = "puct_offline.json"


@dataclass
class Stored:
    """One stored match: the game, the pairing's label, its seed and its games."""

    game: str
    label: str
    seed: int
    result: MatchResult

    @property
    def p_value(self) -> float:
        """Two-sided p-value of "the two agents are even" (score 50%), by sign flips over the
        games: each game is a unit, +1, 0 or -1 for the first agent."""
        return sign_flip_p_value(self.result.a_returns)


def play(
    game: str, label: str, seed: int, games: int = GAMES, n_jobs: int | None = 1
) -> MatchResult:
    first, second = PAIRINGS[label]
    return match(
        GAME_CLASSES[game],
        make_agent(first, iterations=ITERATIONS),
        make_agent(second, iterations=ITERATIONS),
        games=games,
        seed=seed,
        n_jobs=n_jobs,
        keep_moves=False,
    )


def load() -> list[Stored]:
    """The shipped matches, in the order Connect Four then Othello, pairings as in PAIRINGS."""
    text = (resources.files("mcts_lab") / "data" / FILE).read_text()
    stored = []
    for row in json.loads(text)["matches"]:
        result = MatchResult.from_json(row)
        stored.append(Stored(row["game"], row["label"], row["seed"], result))
    return stored


def recheck(stored: Stored, games: int = 1) -> bool:
    """Replay the first ``games`` games of a stored match: the same colours and results?"""
    again = play(stored.game, stored.label, stored.seed, games=games)
    return again.a_player == stored.result.a_player[:games] and [
        tuple(r) for r in again.returns
    ] == [tuple(r) for r in stored.result.returns[:games]]


def holm_rejections(stored: list[Stored]) -> dict[tuple[str, str], bool]:
    """Holm's correction at 5% over all the stored matches: which "even match" hypotheses
    fall.  The matches are read together, so none is judged at the uncorrected level."""
    keys = [(s.game, s.label) for s in stored]
    return dict(zip(keys, holm([s.p_value for s in stored]), strict=True))


def table(stored: list[Stored]) -> Table:
    """One row per match: the game, the pairing, the first agent's wins-draws-losses, its score
    with the 95% interval, the p-value of "even" and whether Holm's correction over all the
    rows rejects it."""
    rejected = holm_rejections(stored)
    rows = []
    for s in stored:
        r = s.result
        lo, hi = r.interval
        verdict = "yes" if rejected[(s.game, s.label)] else "no"
        rows.append(
            [
                game_title(s.game),
                s.label,
                f"{r.wins}-{r.draws}-{r.losses}",
                r.score,
                lo,
                hi,
                p_text(s.p_value),
                verdict,
            ]
        )
    return Table(
        [
            "game",
            "match (1,000 iterations per move)",
            "wins-draws-losses",
            "score",
            "95% low",
            "95% high",
            "p (even)",
            "not even, Holm",
        ],
        rows,
        {"score": ".1%", "95% low": ".1%", "95% high": ".1%"},
        right=["wins-draws-losses", "score", "95% low", "95% high", "p (even)"],
    )


def main() -> None:  # pragma: no cover - tens of minutes of matches
    """Play the matches of ``SEEDS`` that the file does not hold yet (a stored match with the
    same game, pairing, specs and seed is the same games: it is kept, not played again), and
    write the file after every match, so that a stopped run keeps what it finished."""
    folder = resources.files("mcts_lab") / "data"
    path = folder / FILE
    old = json.loads(path.read_text())["matches"] if path.is_file() else []
    rows = []
    for game, base in SEEDS.items():
        for k, label in enumerate(PAIRINGS):
            key = (game, label, list(PAIRINGS[label]), base + k)
            kept = [r for r in old if (r["game"], r["label"], r["specs"], r["seed"]) == key]
            if kept:
                rows.append(kept[0])
                continue
            result = play(game, label, base + k, n_jobs=1)
            rows.append({"label": label, "specs": list(PAIRINGS[label]), **result.to_json()})
            print(game, label, result.score, result.interval, f"{result.seconds:.0f} s", flush=True)
            text = json.dumps({"iterations": ITERATIONS, "games": GAMES, "matches": rows}, indent=0)
            path.write_text(text + "\n")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
