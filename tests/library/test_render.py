"""Pictures: every game draws (start, middle, end, overlays); the drawing matches the board."""

import base64
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from helpers import FirstLegal

from mcts_course.arena import play_game
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe
from mcts_course.render import (
    animate_game,
    draw_board,
    game_html,
    search_overlay,
    state_png,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def artists(ax, gid):
    return [a for a in [*ax.patches, *ax.lines] if a.get_gid() == gid]


def positions():
    """(state, last action) for each game: the start, a middle position and a finished game."""
    final = {
        g: play_game(g(), FirstLegal(), FirstLegal()) for g in (TicTacToe, ConnectFour, Othello)
    }
    return [
        (Othello(), None),
        (Othello.from_moves("d3 c5 f6 f5 e6 e3"), Othello().parse_action("e3")),
        (final[Othello].final, final[Othello].moves[-1]),
        (TicTacToe(), None),
        (TicTacToe.from_moves("b2 a1 c3"), 8),
        (final[TicTacToe].final, final[TicTacToe].moves[-1]),
        (ConnectFour(), None),
        (ConnectFour.from_moves("4 4 3"), 2),
        (final[ConnectFour].final, final[ConnectFour].moves[-1]),
    ]


@pytest.mark.parametrize(("state", "last"), positions())
def test_drawn_pieces_match_the_board(state, last):
    ax = draw_board(state, last_action=last)
    board = np.array(state.board())
    for player in (0, 1):
        assert len(artists(ax, f"disc-{player}")) == (board == player).sum()
    legal = [a for a in state.legal_actions() if a != PASS]
    assert len(artists(ax, "legal")) == len(legal)
    assert len(artists(ax, "last-move")) == (last is not None)
    assert ax.get_title()  # whose move it is, or the result


@pytest.mark.parametrize(("state", "last"), positions())
def test_overlays_draw_one_coloured_cell_per_value_with_a_colour_bar(state, last):
    overlay = {a: 10 * i for i, a in enumerate(state.legal_actions())}
    ax = draw_board(state, last_action=last, overlay=overlay, label="visits")
    shown = [a for a in overlay if a != PASS]
    assert len(artists(ax, "overlay")) == len(shown)  # Connect Four: boxes above the columns
    texts = {t.get_text() for t in ax.texts}
    assert all(f"{10 * i}" in texts for i, a in enumerate(overlay) if a != PASS)
    if shown:
        assert len(ax.figure.axes) == 2  # the board and the colour bar


def test_overlay_as_array_and_per_cell_in_connect_four():
    values = np.arange(42, dtype=float).reshape(6, 7) / 42
    ax = draw_board(ConnectFour.from_moves("4 4"), overlay=values, fmt="{:.0%}")
    texts = {t.get_text() for t in ax.texts}
    assert "98%" in texts  # 41/42 in the top-right hole, which is empty
    ax = draw_board(Othello(), overlay=np.ones((8, 8)))
    assert len(artists(ax, "overlay")) == 64
    with pytest.raises(ValueError, match="overlay"):
        draw_board(Othello(), overlay=np.ones(5))


def test_othello_forced_pass_and_winning_lines_are_shown():
    record = play_game(TicTacToe(), FirstLegal(), FirstLegal())  # X wins on a diagonal
    assert len(artists(draw_board(record.final), "win-line")) == 1
    assert draw_board(record.final).get_title() == "X wins"
    for state in _othello_states():
        if state.legal_actions() == [PASS]:
            assert "must pass" in draw_board(state).get_title()
            return
    pytest.fail("no forced pass found")


def _othello_states():
    import random

    for seed in range(300):
        rng, state = random.Random(seed), Othello()
        while not state.is_terminal():
            yield state
            state = state.play(rng.choice(state.legal_actions()))


def test_draw_board_uses_a_given_axes_and_title():
    fig, (left, right) = plt.subplots(1, 2)
    assert draw_board(TicTacToe(), ax=right, title="") is right
    assert right.get_title() == "" and not left.patches


def test_states_show_as_png_pictures():
    for state in (Othello(), TicTacToe(), ConnectFour.from_moves("1 2 3")):
        data = state._repr_png_()
        assert data.startswith(PNG) and len(data) > 1000
    assert state_png(Othello(), overlay={19: 1}).startswith(PNG)


def frames_of(page):
    found = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=\\\n]+)", page)
    return [base64.b64decode(frame.replace("\\\n", "")) for frame in found]


def test_animation_has_one_frame_per_state_and_plays_as_html():
    record = play_game(TicTacToe(), FirstLegal(), FirstLegal())
    animation = animate_game(record, interval=100, dpi=40)
    assert len(list(animation.new_frame_seq())) == len(record.states) == 8
    frames = frames_of(animation.to_jshtml())
    assert len(frames) == len(record.states) and frames[-1].startswith(PNG)
    page = game_html(record, dpi=40)  # frames re-encoded with a small palette
    page = page if isinstance(page, str) else page.data
    small = frames_of(page)
    assert len(small) == len(frames) and all(f.startswith(PNG) for f in small)
    assert sum(map(len, small)) < sum(map(len, frames))


def test_game_player_loads_nothing_from_another_host():
    """matplotlib's player asks a CDN for Font Awesome; the book's copy must not (offline: blank
    buttons), and each of its nine buttons still shows a character."""
    record = play_game(TicTacToe(), FirstLegal(), FirstLegal())
    raw = animate_game(record, dpi=40).to_jshtml(default_mode="once")
    assert "font-awesome" in raw  # what the replacement is for, while matplotlib does it
    page = game_html(record, dpi=40)
    page = page if isinstance(page, str) else page.data
    assert "http://" not in page and "https://" not in page
    assert 'class="fa' not in page
    labels = re.findall(r"<button[^>]*>\s*<span>([^<]+)</span>\s*</button>", page)
    assert len(labels) == 9 and "?" not in labels


def test_search_overlay_reads_visits_and_means():
    class Node:
        def __init__(self, visits, wins, children=None):
            self.visits, self.wins, self.children = visits, wins, children or {}

    root = Node(10, 5, {19: Node(6, 4.5), 26: Node(4, 1.0), 37: Node(0, 0)})
    assert search_overlay(root) == {19: 6, 26: 4, 37: 0}
    assert search_overlay(root, "mean") == {19: 0.75, 26: 0.25}


def test_a_board_in_a_subfigure_is_scaled_to_the_subfigure():
    # An axes of a SubFigure has its position relative to the subfigure (and a SubFigure has no
    # figure size of its own): the board there is drawn like one in a figure of that size.
    fig = plt.figure(figsize=(8.6, 4.3))
    left, _ = fig.subfigures(1, 2)
    ax = draw_board(Othello(), left.add_subplot(), title="")
    alone = draw_board(Othello(), plt.subplots(figsize=(4.3, 4.3))[1], title="")
    assert len(artists(ax, "disc-0")) == 2
    sizes = [[t.get_fontsize() for t in a.texts] for a in (ax, alone)]
    assert sizes[0] == pytest.approx(sizes[1])
