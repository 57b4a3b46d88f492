"""The endgame chapter's hand-over match, at fixed budgets instead of a clock.

A match played with a time limit per move gives a different score on every machine and at
every load.  ``python -m mcts_lab.handover_offline`` measures once, in processor seconds, what
an MCTS iteration costs on :data:`POSITIONS` seeded positions with :data:`EMPTIES` empty
squares (seed :data:`CALIBRATION_SEED`), and gives both sides the number of iterations (a
multiple of 50) that costs :data:`SECONDS` per move there.  It then plays the hybrid
``mcts:iterations=N,endgame=ENDGAME`` against ``mcts:iterations=N`` from :data:`OPENINGS`
openings with :data:`EMPTIES` empty squares (seed :data:`SEED`), each played twice with the
colours swapped, one process, and keeps the processor seconds of every move.  It writes
``data/handover_offline.json``; the games repeat exactly for the same budgets and seeds, so
the chapter replays a few of them (:func:`recheck`).  Everything but the budget and the times
was fixed before the run.
"""

from __future__ import annotations

import json
import time
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_course.agents import make_agent, with_params
from mcts_course.agents.endgame import empty_squares
from mcts_course.arena import MatchResult, game_seeds
from mcts_course.games import Othello
from mcts_lab.endgames import HandoverMatch, MoveTime, seeded_openings
from mcts_lab.present import Table

SECONDS = 0.05  # the processor time per MCTS move the budget is chosen to cost
ENDGAME = 12  # the hybrid hands over at this many empty squares
EMPTIES = 14  # the openings' empty squares
OPENINGS = 400
PLIES = 6  # random moves before alpha-beta continues each opening to EMPTIES
SEED = 0
CALIBRATION_SEED = 1  # other positions than the match's, for choosing the budget
POSITIONS = 30
PROBE = 500  # iterations of the timed searches
FILE = "handover_offline.json"


def specs(iterations: int) -> tuple[str, str]:
    """The hybrid and plain MCTS at ``iterations`` per move."""
    plain = with_params("mcts", iterations=iterations)
    return with_params(plain, endgame=ENDGAME), plain


def seconds_per_iteration(states: list[Othello], iterations: int = PROBE) -> float:
    """Mean processor seconds of one MCTS iteration over ``states`` (seed k for state k)."""
    total = 0.0
    for k, state in enumerate(states):
        agent = make_agent(with_params("mcts", iterations=iterations), seed=k)
        start = time.process_time()
        agent.select_action(state)
        total += time.process_time() - start
    return total / len(states) / iterations


def budget(per_iteration: float) -> int:
    """The multiple of 50 iterations nearest to :data:`SECONDS` of processor time."""
    return max(50, round(SECONDS / per_iteration / 50) * 50)


def game(
    start: Othello, iterations: int, index: int
) -> tuple[int, tuple[int, int], list[MoveTime]]:
    """Game ``index`` of the match from ``start``: the hybrid's player (Black in even games),
    the returns by player and each move's processor seconds."""
    hybrid, plain = specs(iterations)
    seed_a, seed_b = game_seeds(SEED, index)
    a_player = index % 2
    agents = {
        a_player: make_agent(hybrid, seed=seed_a),
        1 - a_player: make_agent(plain, seed=seed_b),
    }
    state, moves = start, []
    while not state.is_terminal():
        mover = state.current_player
        empties = empty_squares(state)
        started = time.process_time()
        action = agents[mover].select_action(state)
        moves.append(MoveTime(int(mover != a_player), empties, time.process_time() - started))
        state = state.play(action)
    returns = state.returns()
    return a_player, (int(returns[0]), int(returns[1])), moves


def play(iterations: int, openings: int = OPENINGS) -> HandoverMatch:
    """The match, opening by opening (the hybrid Black, then White), in one process."""
    starts = seeded_openings(openings, PLIES, SEED, EMPTIES)
    done = [game(start, iterations, 2 * k + c) for k, start in enumerate(starts) for c in (0, 1)]
    hybrid, plain = specs(iterations)
    result = MatchResult(
        game="othello",
        names=(hybrid, plain),
        a_player=[a for a, _, _ in done],
        returns=[r for _, r, _ in done],
        seed=SEED,
        player_names=Othello.PLAYER_NAMES,
    )
    mcts = [m.seconds for _, _, g in done for m in g if m.agent == 1 or m.empties > ENDGAME]
    return HandoverMatch(sum(mcts) / len(mcts), ENDGAME, result, [g for _, _, g in done])


def load() -> tuple[dict[str, Any], HandoverMatch]:
    """The shipped calibration and match (its ``time_per_move``: the mean processor seconds of
    the match's MCTS moves)."""
    data: dict[str, Any] = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    games = [[MoveTime(*m) for m in g] for g in data["moves"]]
    stored = HandoverMatch(
        data["mcts_seconds"], data["endgame"], MatchResult.from_json(data["match"]), games
    )
    return data, stored


def recheck(data: dict[str, Any], stored: HandoverMatch, openings: int = 1) -> bool:
    """Replay the games of the first ``openings`` openings at the stored budget: the same
    colours and results?"""
    again = play(data["iterations"], openings)
    n = 2 * openings
    return again.result.a_player == stored.result.a_player[:n] and [
        tuple(r) for r in again.result.returns
    ] == [tuple(r) for r in stored.result.returns[:n]]


def table(data: dict[str, Any], stored: HandoverMatch) -> Table:
    """The match in one row: the budget, games, the hybrid's wins-draws-losses, score and 95%
    interval over the openings."""
    r = stored.result
    lo, hi = stored.opening_interval
    columns = [
        "iterations per MCTS move",
        "hand-over",
        "games",
        "hybrid: wins-draws-losses",
        "score",
        "95% interval over the openings",
    ]
    row = [
        f"{data['iterations']:,}",
        f"{stored.endgame} empty squares",
        r.games,
        f"{r.wins}-{r.draws}-{r.losses}",
        r.score,
        f"{lo:.0%} to {hi:.0%}",
    ]
    return Table(columns, [row], {"score": ".0%"}, right=["games", "score"])


def main() -> None:  # pragma: no cover - minutes of games
    states = seeded_openings(POSITIONS, PLIES, CALIBRATION_SEED, EMPTIES)
    per_iteration = seconds_per_iteration(states)
    iterations = budget(per_iteration)
    print(per_iteration, iterations, flush=True)
    stored = play(iterations)
    print(stored.result.score, stored.opening_interval, stored.time_per_move, flush=True)
    data = {
        "seconds": SECONDS,
        "endgame": ENDGAME,
        "empties": EMPTIES,
        "openings": OPENINGS,
        "seed": SEED,
        "calibration": {"positions": POSITIONS, "seconds_per_iteration": per_iteration},
        "iterations": iterations,
        "mcts_seconds": stored.time_per_move,
        "match": stored.result.to_json(),
        "moves": [[[m.agent, m.empties, round(m.seconds, 6)] for m in g] for g in stored.games],
    }
    path = Path(__file__).parent / "data" / FILE
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {path}", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
