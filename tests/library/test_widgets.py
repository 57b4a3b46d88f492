"""The click-to-play board: simulated clicks (Button.click runs the real click handlers)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from mcts_course.agents import MCTSAgent, RandomAgent
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe
from mcts_course.widgets import PlayWidget, visit_counts


def click(widget: PlayWidget, row: int, col: int) -> None:
    widget.buttons[row * widget.state.COLS + col].click()


def test_click_plays_the_cell_and_the_agent_answers():
    widget = PlayWidget("tictactoe", RandomAgent(seed=1))
    assert widget.state == TicTacToe()
    click(widget, 1, 1)  # b2, the centre
    assert widget.history[0] == 4
    assert len(widget.history) == 2  # X's move and the agent's answer
    assert widget.state.current_player == 0
    assert widget.buttons[4].description == "X"
    agent_cell = widget.history[1]
    assert widget.buttons[agent_cell].description == "O"


def test_illegal_click_changes_nothing():
    widget = PlayWidget("tictactoe", RandomAgent(seed=2))
    click(widget, 0, 0)
    taken = widget.history[1]  # the agent's cell
    before = widget.state
    click(widget, *divmod(taken, 3))
    assert widget.state == before
    assert "not legal" in widget.status.value


def test_mcts_visit_counts_are_shown_after_its_move():
    agent = MCTSAgent(iterations=60, seed=3)
    widget = PlayWidget("othello", agent)
    click(widget, 2, 3)  # d3
    assert widget.history[0] == Othello().parse_action("d3")
    counts = visit_counts(agent)
    assert counts is not None
    assert sum(counts.values()) == agent.last_root.visits == 60  # every iteration enters a child
    assert set(counts) == set(Othello.from_moves("d3").legal_actions())
    assert widget.thinking.value[:8] == b"\x89PNG\r\n\x1a\n"  # the picture of the counts
    assert widget.thinking.layout.display is None and widget.no_search.layout.display == "none"
    widget.new_game()  # no search yet: a sentence, not an empty (broken) picture
    assert widget.thinking.layout.display == "none" and widget.no_search.layout.display is None


def test_connect_four_click_anywhere_in_a_column_drops_a_disc():
    widget = PlayWidget("connect4", RandomAgent(seed=4))
    click(widget, 0, 3)  # top cell of column 4: the disc falls to the bottom
    assert widget.history[0] == 3
    assert widget.state.board()[5][3] == 0
    assert widget.buttons[5 * 7 + 3].description == "●"


def test_agent_moves_first_when_the_human_plays_second():
    widget = PlayWidget(ConnectFour, "random:seed=5", human=1)
    assert len(widget.history) == 1
    assert widget.state.current_player == 1


def test_a_whole_game_by_clicks_ends_with_a_result():
    widget = PlayWidget("tictactoe", RandomAgent(seed=6))
    while not widget.state.is_terminal():
        action = widget.state.legal_actions()[0]
        click(widget, *divmod(action, 3))
    assert widget.state.is_terminal()
    assert "wins" in widget.status.value or "Draw" in widget.status.value
    assert "·" not in {b.description for b in widget.buttons}  # no cell offered once it is over
    widget.new_game_button.click()
    assert widget.state == TicTacToe() and widget.history == []


def _position_with_a_forced_pass() -> Othello:
    """A position from seeded random play in which the player to move can only pass."""
    import random

    rng = random.Random(0)
    for _ in range(200):
        state = Othello()
        while not state.is_terminal():
            if state.legal_actions() == [PASS]:
                return state
            state = state.play(rng.choice(state.legal_actions()))
    raise AssertionError("no pass found")


def test_othello_pass_is_played_for_the_human():
    state = _position_with_a_forced_pass()
    widget = PlayWidget(state, RandomAgent(seed=7), human=state.current_player)
    assert widget.history[0] == PASS  # played for the human at once
    assert len(widget.history) >= 2  # ... and the agent answered
    while not widget.state.is_terminal():
        moves = widget.state.legal_actions()
        assert widget.state.current_player == widget.human
        assert moves != [PASS], "a forced pass should have been played for the human"
        click(widget, *divmod(moves[0], 8))
    assert widget.state.is_terminal()


def test_no_cell_is_offered_after_the_agent_wins():
    widget = PlayWidget("tictactoe", MCTSAgent(iterations=300, seed=7))
    while not widget.state.is_terminal():  # the human plays the first free cell, badly
        click(widget, *divmod(widget.state.legal_actions()[0], 3))
    assert widget.state.winner() == 1  # the agent (O) won, with cells left empty
    assert widget.state.current_player == widget.human
    assert "·" not in {b.description for b in widget.buttons}
