"""The play page's learned opponent (``puct:prior=net``): what it shows after each move is the
shipped network's own output, and it plays where the page's Python has no numpy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import run_without_numpy

from mcts_course import webplay
from mcts_course.games import start_state
from mcts_course.learn import available, load

LEARNED = "puct:prior=net,iterations=60"
HYBRID = "mcts:iterations=50,endgame=8"
ROOT = Path(__file__).resolve().parents[2]


def ask(**request) -> dict:
    answer = json.loads(webplay.handle(json.dumps(request)))
    assert answer["ok"], answer
    return answer["view"]


@pytest.mark.parametrize("game", ["tictactoe", "connect4"])
def test_the_learned_opponent_shows_the_networks_priors_and_value(game):
    """After its move: a row per legal move with the network's prior (as drawn on the board),
    the search's visits (the most visited played), the value of the position it moved from (for
    itself) and of the position it left (for the reader)."""
    ask(cmd="new_game", board="n", game=game, opponent=LEARNED, human=0)
    view = ask(cmd="human_move", board="n", action=start_state(game).legal_actions()[1])
    before = start_state(game).play(view["actions"][0])
    view = ask(cmd="agent_move", board="n")
    thoughts = view["thoughts"]
    assert thoughts["kind"] == "net" and thoughts["iterations"] == 60
    priors, value = load(game).predict(before)
    rows = {row["action"]: row for row in thoughts["rows"]}
    assert set(rows) == set(before.legal_actions()) == set(priors)
    for action, row in rows.items():
        assert row["value"] == row["prior"] == f"{100 * priors[action]:.0f}%"
        assert row["cell"] == list(before.cell_of(action))
    assert sum(row["visits"] for row in rows.values()) == 60  # every iteration below the root
    played = thoughts["action"]
    assert rows[played]["visits"] == max(row["visits"] for row in rows.values())
    assert thoughts["net_player"] == before.current_player == 1
    assert math.isclose(thoughts["net_value"], value, abs_tol=5e-4)
    after = before.play(played)
    assert math.isclose(thoughts["net_value_after"], load(game).predict(after)[1], abs_tol=5e-4)


def test_othello_has_no_network_and_says_so():
    ask(cmd="new_game", board="o", game="othello", opponent=LEARNED, human=1)
    answer = json.loads(webplay.handle(json.dumps({"cmd": "agent_move", "board": "o"})))
    assert not answer["ok"] and "no network is shipped for 'othello'" in answer["error"]
    assert "othello" not in available()


def test_the_learned_and_hybrid_opponents_play_without_numpy():
    """Pyodide's core has no numpy: the network's forward pass runs in plain Python there, and
    the hybrid Othello opponent loads there."""
    code = (
        "import json\n"
        "from mcts_course import webplay\n"
        "for game in ('tictactoe', 'connect4'):\n"
        "    webplay.handle(json.dumps({'cmd': 'new_game', 'game': game, 'human': 1,\n"
        f"                                'opponent': {LEARNED!r}}}))\n"
        "    r = json.loads(webplay.handle(json.dumps({'cmd': 'agent_move'})))\n"
        "    assert r['ok'] and r['view']['thoughts']['kind'] == 'net', (game, r)\n"
        "webplay.handle(json.dumps({'cmd': 'new_game', 'game': 'othello', 'human': 1,\n"
        f"                            'opponent': {HYBRID!r}}}))\n"
        "assert json.loads(webplay.handle(json.dumps({'cmd': 'agent_move'})))['ok']\n"
        "assert 'numpy' not in sys.modules\n"
    )
    done = run_without_numpy(code)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_wheel_the_page_loads_carries_the_networks():
    """The page installs the wheel built from pyproject.toml: its package data must name every
    shipped network file (mcts_course/learn/data/<game>.json)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"].get("mcts_course.learn", [])
    folder = ROOT / "mcts_course" / "learn"
    for game in ("tictactoe", "connect4"):
        path = folder / "data" / f"{game}.json"
        assert path.exists(), path
        assert any(path.relative_to(folder).match(p) for p in patterns), (path, patterns)


def test_the_hybrid_othello_opponent_shows_visits_then_exact_margins():
    """MCTS's visits while more than N squares are empty; from N on, every move's exact final
    margin (the margin of a move is minus the solved margin of the position it leads to, for the
    opponent), and it plays a move of the best margin."""
    import random

    from mcts_course.agents.endgame import empty_squares, solve_endgame

    rng = random.Random(3)
    view = ask(cmd="new_game", board="h", game="othello", opponent=HYBRID, human=0)
    kinds, checked = [], 0
    while not view["terminal"]:
        if view["your_turn"]:
            view = ask(cmd="human_move", board="h", action=rng.choice(view["legal"])["action"])
            continue
        state = start_state("othello")
        for action in view["actions"]:
            state = state.play(action)
        view = ask(cmd="agent_move", board="h")
        thoughts = view["thoughts"]
        kinds.append(thoughts["kind"])
        if thoughts["kind"] == "exact":
            assert empty_squares(state) <= 8
            margins = {row["action"]: row["value"] for row in thoughts["rows"]}
            for action, margin in margins.items():
                assert margin == -solve_endgame(state.play(action))
            assert margins[thoughts["action"]] == max(margins.values())
            checked += 1
        elif thoughts["kind"] is not None:
            assert thoughts["kind"] == "visits" and empty_squares(state) > 8
    assert checked >= 1 and kinds[0] == "visits", kinds
