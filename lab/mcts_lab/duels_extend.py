"""Extend a stored equal-budget duel to more games, with the seeding rule of the games stored.

Game ``i`` of a match seeded ``s`` is :func:`mcts_course.arena.match_game` with ``(s, i)``,
whatever the number of games, so the games 40 to 99 of the Othello duel at 1,000 playouts are
the games a 100-game match would have played: ``python -m mcts_lab.duels_extend`` plays only
the missing ones (one process, minutes to half an hour on one core) and writes them into
``data/duels_offline.json``, one game at a time, so an interrupted run loses at most one game.
``python -m mcts_lab.duels_extend choices`` adds the earlier chapters' randomised answers in
the running position, one per seed (a few minutes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.arena import match_game
from mcts_lab import duels_offline

DUEL = "othello_duel"
BUDGET = 1000
TARGET_GAMES = 100


def missing_games(stored: dict[str, Any], target: int) -> range:
    """The indices of the games a ``target``-game match plays that ``stored`` lacks."""
    return range(len(stored["returns"]), target)


def play_into(stored: dict[str, Any], game_name: str, budget: int, index: int) -> None:
    """Play game ``index`` of the stored match (its seed) and append it to ``stored``."""
    game = duels_offline.GAMES[game_name]
    a_player, returns, moves = match_game(
        game(), MCTSAgent(budget), MonteCarloAgent(budget, policy="ucb1"), stored["seed"], index
    )
    stored["a_player"].append(int(a_player))
    stored["returns"].append([int(r) for r in returns])
    stored["moves"].append([int(m) for m in moves])


def extend(path: Path = duels_offline.DATA, target: int = TARGET_GAMES) -> int:
    """Play the missing games of the Othello duel at ``BUDGET``; return how many were added."""
    data = duels_offline.load(path)
    stored = data[DUEL][str(BUDGET)]
    added = 0
    for index in missing_games(stored, target):
        play_into(stored, "othello", BUDGET, index)
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
        added += 1
        print(f"game {index} stored", flush=True)
    return added


def add_seed_choices(path: Path = duels_offline.DATA) -> None:
    """Store the earlier chapters' randomised answers in the running position, one per seed
    (:func:`mcts_lab.duels_offline.seed_choices`), beside the stored reference searches."""
    from mcts_lab import reference

    data = duels_offline.load(path)
    data["reference"]["seed_choices"] = duels_offline.seed_choices(reference.running_position())
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")


if __name__ == "__main__":  # pragma: no cover - the heavy run itself
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else duels_offline.DATA
    if sys.argv[1:2] == ["choices"]:
        add_seed_choices(target)
    else:
        print(extend(target))
