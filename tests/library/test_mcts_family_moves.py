"""The MCTS family, seeded, makes the moves it made before the skeleton was rebuilt.

``data/mcts_family_moves.json`` was recorded from the agents as they were before the variants
became hooks of one skeleton (commit 41b8abd): for each game, variant and position, the move
chosen and the root's statistics (action, visits, wins).  Any change in the order of random
draws, a tie-break or a score's arithmetic shows here as a different tree, long before it would
show in a match.  If a change is meant to alter the searches, record the file again with
``python tests/library/test_mcts_family_moves.py`` and say why in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcts_course.agents import (
    MCTSAgent,
    MCTSSolverAgent,
    PUCTAgent,
    RAVEAgent,
    TranspositionMCTSAgent,
)
from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.games.base import GameState

RECORD = Path(__file__).parent / "data" / "mcts_family_moves.json"
POSITIONS = 5  # per game and variant
GAMES: dict[str, tuple[type[GameState], int]] = {
    "tictactoe": (TicTacToe, 120),  # (game, iterations)
    "connect4": (ConnectFour, 100),
    "othello": (Othello, 60),
}
VARIANTS: dict[str, Callable[[int, int], MCTSAgent]] = {
    "uct": lambda n, s: MCTSAgent(n, seed=s),
    "uct_thr3_depth6": lambda n, s: MCTSAgent(n, expand_threshold=3, playout_depth=6, seed=s),
    "egreedy": lambda n, s: MCTSAgent(n, policy="egreedy", seed=s),
    "softmax": lambda n, s: MCTSAgent(n, policy="softmax", seed=s),
    "rave": lambda n, s: RAVEAgent(n, seed=s),
    "puct_cells": lambda n, s: PUCTAgent(n, seed=s),
    "puct_uniform": lambda n, s: PUCTAgent(n, prior="uniform", seed=s),
    "solver": lambda n, s: MCTSSolverAgent(n, seed=s),
    "tt": lambda n, s: TranspositionMCTSAgent(n, seed=s),
    "reuse": lambda n, s: MCTSAgent(n, tree_reuse=True, seed=s),
}


def positions(game: type[GameState], count: int, seed: int) -> list[GameState]:
    """``count`` positions after 0 to 11 random plies, each with a choice to make."""
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        state = game()
        for _ in range(rng.randrange(0, 12)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def fingerprint(game_name: str, variant: str) -> dict[str, Any]:
    """Move and root statistics of each search; ``reuse`` searches a second position below the
    first, from the kept tree."""
    game, iterations = GAMES[game_name]
    rows: dict[str, Any] = {}
    for k, state in enumerate(positions(game, POSITIONS, 7)):
        agent = VARIANTS[variant](iterations, 100 + k)
        move: Any = agent.select_action(state)
        if variant == "reuse":
            nxt = state.play(move)
            if not nxt.is_terminal() and len(nxt.legal_actions()) > 1:
                nxt = nxt.play(sorted(nxt.legal_actions())[0])
                if not nxt.is_terminal() and len(nxt.legal_actions()) > 1:
                    move = [move, agent.select_action(nxt)]
        root = agent.last_root
        assert root is not None
        stats = sorted([a, ch.visits, round(ch.wins, 6)] for a, ch in root.children.items())
        rows[f"{game_name}/{variant}/{k}"] = [move, stats]
    return rows


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("game_name", GAMES)
def test_seeded_searches_are_those_recorded(game_name: str, variant: str) -> None:
    recorded = json.loads(RECORD.read_text())
    now = fingerprint(game_name, variant)
    assert now == {key: recorded[key] for key in now}


if __name__ == "__main__":  # record the file again
    rows = {k: v for g in GAMES for name in VARIANTS for k, v in fingerprint(g, name).items()}
    RECORD.write_text(json.dumps(rows, separators=(",", ":"), sort_keys=True) + "\n")
    sys.exit(0)
