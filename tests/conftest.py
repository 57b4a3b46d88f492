"""Fixtures shared by the tests (the helpers themselves are in helpers.py)."""

from __future__ import annotations

import pytest
from helpers import TicTacToe4

from mcts_course.games import GAMES


@pytest.fixture
def fourth_game(monkeypatch):
    """TicTacToe4 registered as a game for the duration of a test (and only then)."""
    monkeypatch.setitem(GAMES, TicTacToe4.NAME, TicTacToe4)
    return TicTacToe4
