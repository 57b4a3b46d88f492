"""A fourth game, defined only in the tests (helpers.TicTacToe4), through every layer.

Nothing outside its class and its registration in ``GAMES`` (the ``fourth_game`` fixture)
knows about it: agents, arena, pictures, widget and command line must work as they are.
"""

from __future__ import annotations

import io
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from helpers import Dice, TicTacToe4

from mcts_course.agents import AGENT_SPECS, make_agent
from mcts_course.agents.evaluation import EVALUATIONS
from mcts_course.arena import match, play_game
from mcts_course.cli import main
from mcts_course.games import game_class, start_state
from mcts_course.render import draw_board, game_html, search_overlay, state_png

SPECS = {
    "random": "random:seed=1",
    "cellscore": "cellscore",
    "minimax": "minimax:depth=1",
    "alphabeta": "alphabeta:depth=2",
    "montecarlo": "montecarlo:playouts=32,policy=ucb1,seed=1",
    "mcts": "mcts:iterations=60,seed=1",
    "mcts-solver": "mcts-solver:iterations=60,seed=1",
    "puct": "puct:iterations=60,seed=1",
    "endgame": "endgame:seed=1",
}
# Agents made for one game: on another they must refuse clearly, not play nonsense.
ONE_GAME_ONLY = {"endgame": "Othello only"}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_it_is_registered_like_the_others(fourth_game):
    assert game_class("tictactoe4") is fourth_game
    assert start_state("tictactoe4") == fourth_game()


@pytest.mark.parametrize("name", list(AGENT_SPECS))
def test_every_agent_plays_it(name):
    agent = make_agent(SPECS[name])
    if name in ONE_GAME_ONLY:
        with pytest.raises(ValueError, match=ONE_GAME_ONLY[name]):
            agent.select_action(TicTacToe4())
        return
    record = play_game(TicTacToe4, agent, Dice())
    assert record.final.is_terminal()
    assert record.replay() == record.states


def test_the_agents_see_a_win_in_one():
    state = TicTacToe4.from_moves("a1 a2 b1 b2 c1 c2")  # X: d1 completes row 1
    for name in ("minimax", "alphabeta", "mcts", "montecarlo"):
        assert state.action_to_string(make_agent(SPECS[name]).select_action(state)) == "d1"
    for evaluate in EVALUATIONS.values():
        assert evaluate(state.play(state.parse_action("d1")), 0) > 0


def test_cell_weights_come_from_the_line_length():
    # On a 4x4 board with lines of 4: a corner lies on 3 lines, a centre cell on 3, an edge on 2.
    assert TicTacToe4.cell_weights() == ((3, 2, 2, 3), (2, 3, 3, 2), (2, 3, 3, 2), (3, 2, 2, 3))
    assert make_agent("cellscore").select_action(TicTacToe4()) == 0  # a corner, the first


def test_a_seeded_match_repeats():
    a, b = make_agent("mcts:iterations=30"), make_agent("random")
    first = match(TicTacToe4, a, b, games=4, seed=3, n_jobs=1, progress=False)
    again = match(TicTacToe4, a, b, games=4, seed=3, n_jobs=1, progress=False)
    assert first.returns == again.returns and first.game == "tictactoe4"
    assert first.record(1).final.is_terminal()


def test_pictures():
    state = TicTacToe4.from_moves("a1 a2 b1 b2 c1 c2 d1")  # X wins on row 1
    ax = draw_board(state, last_action=3)
    gids = [artist.get_gid() for artist in ax.get_children()]
    assert gids.count("disc-0") == 4 and gids.count("disc-1") == 3
    assert "win-line" in gids and "last-move" in gids
    assert ax.get_title() == "X wins"
    agent = make_agent("mcts:iterations=40,seed=0")
    agent.select_action(TicTacToe4())
    overlay = draw_board(TicTacToe4(), overlay=search_overlay(agent.last_root))
    assert [a.get_gid() for a in overlay.get_children()].count("overlay") == 16
    assert state_png(state)[:4] == b"\x89PNG" and state._repr_png_()[:4] == b"\x89PNG"
    grid = draw_board(TicTacToe4(), overlay=np.arange(16.0).reshape(4, 4))
    assert [a.get_gid() for a in grid.get_children()].count("overlay") == 16
    record = play_game(TicTacToe4, Dice(), Dice())
    page = game_html(record, shrink=False)
    page = getattr(page, "data", page)  # IPython's HTML object, or the text itself
    assert page.count("data:image/png;base64") == len(record.states)  # a frame per state


def test_the_widget():
    pytest.importorskip("ipywidgets")
    from mcts_course.widgets import PlayWidget

    widget = PlayWidget(TicTacToe4, "random:seed=2")
    assert len(widget.buttons) == 16
    widget.buttons[5].click()  # b2
    assert widget.history[0] == 5 and len(widget.history) == 2
    assert widget.buttons[5].description == "X"


def test_the_command_line(fourth_game, capsys, monkeypatch):
    assert main(["perft", "tictactoe4", "2"]) == 0
    assert capsys.readouterr().out.strip() == str(16 * 15)
    assert (
        main(
            ["match", "tictactoe4", "mcts:iterations=20", "random", "--games", "2", "--no-progress"]
        )
        == 0
    )
    assert "tictactoe4" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("a1\nzz\nb1\nquit\n"))
    assert main(["play", "tictactoe4", "--opponent", "random", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "your move (e.g. a1)" in out and "Game abandoned" in out
