"""Mismatched names on the command line (an unknown agent or game, a spec that does not fit
the game, a bad value) end in one line and status 2: no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcts_course.cli import main

CASES = [
    ["match", "othello", "nosuchagent", "random"],
    ["match", "othello", "random"],  # the second agent forgotten
    ["match", "nosuchgame", "random", "random"],
    ["match", "tictactoe", "endgame", "random"],  # an Othello-only agent
    ["match", "connect4", "mcts:iterations=5,endgame=3", "random"],
    ["match", "tictactoe", "mcts-solver:iterations=5,endgame=4", "random"],
    ["match", "othello", "mcts:nosuchoption=3", "random"],
    ["match", "othello", "alphabeta:depth=x", "random"],
    ["match", "othello", "mcts:iterations=-5", "random"],
    ["match", "othello", "minimax:eval=nosuch", "random"],
    ["match", "othello", "random", "random", "--games", "x"],
    ["play", "tictactoe", "--opponent", "endgame"],
    ["play", "connect4", "--opponent", "nosuch"],
    ["play", "nosuchgame"],
    ["perft", "nosuchgame"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_a_mismatched_name_is_one_line_and_status_2(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        status = main(argv)
        raise SystemExit(status)
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("mcts-course") and "error" in err


def test_the_installed_command_prints_no_traceback():
    done = subprocess.run(
        [sys.executable, "-m", "mcts_course", "match", "tictactoe", "endgame", "random"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Othello only" in done.stderr


def test_an_othello_endgame_spec_still_plays_othello(capsys):
    assert main(["match", "othello", "mcts:iterations=3,endgame=2", "random", "--games", "2"]) == 0
