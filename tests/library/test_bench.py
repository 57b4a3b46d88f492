"""The benchmark harness: its baseline engine is correct, and it reports what it measured."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from mcts_course.bench import ListOthello, Measurement, format_table, run


def list_perft(game: ListOthello, depth: int, passes: int = 0) -> int:
    if depth == 0 or passes == 2:
        return 1
    moves = game.legal_moves()
    total = 0
    for move in moves or [None]:
        child = game.copy()
        child.play(move)
        total += list_perft(child, depth - 1, 0 if move else passes + 1)
    return total


def test_list_of_lists_baseline_is_a_correct_othello():
    # Published perft counts: the speed comparison is between two correct engines.
    assert [list_perft(ListOthello(), d) for d in range(1, 6)] == [4, 12, 56, 244, 1396]
    score = ListOthello().rollout(random.Random(0))
    assert -64 <= score <= 64


def test_run_measures_every_workload_and_formats_ratios():
    results = run(rounds=1, min_seconds=0.01, mcts=False)
    names = [m.workload for m in results]
    assert names[:3] == ["othello rollouts", "connect4 rollouts", "tictactoe rollouts"]
    assert "othello batched rollouts" in names
    assert all(m.ours > 0 for m in results)
    baseline = results[-1]
    assert baseline.peer_name == "list-of-lists Othello" and baseline.ratio > 0
    table = format_table(results)
    assert "list-of-lists Othello" in table and "x" in table


def test_ratio_and_target_marks():
    m = Measurement("w", "games/s", ours=300.0, peer_name="p", peer=100.0, target=2.0)
    assert m.ratio == 3.0 and "ok" in format_table([m])
    m.target = 5.0
    assert "BELOW" in format_table([m])
    assert Measurement("w", "games/s", ours=1.0).ratio is None


def test_cli_bench_json():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcts_course",
            "bench",
            "--json",
            "--rounds",
            "1",
            "--seconds",
            "0.01",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(out.stdout)
    assert {"workload", "ours", "peer", "ratio", "target"} <= set(rows[0])


def test_cli_bench_bad_argument_is_one_line_and_status_2():
    out = subprocess.run(
        [sys.executable, "-m", "mcts_course", "bench", "--rounds", "0"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr
