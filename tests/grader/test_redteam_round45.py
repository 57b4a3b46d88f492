"""Red team round 45: the question at a test's start (the student's process lets go of what the
last test gave it) ran in pytest's setup of the test, outside its verdict: a stall there, "timed
out under load", was a plain failed test with the grader's traceback, the row "graded" (06).
And the copy check missed a copy that only added a decorator, or moved a table into a class (04)."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from mcts_course.grading.clock import UNDER_LOAD
from mcts_course.grading.copies import library_copy
from mcts_course.grading.process import StudentGone, StudentProcess
from mcts_course.grading.proxies import RELEASE, Connection
from mcts_course.grading.runner import SetRun, verdict


class Stalled(StudentProcess):
    """A student's process whose release stalls past the backstop."""

    def __init__(self) -> None:  # no process: only what a test's start asks of it
        self.asked: list[str] = []

    def alive(self) -> bool:
        return True

    def exchange(self, message, budget, callback, function):
        self.asked.append(function)
        raise StudentGone(function, "22 s went by and your code had used only 0.0 s", UNDER_LOAD)


def test_06_a_stall_as_a_test_begins_is_the_tests_first_answer():
    transport = Stalled()
    connection = Connection(transport)
    connection.begin_test(3.0)  # in pytest's setup: nothing raised here
    assert transport.asked == [RELEASE]
    with pytest.raises(StudentGone) as gone:
        connection.request({"op": "call"}, "ucb1_choice")
    assert gone.value.kind == UNDER_LOAD and gone.value.function == RELEASE
    assert transport.asked == [RELEASE]  # nothing more asked of a process that is gone


STALL = """

import time as _time


class _Slow:
    def __del__(self):
        _time.sleep(60)  # what a stalled machine looks like to the grader: no CPU used


_kept = []
_reference_softmax = softmax_choice


def softmax_choice(*args, **kwargs):
    if not _kept:
        _kept.append(1)
        return _Slow()  # kept by the student's process until the next test lets it go
    return _reference_softmax(*args, **kwargs)
"""


def test_06_a_stall_as_a_test_begins_is_not_a_grade(tmp_path):
    from grading_fixtures.shared_folders import SOLUTIONS

    from mcts_course.cli import main

    sub = tmp_path / "stall"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + STALL)
    out = tmp_path / "o"
    code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits"])
    assert code == 1  # a run in doubt: the batch says so
    row = (out / "grades.csv").read_text().splitlines()[1]
    assert ",not graded," in row or "under load" in row, row
    tests = json.loads((out / "stall" / "results.json").read_text())["tests"]
    stalled = [t["output"] for t in tests if RELEASE in t["output"]]
    assert stalled and all("This is not a grade" in o for o in stalled), tests
    assert not any("SubRequest" in t["output"] or "Traceback" in t["output"] for t in tests)


FAULT = """
import errno

from mcts_course.grading import process


def _start(self):
    raise OSError(errno.EAGAIN, "Resource temporarily unavailable")


process.StudentProcess.start = _start
"""


def test_06_a_grader_fault_starting_the_process_is_no_failed_test(tmp_path):
    """Any other error of the grader's own as the `student` fixture started the process was,
    like the release's, a plain failure in the test's setup: 0 points with the grader's
    traceback as feedback, pytest's exit 1, which a batch reads as "graded"."""
    import subprocess
    import sys

    from grading_fixtures.shared_folders import SOLUTIONS

    (tmp_path / "fault.py").write_text(FAULT)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    command = [sys.executable, "-m", "pytest", "-p", "fault", "--pyargs", "mcts_course.grading"]
    done = subprocess.run(
        [*command, "--submission", str(sub), "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == pytest.ExitCode.INTERNAL_ERROR, done.stdout[-3000:]
    assert "grader error while starting bandits: BlockingIOError" in done.stdout
    assert "SubRequest" not in done.stdout  # no traceback of the grader's fixture


class Slow(Stalled):
    """A student's process whose release uses up the test's whole time."""

    def exchange(self, message, budget, callback, function):
        self.asked.append(function)
        return {"ok": None}, budget + 1.0


def test_06_a_release_that_used_up_the_time_is_told_on_the_release():
    transport = Slow()
    connection = Connection(transport)
    connection.begin_test(2.0)
    with pytest.raises(StudentGone) as gone:
        connection.request({"op": "call"}, "ucb1_choice")
    assert gone.value.function == RELEASE and gone.value.questions == 1
    assert transport.asked == [RELEASE]  # ucb1_choice was never asked: it is not blamed
    run = SetRun("bandits", start=None)
    status, message = verdict(run, connection, gone.value, "", 2.0)
    assert status == "timed out" and "over 1 question, the last to your `release" in message
    assert run.broken == {RELEASE: "timed out"}


# -- 04: free edits the copy check did not see through ---------------------------------------
FOUR = """
def lines4(b):
    l0, l1, l2, l3 = _LANES
    return bool(b * l0 & b * l1 & b * l2 & b * l3)
"""
LANES = (
    "_LANES = tuple(sum(1 << 80 * k + 24 - j * d for k, d in enumerate(_DIRECTIONS))"
    " for j in range(4))"
)


def test_04_a_copy_with_a_decorator_is_still_a_copy():
    decorated = "class Rules:\n    @staticmethod" + textwrap.indent(FOUR, "    ")
    found = str(library_copy(decorated, "connect4"))
    assert "lines4 (a copy of mcts_course.games.connect4.four_in_a_row)" in found
    changed = decorated.replace("b * l3)", "b * l3 & 1)")  # one change of code is code of one's own
    assert library_copy(changed, "connect4") is None


@pytest.mark.parametrize("where", ["class Rules:\n    {}", "if True:\n    {}", "{}"])
def test_04_a_table_is_compared_wherever_it_sits_outside_a_function(where):
    found = str(library_copy(where.format(LANES), "connect4"))
    assert "_LANES (a copy of mcts_course.games.connect4._LANES)" in found
    own = where.format(LANES.replace("range(4)", "range(5)"))
    assert library_copy(own, "connect4") is None
    inside = "def lanes():\n    " + LANES + "\n    return _LANES\n"
    assert library_copy(inside, "connect4") is None  # a function's own line: not compared alone
