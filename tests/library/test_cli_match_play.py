"""`mcts-course match` and `mcts-course play` from the outside: output, exit status, dialogue."""

import io
import json
import random
import subprocess
import sys

import pytest

from mcts_course.cli import main
from mcts_course.games import PASS, Othello


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "mcts_course", *args], capture_output=True, text=True, timeout=300
    )


MATCH = ["match", "tictactoe", "random", "random", "--games", "10", "--seed", "1", "--json"]


def test_match_json_is_one_line_with_consistent_counts():
    done = run_cli(*MATCH)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["games"] == 10 == data["wins"] + data["draws"] + data["losses"]
    assert data["score"] == pytest.approx((data["wins"] + data["draws"] / 2) / 10)
    lo, hi = data["interval"]
    assert 0 <= lo <= data["score"] <= hi <= 1
    assert data["names"] == ["Random", "Random"]
    by_colour = data["by_colour"].values()
    assert sum(c["games"] for c in by_colour) == 10
    assert sum(c["wins"] for c in by_colour) == data["wins"]


def test_match_output_does_not_depend_on_jobs():
    one, two = run_cli(*MATCH, "--jobs", "1"), run_cli(*MATCH, "--jobs", "2")
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout


def test_match_prints_a_readable_table(capsys):
    assert main(["match", "tictactoe", "cellscore", "random", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "CellScore" in out and "95% interval" in out and "total" in out


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["tictactoe", "nosuchagent", "random"], "mcts"),  # names the valid agents
        (["tictactoe", "random", "mcts:nosuch=1"], "iterations"),  # ... the valid parameters
        (["chess", "random", "random"], "othello"),  # ... the valid games
    ],
)
def test_bad_match_arguments_exit_2_with_one_line(args, named):
    done = run_cli("match", *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert named in done.stderr and "Traceback" not in done.stderr


# -- play ----------------------------------------------------------------------------------------
def play(monkeypatch, capsys, typed, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    status = main(["play", *args])
    return status, capsys.readouterr().out


def test_play_tictactoe_reprompts_on_bad_entries_and_ends_with_a_result(monkeypatch, capsys):
    # "zz" is no cell, the second "b2" is taken; then every cell in turn until the game ends.
    typed = "zz\nb2\nb2\n" + "\n".join(f"{f}{r}" for r in "123" for f in "abc") + "\n"
    status, out = play(
        monkeypatch, capsys, typed, "tictactoe", "--opponent", "random", "--seed", "1"
    )
    assert status == 0
    assert "names no tic-tac-toe cell" in out
    assert "b2 is not a legal move here" in out
    assert out.rstrip().splitlines()[-1] in ("You win!", "You lose.", "Draw.")


def test_play_agent_first_and_quit(monkeypatch, capsys):
    status, out = play(
        monkeypatch,
        capsys,
        "quit\n",
        "connect4",
        "--opponent",
        "random",
        "--first",
        "agent",
        "--seed",
        "2",
    )
    assert status == 0
    assert "Random (Red) plays" in out and "Game abandoned." in out


def test_play_stops_cleanly_at_end_of_input(monkeypatch, capsys):
    status, out = play(monkeypatch, capsys, "d3\n", "othello", "--opponent", "random")
    assert status == 0 and "Game abandoned." in out


def test_play_passes_for_the_human_in_othello(monkeypatch, capsys):
    moves = forced_pass_moves()
    start = " ".join(Othello().action_to_string(m) for m in moves)  # "pass" for a pass
    status, out = play(
        monkeypatch, capsys, "quit\n", "othello", "--opponent", "random", "--start", start
    )
    assert status == 0
    assert "has no legal move and must pass" in out


def forced_pass_moves():
    """The moves of a random Othello game up to a position whose mover must pass."""
    for seed in range(300):
        rng, state, moves = random.Random(seed), Othello(), []
        while not state.is_terminal():
            if state.legal_actions() == [PASS]:
                return moves
            moves.append(rng.choice(state.legal_actions()))
            state = state.play(moves[-1])
    pytest.fail("no forced pass in 300 random games")


def test_bad_opponent_or_start_exit_2(capsys):
    assert main(["play", "othello", "--opponent", "nosuchagent"]) == 2
    assert main(["play", "othello", "--opponent", "random", "--start", "z9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "unknown agent" in err[0] and "bad --start" in err[1]
