"""The command line's contract: counts on stdout, one-line errors with status 2."""

from __future__ import annotations

import subprocess
import sys

import pytest


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcts_course", *args], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("game", "depth", "count"),
    [("tictactoe", "9", "255168"), ("connect4", "5", "16807"), ("othello", "0", "1")],
)
def test_perft_prints_published_counts(game, depth, count):
    out = cli("perft", game, depth)
    assert out.returncode == 0 and out.stdout.strip() == count


@pytest.mark.parametrize(
    "args",
    [
        ["perft", "chess", "3"],
        ["perft", "othello", "x"],
        ["perft", "othello", "-1"],
        ["perft", "othello"],
        ["nonsense"],
        [],
    ],
)
def test_bad_arguments_print_one_line_and_exit_2(args):
    out = cli(*args)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_help_lists_the_subcommands():
    out = cli("--help")
    assert out.returncode == 0 and "perft" in out.stdout and "bench" in out.stdout
