"""Fixtures shared by the tests (the helpers themselves are in helpers.py)."""

from __future__ import annotations

import pytest
from helpers import TicTacToe4

from mcts_course.games import GAMES


def pytest_collection_modifyitems(config, items):
    """A hung test fails after 10 minutes (with pytest-timeout, which the test extra installs)."""
    if config.pluginmanager.hasplugin("timeout"):
        for item in items:
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(600))


@pytest.fixture
def fourth_game(monkeypatch):
    """TicTacToe4 registered as a game for the duration of a test (and only then)."""
    monkeypatch.setitem(GAMES, TicTacToe4.NAME, TicTacToe4)
    return TicTacToe4
