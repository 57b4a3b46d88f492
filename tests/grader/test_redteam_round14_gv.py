"""Red team 14, 01: in a batch, when submission A's held-back phase ended showed in when
submission B's run started (or how long B's visible phase waited at the gate), and B's code
could print the clock into its visible feedback: a held-back test's length depends on its hidden
inputs.  A batch now grades each submission in two runs, the visible tests, then the held-back
ones (the plugin's ``--phase``), every visible run of the batch before any held-back run, and
merges the two into the one results.json of before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from grading_fixtures.batches import honest, impostor, private

from mcts_course.cli import main
from mcts_course.grading.report import (
    HELD_BACK_TESTS,
    HELPER_FILES,
    HELPERS_NOTE,
    helpers_note,
    merge_results,
)
from mcts_course.grading.sandbox import MEMORY_MB

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")

ORDER_ENV = "MCTS_TEST_PHASE_ORDER"  # the file the instructor's tests below append to
KEEP = ["--exercise-set=bandits", "-k", "ucb1 or marker"]

# The instructor's tests: a visible and a held-back one that write down when they start (the
# grader's process runs them, not the student's), and ask the student's code a question.
MARKERS = f'''import os

import pytest


def _mark(phase, student, request):
    graded = os.path.basename(os.path.normpath(request.config.getoption("submission")))
    with open(os.environ["{ORDER_ENV}"], "a") as f:
        f.write(phase + " " + graded + "\\n")
    return student.ucb1_choice([4, 4], [2.7182, 1.0], 0.0) == 0


@pytest.mark.points(1, exercise="bandits_seen", exercise_set="bandits", visibility="visible")
def test_marker_visible(student, request):
    assert _mark("visible", student, request)


@pytest.mark.points(2, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_marker_held_back(student, request):
    assert _mark("held back", student, request)
'''


def _tests(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "hidden"
    folder.mkdir()
    (folder / "test_markers.py").write_text(MARKERS + extra)
    return folder


def _batch(tmp_path: Path) -> tuple[Path, Path]:
    subs = private(tmp_path / "subs")
    return honest(subs / "alice"), impostor(subs / "bob")


def _comparable(data: dict) -> dict:
    """A results.json without what differs from run to run (times, the path graded)."""
    tests = [
        {
            **t,
            "extra_data": {
                k: v for k, v in t["extra_data"].items() if k not in ("seconds", "student_seconds")
            },
        }
        for t in data["tests"]
    ]
    extra = {k: v for k, v in data["extra_data"].items() if k not in ("submission",)}
    return {**{k: v for k, v in data.items() if k != "execution_time"}, "tests": tests} | {
        "extra_data": extra
    }


def test_every_visible_test_of_a_batch_starts_before_any_held_back_test(tmp_path, monkeypatch):
    """Three submissions: with one job, each run used to end with its held-back tests before
    the next submission's visible ones began.  Then the same grading in one run per
    submission, as before: the merged results.json is the one run's."""
    from mcts_grader import batch

    order = tmp_path / "order.txt"
    order.touch(mode=0o666)  # the tests write as the grader (root), whatever the mode
    monkeypatch.setenv(ORDER_ENV, str(order))
    tests = _tests(tmp_path)
    alice, bob = _batch(tmp_path)
    carol = honest(tmp_path / "subs" / "carol")
    out = tmp_path / "out"
    status = main(
        ["grade", str(alice), str(bob), str(carol), "--out", str(out), "--tests", str(tests)]
        + ["--jobs", "1", *KEEP]
    )
    assert status == 0
    names = ("alice", "bob", "carol")
    # (the pre-run on the reference solutions wrote its own marks first)
    marks = [m for m in order.read_text().splitlines() if m.split()[-1] in names]
    assert sorted(marks[:3]) == [f"visible {n}" for n in names], marks
    assert sorted(marks[3:]) == [f"held back {n}" for n in names], marks
    graded = {s.name: json.loads((out / s.name / "results.json").read_text()) for s in (alice, bob)}
    assert graded["alice"]["score"] > graded["bob"]["score"] == 0
    log = (out / "alice" / "pytest.log").read_text()
    assert batch.HELD_BACK_LOG in log  # both runs' output, for the instructor
    # the same submissions in one run each (the grader before the phases): the same results
    options = ["-q", "--timeout-scale", "1.0", "--memory-mb", str(MEMORY_MB), *KEEP]
    with batch._batch_env() as (scratch, env):
        copied = batch.hidden_copy([tests], scratch / "hidden")  # as grade runs them
        for number, sub in enumerate((alice, bob)):
            one, _ = batch.run_one(sub, scratch / str(number), copied, options, env)
            one = batch.with_student_output(one)
            assert HELD_BACK_TESTS not in graded[sub.name]["extra_data"]
            assert _comparable(graded[sub.name]) == _comparable(one)
            assert [t["visibility"] for t in one["tests"]][-1] == "hidden"


def test_a_held_back_run_that_ends_without_results_is_a_failure(tmp_path, monkeypatch):
    """Alice's held-back run exits 0 without writing its results (a test that ends the
    grader's process): the submission's status says it crashed, with its visible tests' points, and
    grade exits 1; never a grade that quietly lacks the held-back tests."""
    monkeypatch.setenv(ORDER_ENV, str(tmp_path / "order.txt"))
    ends = """

@pytest.mark.points(1, exercise="bandits_gone", exercise_set="bandits", visibility="hidden")
def test_marker_ends_the_run(student, request):
    if request.config.getoption("submission").rstrip("/").endswith("alice"):
        os._exit(0)  # not on the reference solutions (the pre-run): on alice's
    assert _mark("held back", student, request)
"""
    tests = _tests(tmp_path, ends)
    alice = honest(private(tmp_path / "subs") / "alice")
    out = tmp_path / "out"
    status = main(["grade", str(alice), "--out", str(out), "--tests", str(tests), *KEEP])
    assert status == 1
    data = json.loads((out / "alice" / "results.json").read_text())
    assert data["extra_data"]["status"] == "crashed"
    assert data["tests"] and all(t["visibility"] == "visible" for t in data["tests"])
    with open(out / "grades.csv", newline="") as f:
        assert "crashed" in f.read()


# -- the merge, on its own -------------------------------------------------------------------
def _run(tests: list[dict], status: str = "graded", **extra) -> dict:
    return {
        "score": float(sum(t["score"] for t in tests)),
        "execution_time": 7,
        "output": "",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"files": {"bandits": "b.py"}, "status": status, **extra},
    }


def _test(name: str, score: float, visibility: str = "visible") -> dict:
    return {
        "name": f"[bandits_x] {name}",
        "number": "1",
        "score": score,
        "max_score": 1.0,
        "status": "passed" if score else "failed",
        "output": "",
        "output_format": "text",
        "visibility": visibility,
        "tags": ["bandits_x"],
        "extra_data": {"status": "passed" if score else "failed", "test": name, "seconds": 0.1},
    }


def test_the_merge_numbers_on_and_keeps_the_first_runs_time_and_notes():
    first = _run(
        [_test("a", 1.0)],
        notes=[helpers_note(["h.py"])],
        **{HELD_BACK_TESTS: 1, HELPER_FILES: ["h.py"]},
    )
    first["extra_data"]["confinement"] = "visible processes'"
    second = _run([_test("s", 0.0, "hidden")], under_load=["s"], **{HELD_BACK_TESTS: 1})
    # what the sweeps removed after the held-back process is never the student's to read
    second["extra_data"].update(confinement="held back", swept={"/tmp": 3}, sweep_incomplete="x")
    second["execution_time"] = 99
    data = merge_results(first, second)
    assert [t["number"] for t in data["tests"]] == ["1", "2"]
    assert data["score"] == 1.0 and data["execution_time"] == 7
    # the held-back test stopped under load: not its name (red team 21, 11), only that one was
    assert data["extra_data"]["under_load"] == ["a held-back test"]
    assert HELD_BACK_TESTS not in data["extra_data"]
    assert data["extra_data"]["confinement"] == "visible processes'"
    assert "swept" not in data["extra_data"] and data["extra_data"]["sweep_incomplete"] == "x"
    notes = data["extra_data"]["notes"]
    assert notes[0] == HELPERS_NOTE + '"h.py"' and notes[1].startswith("1 test(s) stopped")


@pytest.mark.parametrize("failure", ["crashed", "killed", "timed out"])
def test_a_failure_of_either_run_is_the_submissions(failure):
    from mcts_grader.batch import merge_phases

    visible = _run([_test("a", 1.0)], **{HELD_BACK_TESTS: 1})
    held = _run([_test("s", 1.0, "hidden")], **{HELD_BACK_TESTS: 1})
    second = {**held, "extra_data": {**held["extra_data"], "status": failure}}
    assert merge_phases((visible, ""), (second, ""))[0]["extra_data"]["status"] == failure
    visible["extra_data"]["status"] = failure
    held["extra_data"]["status"] = "graded"
    assert merge_phases((visible, ""), (held, ""))[0]["extra_data"]["status"] == failure


def test_a_held_back_run_missing_tests_or_never_run_is_no_grade():
    from mcts_grader.batch import merge_phases

    visible = _run([_test("a", 1.0)], **{HELD_BACK_TESTS: 2})
    held = _run([_test("s", 1.0, "hidden")], **{HELD_BACK_TESTS: 1})  # other tests than counted
    assert merge_phases((visible, ""), (held, ""))[0]["extra_data"]["status"] == "crashed"
    # the batch stopped before the held-back run: not a grade
    assert merge_phases((visible, ""), None)[0]["extra_data"]["status"] == "not graded"
    # no held-back test at all: the one run is the grade
    alone = _run([_test("a", 1.0)], **{HELD_BACK_TESTS: 0})
    data, _ = merge_phases((alone, ""), None)
    assert data["extra_data"]["status"] == "graded" and HELD_BACK_TESTS not in data["extra_data"]
