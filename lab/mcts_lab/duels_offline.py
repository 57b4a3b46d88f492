"""The MCTS-experiments chapter's heavy results, computed once and shipped as data.

The long reference searches of the running position and the equal-budget duels (Connect Four and
Othello) take minutes; ``python -m mcts_lab.duels_offline`` plays them (seeded, so a rerun gives
the same file) and writes ``data/duels_offline.json``.  The chapter loads the file and, at build
time, replays a sample of the stored games with the same seeds (:func:`recheck_duel`): if the
code changed what the games are, the build stops instead of showing stale numbers.  A file
without the duels (they take the longest to compute) makes the chapter play them, as before.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.arena import MatchResult, match_game
from mcts_course.games import ConnectFour, GameState, Othello
from mcts_lab import mcts_matches, reference
from mcts_lab.flat import playout_values

DATA = Path(__file__).parent / "data" / "duels_offline.json"
GAMES = {game.NAME: game for game in (ConnectFour, Othello)}


def _duel_json(results: dict[int, MatchResult]) -> dict[str, Any]:
    return {str(b): r.to_json() for b, r in results.items()}


def _duel(game: type[GameState], stored: dict[str, Any]) -> dict[int, MatchResult]:
    # the shipped file names the game once per duel, not in each match: add it
    return {int(b): MatchResult.from_json({"game": game.NAME, **r}) for b, r in stored.items()}


def compute() -> dict[str, Any]:
    """Play everything (minutes on two cores)."""
    ref = reference.reference_searches(reference.running_position())
    return {
        "connect4_duel": _duel_json(mcts_matches.duel(keep_moves=True)),
        "othello_duel": _duel_json(mcts_matches.othello_duel(keep_moves=True)),
        "reference": {
            "iterations": ref.iterations,
            "searches": [asdict(s) for s in ref.searches],
            "alphabeta": {str(d): m for d, m in ref.alphabeta.items()},
            "seed_choices": seed_choices(ref.state),
        },
    }


def seed_choices(state: GameState) -> dict[str, list[str]]:
    """The earlier chapters' randomised answers, one per seed (seeds 0 to 39)."""
    return {m: reference.seed_answers(state, m) for m in ("flat", "mcts")}


def load(path: Path = DATA) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def connect4_duel(data: dict[str, Any] | None = None) -> dict[int, MatchResult]:
    """The stored Connect Four duel; played now (minutes) if the file does not hold it yet."""
    stored = (data or load()).get("connect4_duel")
    if stored is None:
        return mcts_matches.duel(keep_moves=True)
    return _duel(ConnectFour, stored)


def othello_duel(data: dict[str, Any] | None = None) -> dict[int, MatchResult]:
    """The stored Othello duel; played now (minutes) if the file does not hold it yet."""
    stored = (data or load()).get("othello_duel")
    if stored is None:
        return mcts_matches.othello_duel(keep_moves=True)
    return _duel(Othello, stored)


def reference_searches(data: dict[str, Any] | None = None) -> reference.Reference:
    """The stored long searches and alpha-beta answers; the flat Monte Carlo values and the
    earlier chapters' answers are computed now (they take seconds)."""
    stored = (data or load())["reference"]
    state = reference.running_position()
    values = playout_values(state, playouts=reference.FLAT_PER_MOVE)
    flat = {m: (float(values.value[i]), *values.interval(i)) for i, m in enumerate(values.moves)}
    return reference.Reference(
        state,
        reference.earlier_answers(state),
        stored["iterations"],
        [reference.SeedSearch(**s) for s in stored["searches"]],
        {int(d): m for d, m in stored["alphabeta"].items()},
        flat,
        reference.FLAT_PER_MOVE,
        stored.get("seed_choices", {}),
    )


def recheck_duel(
    results: dict[int, MatchResult], budget: int, games: int = 2, first: int = 0
) -> int:
    """Replay ``games`` stored games at ``budget`` with their seeds, from game ``first`` on;
    return how many came out move for move as stored."""
    r = results[budget]
    game = GAMES[r.game]
    same = 0
    for i in range(first, first + games):
        a_player, returns, moves = match_game(
            game(), MCTSAgent(budget), MonteCarloAgent(budget, policy="ucb1"), r.seed or 0, i
        )
        same += (a_player, tuple(returns), list(moves)) == (
            r.a_player[i],
            tuple(r.returns[i]),
            r.moves[i],
        )
    return same


if __name__ == "__main__":  # pragma: no cover - the heavy run itself
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    out.write_text(json.dumps(compute(), separators=(",", ":")) + "\n")
    print(f"wrote {out}")
