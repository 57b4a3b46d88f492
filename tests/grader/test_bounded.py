"""Every step the grader takes on student data is bounded: answers of a megabyte, answers that
print as gigabytes (one list shared a thousand times), deeply nested answers and answers larger
than the line cap cost their tests and leave the grading (root) pytest process small.

The peak memory of a grading run is read in the process that ran it (``VmHWM`` of
``/proc/self/status`` after ``pytest.main``), for the attack folder and for the reference on
the same exercise set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from grading_fixtures.mutants import build

ATTACK = """
def _megabyte(*args, **kwargs):
    return "x" * (1 << 20)


def _prints_as_gigabytes(*args, **kwargs):
    row = ["z" * 1000] * 1000  # one megabyte of text on the wire...
    return [row] * 4900  # ...printed, 4.9 GB: the same row 4900 times


def _deep(*args, **kwargs):
    value = 0
    for _ in range(199):
        value = [value, "y" * 100]
    return value


def _beyond_the_line_cap(*args, **kwargs):
    return "w" * (20 << 20)


ucb1_choice = _megabyte
epsilon_greedy_choice = _deep
softmax_choice = _beyond_the_line_cap
monte_carlo_move = _prints_as_gigabytes
compare_policies = _prints_as_gigabytes
"""

PEAK = """
import sys, pytest
pytest.main(sys.argv[1:])
peak = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
print("PEAK", peak, file=sys.__stderr__)
"""

GROWTH_CAP_KB = 64 << 10  # the attack's peak over the reference's: 64 MB (it was 9.5-15 GB)


def peak_kb(submission: Path, results: Path) -> int:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK,
            "-q",
            "-p",
            "no:cacheprovider",
            "--pyargs",
            "mcts_course.grading",
            "mcts_grader.tests",  # monte_carlo_move's and compare_policies' tests are the grader's
            "-c",
            os.devnull,
            f"--submission={submission}",
            "--exercise-set=bandits",
            f"--results-json={results}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("PEAK")]
    assert lines, f"the grading run died (status {done.returncode}): {done.stderr[-500:]}"
    return int(lines[0].split()[1])


@pytest.fixture(scope="module")
def peaks(tmp_path_factory):
    base = tmp_path_factory.mktemp("bounded")
    reference = build("reference", base / "reference", files=("bandits",))
    attack = base / "attack"
    attack.mkdir()
    (attack / "bandits.py").write_text(ATTACK)
    return {
        name: (
            peak_kb(folder, base / f"{name}.json"),
            json.loads((base / f"{name}.json").read_text()),
        )
        for name, folder in (("reference", reference), ("attack", attack))
    }


def test_big_answers_leave_the_grader_small(peaks):
    (reference, _), (attack, _) = peaks["reference"], peaks["attack"]
    assert attack - reference < GROWTH_CAP_KB, (reference, attack)


def test_big_answers_earn_nothing_and_say_why_briefly(peaks):
    _, results = peaks["attack"]
    assert results["score"] == 0 and results["tests"]
    for test in results["tests"]:
        assert len(test["output"]) < 25_000, test["name"]
    said = "\n".join(t["output"] for t in results["tests"])
    assert "larger than 8 MB" in said and "too large to grade" in said


def test_the_reference_keeps_full_marks(peaks):
    _, results = peaks["reference"]
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0
