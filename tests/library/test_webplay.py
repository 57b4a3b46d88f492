"""The play page's Python side (mcts_course.webplay), run here in CPython as Pyodide runs it."""

from __future__ import annotations

import json
import math
import random

import pytest
from helpers import run_without_numpy

from mcts_course import webplay
from mcts_course.games import GAMES, Othello, start_state


def ask(**request) -> dict:
    answer = json.loads(webplay.handle(json.dumps(request)))
    assert answer["ok"], answer
    return answer["view"]


def test_the_reader_moves_first_by_default_and_sees_their_legal_moves():
    view = ask(cmd="new_game", board="t", game="othello", opponent="random")
    state = start_state("othello")
    assert view["your_turn"] and "(you) to move" in view["status"]
    assert [m["action"] for m in view["legal"]] == state.legal_actions()
    assert all(m["cell"] == list(state.cell_of(m["action"])) for m in view["legal"])
    assert view["cells"] == [int(v) for row in state.board() for v in row]


def test_an_illegal_move_is_refused_and_changes_nothing():
    ask(cmd="new_game", board="t", game="tictactoe", opponent="random")
    ask(cmd="human_move", board="t", action=4)
    request = {"cmd": "human_move", "board": "t", "action": 4}
    answer = json.loads(webplay.handle(json.dumps(request)))
    assert not answer["ok"] and "IllegalActionError" in answer["error"]
    assert ask(cmd="view", board="t")["actions"] == [4]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_against_mcts_ends_with_a_winner_or_a_draw(game):
    rng = random.Random(5)
    view = ask(cmd="new_game", board="g", game=game, opponent="mcts:iterations=20")
    while not view["terminal"]:
        if view["your_turn"]:
            view = ask(cmd="human_move", board="g", action=rng.choice(view["legal"])["action"])
        else:
            view = ask(cmd="agent_move", board="g")
    state = start_state(game)
    for action in view["actions"]:
        state = state.play(action)
    assert state.is_terminal()
    assert (" wins" in view["status"]) != ("draw" in view["status"])
    assert view["legal"] == [] and view["to_move"] is None


def test_mcts_thoughts_are_the_visits_of_its_root_and_it_played_the_most_visited():
    ask(cmd="new_game", board="m", game="connect4", opponent="mcts:iterations=300", human=1)
    view = ask(cmd="agent_move", board="m")
    thoughts = view["thoughts"]
    assert thoughts["kind"] == "visits" and thoughts["iterations"] == 300
    visits = {row["action"]: row["visits"] for row in thoughts["rows"]}
    assert sum(visits.values()) == 300
    assert visits[thoughts["action"]] == max(visits.values())
    assert view["actions"] == [thoughts["action"]]
    assert thoughts["position"] == [-1] * 42


def test_alphabeta_thoughts_are_exact_values_and_its_move_has_the_best():
    ask(cmd="new_game", board="a", game="tictactoe", opponent="alphabeta:depth=9", human=1)
    thoughts = ask(cmd="agent_move", board="a")["thoughts"]
    values = {row["action"]: row["value"] for row in thoughts["rows"]}
    assert thoughts["kind"] == "values" and len(values) == 9
    assert set(values.values()) == {0.0}  # tic-tac-toe is a draw whatever the first move
    assert values[thoughts["action"]] == max(values.values())


def test_cellscore_thoughts_are_the_weights_of_the_cells_and_it_played_the_heaviest():
    ask(cmd="new_game", board="c", game="othello", opponent="cellscore", human=1)
    ask(cmd="agent_move", board="c")
    ask(cmd="human_move", board="c", action=ask(cmd="view", board="c")["legal"][0]["action"])
    view = ask(cmd="agent_move", board="c")
    thoughts = view["thoughts"]
    state = start_state("othello")
    for action in view["actions"][:-1]:
        state = state.play(action)
    weights = state.cell_weights()
    assert thoughts["kind"] == "weights"
    assert {row["action"] for row in thoughts["rows"]} == set(state.legal_actions())
    for row in thoughts["rows"]:
        assert row["value"] == weights[row["cell"][0]][row["cell"][1]]
    assert thoughts["rows"][0]["action"] == thoughts["action"]


def test_undo_takes_back_the_readers_move_and_the_answer():
    ask(cmd="new_game", board="u", game="tictactoe", opponent="random")
    ask(cmd="human_move", board="u", action=0)
    view = ask(cmd="agent_move", board="u")
    assert len(view["actions"]) == 2 and view["can_undo"]
    view = ask(cmd="undo", board="u")
    assert view["actions"] == [] and view["your_turn"] and not view["can_undo"]


def test_othellos_pass_has_no_cell():
    rng = random.Random(0)
    for _ in range(200):
        state = Othello()
        while not state.is_terminal() and state.legal_actions() != [64]:
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            break
    game = webplay.Game("othello", "random", human=state.current_player)
    game.states = [state]
    view = game.view()
    assert view["legal"] == [{"action": 64, "cell": None, "move": state.action_to_string(64)}]


def test_step_shows_the_uct_values_selection_saw_and_the_updates_it_made():
    stepper = webplay.Stepper("tictactoe", seed=1)
    for k in range(1, 60):
        stepper.step()
        view = stepper.view()
        assert view["iterations"] == k and view["root"]["visits"] == k
        assert view["nodes"] == sum(1 for _ in _nodes(stepper.root))
        last = view["last"]
        rewards = last["rewards"]
        for level in last["levels"]:
            chosen = [child for child in level["children"] if child["chosen"]]
            assert len(chosen) == 1
            (child,) = chosen
            wins, visits = child["before"]
            assert child["after"][1] == visits + 1
            assert math.isclose(child["after"][0], wins + rewards[child["player"]], abs_tol=1e-9)
            if level["by"] == "uct":  # the chosen child had the highest UCT value
                values = [_value(ch["uct"]) for ch in level["children"]]
                assert _value(child["uct"]) == max(values)
            else:
                assert child["new"] and visits == 0
    assert len(last["path"]) >= 2  # after 60 iterations the tree is more than one level deep


def test_step_from_a_position_given_by_its_moves():
    view = ask(cmd="step_new", board="s", game="connect4", moves=[3, 3, 3])
    assert view["cells"].count(-1) == 42 - 3 and view["to_move"] == 1
    view = ask(cmd="step", board="s", count=25)
    assert view["iterations"] == 25 and sum(ch["visits"] for ch in view["root_children"]) == 25


def test_webplay_imports_and_plays_without_numpy():
    # Pyodide's offline core has no numpy: the page must run on the standard library alone.
    code = (
        "import json\n"
        "from mcts_course import webplay\n"
        "for game in ('tictactoe', 'connect4', 'othello'):\n"
        "    for spec in ('random', 'cellscore', 'alphabeta:depth=2', 'montecarlo:playouts=10',\n"
        "                 'mcts:iterations=30'):\n"
        "        r = webplay.handle(json.dumps({'cmd': 'new_game', 'game': game,\n"
        "                                        'opponent': spec, 'human': 1}))\n"
        "        r = json.loads(webplay.handle(json.dumps({'cmd': 'agent_move'})))\n"
        "        assert r['ok'], (game, spec, r)\n"
        "    webplay.handle(json.dumps({'cmd': 'step_new', 'game': game}))\n"
        "    assert json.loads(webplay.handle(json.dumps({'cmd': 'step', 'count': 5})))['ok']\n"
        "assert 'numpy' not in sys.modules\n"
    )
    done = run_without_numpy(code)
    assert done.returncode == 0, done.stderr[-2000:]


def _nodes(node):
    yield node
    for child in node.children.values():
        yield from _nodes(child)


def _value(uct) -> float:
    return math.inf if uct == "inf" else uct


@pytest.mark.parametrize("game", ["othello", "tictactoe"])
def test_the_board_coordinates_spell_every_cells_move(game):
    """A move named in the thoughts table ("b2") is found on the board by its coordinates."""
    view = ask(cmd="new_game", board="coords", game=game, opponent="random")
    state = start_state(game)
    for row in range(view["rows"]):
        for col in range(view["cols"]):
            name = view["col_labels"][col] + view["row_labels"][row]
            assert name == state.action_to_string(state.action_at(row, col))


def test_connect_four_names_its_columns_only():
    view = ask(cmd="new_game", board="coords4", game="connect4", opponent="random")
    state = start_state("connect4")
    assert view["col_labels"] == [state.action_to_string(c) for c in range(state.COLS)]
    assert view["row_labels"] == []
