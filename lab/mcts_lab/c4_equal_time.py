"""Chapter 15's match at equal time, with budgets fixed once instead of a clock.

A match played with a time limit per move gives a different score on every machine and at
every load.  ``python -m mcts_lab.c4_equal_time`` measures once, in processor seconds, what
a move of PUCT with the shipped network costs at :data:`PUCT_ITERATIONS` iterations and what
an iteration of UCT costs, on :data:`POSITIONS` positions of random play from the first 20
moves, and gives UCT the number of iterations (a multiple of 50) that costs as much.  It
then plays the match at those fixed budgets, :data:`GAMES` games with seed :data:`SEED`
(chosen before the run), and measures the two budgets' times again on :data:`POSITIONS` other
positions.  It writes ``data/connect4_equal_time.json``; the games repeat exactly for the
same budgets and seed, so the chapter replays the first of them (:func:`recheck`).
"""

from __future__ import annotations

import json
import time
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_course.arena import MatchResult, match
from mcts_course.games import ConnectFour, GameState

PUCT_ITERATIONS = 200  # the equal-iterations match's budget, kept for PUCT
UCT_PROBE = 1000  # UCT's iterations when its cost per iteration is measured
POSITIONS = 30  # positions of random play from the first 20 moves, for each timing
CALIBRATION_SEED = 3  # the positions the budgets are chosen on
CHECK_SEED = 4  # other positions, where the chosen budgets are timed again
GAMES = 100
SEED = 2
FILE = "connect4_equal_time.json"


def agents(uct_iterations: int, seed: int = 0) -> tuple[Any, Any]:
    """PUCT with the shipped network at :data:`PUCT_ITERATIONS` and UCT at ``uct_iterations``."""
    from mcts_lab.learning_c4 import net_agent, uct_agent

    return net_agent(iterations=PUCT_ITERATIONS, seed=seed), uct_agent(
        iterations=uct_iterations, seed=seed
    )


def mean_seconds(make: Any, states: list[GameState]) -> float:
    """Mean processor seconds of one search by ``make(seed)`` over ``states``."""
    total = 0.0
    for k, state in enumerate(states):
        agent = make(k)
        start = time.process_time()
        agent.select_action(state)
        total += time.process_time() - start
    return total / len(states)


def calibrate() -> dict[str, Any]:  # pragma: no cover - processor time, not a fixed result
    from mcts_lab.learning_c4 import game_positions, net_agent, uct_agent

    states = game_positions(POSITIONS, CALIBRATION_SEED)
    net_agent(iterations=1).select_action(states[0])  # the network loaded before timing
    puct = mean_seconds(lambda s: net_agent(iterations=PUCT_ITERATIONS, seed=s), states)
    per_iteration = mean_seconds(lambda s: uct_agent(iterations=UCT_PROBE, seed=s), states)
    per_iteration /= UCT_PROBE
    uct = max(50, round(puct / per_iteration / 50) * 50)
    return {"puct_seconds": puct, "uct_seconds_per_iteration": per_iteration, "uct": uct}


def play(uct_iterations: int, games: int = GAMES) -> MatchResult:
    puct, uct = agents(uct_iterations)
    return match(ConnectFour, puct, uct, games=games, seed=SEED, n_jobs=1, keep_moves=False)


def load() -> dict[str, Any]:
    """The shipped file: ``calibration``, ``check`` (seconds per move of each side at its
    budget on the check positions) and ``match`` (a :class:`MatchResult`)."""
    data: dict[str, Any] = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    data["match"] = MatchResult.from_json(data["match"])
    return data


def recheck(data: dict[str, Any], games: int = 1) -> bool:
    """Replay the first ``games`` games at the stored budgets: the same colours and results?"""
    stored: MatchResult = data["match"]
    again = play(data["calibration"]["uct"], games=games)
    return again.a_player == stored.a_player[:games] and [tuple(r) for r in again.returns] == [
        tuple(r) for r in stored.returns[:games]
    ]


def main() -> None:  # pragma: no cover - minutes of games
    from mcts_lab.learning_c4 import game_positions, net_agent, uct_agent

    calibration = calibrate()
    print(calibration, flush=True)
    result = play(calibration["uct"])
    print(result.score, result.interval, flush=True)
    states = game_positions(POSITIONS, CHECK_SEED)
    check = {
        "PUCT + self-play net": mean_seconds(
            lambda s: net_agent(iterations=PUCT_ITERATIONS, seed=s), states
        ),
        "UCT": mean_seconds(lambda s: uct_agent(iterations=calibration["uct"], seed=s), states),
    }
    data = {
        "puct_iterations": PUCT_ITERATIONS,
        "games": GAMES,
        "seed": SEED,
        "calibration": calibration,
        "check": check,
        "match": result.to_json(),
    }
    path = Path(__file__).parent / "data" / FILE
    path.write_text(json.dumps(data, indent=0) + "\n")
    print(f"wrote {path}: {check}", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
