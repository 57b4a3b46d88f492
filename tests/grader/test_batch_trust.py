"""Batches an instructor can trust: a faulty hidden test stops the batch before anyone is graded
(and before a Gradescope zip is written), a run that failed says so and makes `grade` fail,
grading again merges, any folder name is a submission, and the points of hidden tests stay out
of what students see before the due date.  Graded for real (as root: in the sandbox)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from grading_fixtures.mutants import build
from grading_fixtures.points import most
from mcts_grader import batch, gradescope
from mcts_grader.batch import grade
from mcts_grader.feedback import HELD_BACK, due_date_of, shown, student_output
from mcts_grader.vet import BadTests, vet

from mcts_course.cli import main

ROOT = Path(__file__).resolve().parents[2]
BANDITS = ["--exercise-set=bandits"]  # one token: a loose word would be a SUBMISSION

GOOD = '''import pytest


@pytest.mark.points(2, exercise="bandits", hint="with c = 0, UCB1 is greedy")
def test_greedy_arm(student):
    """ucb1_choice with c=0 picks the best mean"""
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1, "expected arm 1"
'''
# Each fault of a hidden test, and a word of the message that must name it.
FAULTY = {
    "fails on the reference": (
        GOOD.replace("== 1", "== 0").replace("test_greedy_arm", "test_wrong_arm"),
        "test_wrong_arm failed on the reference",
    ),
    "does not import": (GOOD.replace("(student):", "(student:"), "does not import"),
    "has no points marker": (
        "def test_unmarked(student):\n    assert student.ucb1_choice([1], [1.0], 0.0) == 0\n",
        "test_unmarked has no @pytest.mark.points",
    ),
    "has a bad marker": (
        GOOD.replace('exercise="bandits"', 'exercise="bandits", visibility="soon"'),
        "test_greedy_arm has a bad marker",
    ),
}


def hidden(folder: Path, text: str = GOOD, name: str = "test_more.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def submissions(base: Path, names: dict[str, str]) -> list[Path]:
    """Folders ``name`` holding the reference ("reference") or the stub ("stub") of bandits.py,
    in a folder only their owner can enter (a batch's submissions, as root)."""
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(base, 0o700)
    paths = []
    for name, kind in names.items():
        if kind == "reference":
            paths.append(build("reference", base / name, files=("bandits",)))
        else:
            (base / name).mkdir()
            shutil.copy(ROOT / "exercises" / "bandits.py", base / name / "bandits.py")
            paths.append(base / name)
    return paths


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        return {row["submission"]: row for row in csv.DictReader(f)}


# -- 1. hidden tests checked against the reference ----------------------------------------
def test_a_good_hidden_test_passes_the_check(tmp_path):
    assert vet([hidden(tmp_path / "hidden")], BANDITS) == 1


@pytest.mark.parametrize("fault", FAULTY)
def test_a_faulty_hidden_test_stops_the_batch_before_anything_is_written(tmp_path, capsys, fault):
    text, named = FAULTY[fault]
    tests = hidden(tmp_path / "hidden", text)
    (sub,) = submissions(tmp_path / "subs", {"alice": "reference"})
    out = tmp_path / "out"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *BANDITS]) == 2
    err = capsys.readouterr().err
    assert named in err and "test_more.py" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()  # no grades.csv, no folder: no student was graded


def test_a_faulty_hidden_test_among_good_ones_is_the_one_named(tmp_path):
    tests = hidden(tmp_path / "hidden")
    hidden(tests, FAULTY["fails on the reference"][0], "test_other.py")
    with pytest.raises(BadTests) as error:
        vet([tests], BANDITS)
    assert "test_other.py::test_wrong_arm" in str(error.value)
    assert "test_greedy_arm" not in str(error.value)


@pytest.mark.parametrize("fault", ["does not import", "no such folder"])
def test_the_gradescope_builder_leaves_no_zip_for_bad_tests(tmp_path, capfd, fault):
    tests = tmp_path / "nosuch"
    if fault != "no such folder":
        tests = hidden(tmp_path / "hidden", FAULTY[fault][0])
    zips = tmp_path / "dist"
    zips.mkdir()
    assert gradescope.main([str(zips / "autograder.zip"), "--tests", str(tests)]) == 2
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert list(zips.iterdir()) == []  # no zip, no half-written one


# -- 2. a batch never fails quietly --------------------------------------------------------
def test_a_run_that_crashed_or_was_killed_gets_a_row_and_grade_fails(tmp_path, capsys, monkeypatch):
    """Two runs end without a grade (the grader's pytest process killed by a signal, or ending
    with an error of its own); the honest neighbour is graded, and grade names both."""
    subs = submissions(
        tmp_path / "subs", {"alice": "reference", "bob-killed": "stub", "carol-crashed": "stub"}
    )
    real = batch.pytest_command

    def command(submission, results, tests=(), options=(), **keywords):
        how = {
            "bob-killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
            "carol-crashed": "raise SystemExit(3)",  # pytest's internal error
        }.get(Path(submission).name)
        if how is None:
            return real(submission, results, tests, options, **keywords)
        return [sys.executable, "-c", how]

    monkeypatch.setattr(batch, "pytest_command", command)
    out = tmp_path / "out"
    status = main(["grade", *map(str, subs), "--out", str(out), "--jobs", "2", *BANDITS])
    assert status == 1
    err = capsys.readouterr().err
    assert "2 of 3 submissions not graded" in err
    assert "bob-killed (killed)" in err and "carol-crashed (crashed)" in err
    table = rows(out)
    assert {name: row["status"] for name, row in table.items()} == {
        "alice": "graded",
        "bob-killed": "killed",
        "carol-crashed": "crashed",
    }
    assert float(table["alice"]["score"]) == most("bandits")
    for name in ("bob-killed", "carol-crashed"):
        data = json.loads((out / name / "results.json").read_text())
        assert data["extra_data"]["status"] == table[name]["status"]
        assert "could not grade" in data["output"]


def test_a_run_past_its_time_cap_is_timed_out(tmp_path):
    (sub,) = submissions(tmp_path / "subs", {"alice": "reference"})
    (g,) = grade([sub], tmp_path / "out", sets=["bandits"], run_cap=0.5)
    assert g.status == "timed out" and g.max_score == 0
    assert rows(tmp_path / "out")["alice"]["status"] == "timed out"


def test_grading_everyone_zero_of_zero_is_an_error(tmp_path, capsys):
    """A batch whose runs grade no test (every test deselected: the hidden ones are checked
    whatever -k keeps) is not a batch of zeros"""
    subs = submissions(tmp_path / "subs", {"alice": "reference", "bob": "stub"})
    out = tmp_path / "out"
    tests = str(hidden(tmp_path / "hidden"))
    args = ["grade", *map(str, subs), "--out", str(out), "--tests", tests, "-k", "no_such_test"]
    assert main(args) == 1
    assert "2 of 2 submissions not graded" in capsys.readouterr().err
    assert {row["status"] for row in rows(out).values()} == {"no tests"}


def test_grade_started_inside_a_checkout_grades_the_installed_tests(tmp_path):
    """`python -m mcts_course grade` in a copy of this repository (whose mcts_course comes
    first on the grader's sys.path) grades with real points, not 0/0"""
    checkout = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("mcts_course", "grader/mcts_grader", "tests/grader"):
        shutil.copytree(ROOT / part, checkout / part, ignore=ignore)
    for name in ("pyproject.toml", "conftest.py"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, checkout / name)
    (sub,) = submissions(tmp_path / "subs", {"alice": "reference"})
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "mcts_course", "grade", str(sub), "--out", str(out), *BANDITS],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    row = rows(out)["alice"]
    assert row["status"] == "graded" and float(row["score"]) == most("bandits") > 0


# -- 3. grading again into the same folder merges ------------------------------------------
def test_grading_again_replaces_that_row_and_keeps_the_others(tmp_path):
    subs = submissions(tmp_path / "subs", {"alice": "reference", "bob": "reference"})
    out = tmp_path / "out"
    grade(subs, out, sets=["bandits"], n_jobs=2)
    assert set(rows(out)) == {"alice", "bob"}
    # bob hands in again: the stub this time
    shutil.copy(ROOT / "exercises" / "bandits.py", subs[1] / "bandits.py")
    grade([subs[1]], out, sets=["bandits"])
    table = rows(out)
    assert set(table) == {"alice", "bob"}
    assert float(table["alice"]["score"]) == most("bandits")  # kept
    assert float(table["bob"]["score"]) == 0  # replaced
    assert json.loads((out / "bob" / "results.json").read_text())["score"] == 0


# -- 5. any folder name is a submission ----------------------------------------------------
def test_any_folder_name_is_a_submission(tmp_path):
    names = ["grades.csv", "=HYPERLINK(1)", "two words", "Zoë Ünïcode 学生"]
    subs = submissions(tmp_path / "subs", dict.fromkeys(names, "reference"))
    out = tmp_path / "out"
    graded = grade(subs, out, sets=["bandits"], n_jobs=2)
    assert all(g.status == "graded" and g.score == most("bandits") for g in graded)
    assert (out / "grades.csv").is_file()  # the batch's table, not a student's folder
    table = rows(out)
    # the folder named like the table gets a name of its own; a formula stays text
    assert set(table) == {"grades.csv\\#2", "'=HYPERLINK(1)", "two words", "Zoë Ünïcode 学生"}
    for g in graded:
        assert json.loads((out / g.name / "results.json").read_text())["score"] == most("bandits")


# -- 4. after_due_date details stay out of what students see before the date --------------
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)


def test_visibility_on_both_sides_of_the_due_date():
    before, after = DUE - timedelta(seconds=1), DUE + timedelta(seconds=1)
    assert shown("visible", before, DUE) and shown("visible", before, None)
    assert not shown("after_due_date", before, DUE) and shown("after_due_date", after, DUE)
    assert not shown("after_due_date", after, None)  # no date known: held back
    for never in ("hidden", "after_published"):
        assert not shown(never, after, DUE)


def _hidden_results(tmp_path, due: datetime) -> dict:
    (sub,) = submissions(tmp_path / "subs", {"alice": "reference"})
    out = tmp_path / "out"
    tests = hidden(tmp_path / "hidden", GOOD.replace("2, exercise", "5, exercise"))
    grade([sub], out, [tests], sets=["bandits"], due=due)
    return json.loads((out / "alice" / "results.json").read_text())


def test_before_the_due_date_the_output_holds_the_hidden_points_back(tmp_path):
    data = _hidden_results(tmp_path, datetime.now(timezone.utc) + timedelta(days=1))
    public = most("bandits")
    assert f"total     {public:g} / {public:g}" in data["output"]
    assert "worth 5 more points are shown after the due date" in data["output"]
    assert data["score"] == public + 5  # the grade itself is whole
    (extra,) = [t for t in data["tests"] if t["visibility"] == "after_due_date"]
    # its points count, but nothing else of it is written before the date (Gradescope's own
    # hiding is one setting away from showing it)
    assert extra["name"] == HELD_BACK and extra["output"] == "" and extra["tags"] == []
    assert (extra["score"], extra["max_score"]) == (5, 5)
    assert "best mean" not in json.dumps(extra) + data["output"]


def test_after_the_due_date_each_hidden_test_is_shown_whole(tmp_path):
    data = _hidden_results(tmp_path, datetime.now(timezone.utc) - timedelta(days=1))
    (extra,) = [t for t in data["tests"] if t["visibility"] == "after_due_date"]
    assert "picks the best mean" in extra["name"] and extra["tags"] == ["bandits"]


def test_after_the_due_date_the_output_shows_every_point(tmp_path):
    data = _hidden_results(tmp_path, datetime.now(timezone.utc) - timedelta(days=1))
    whole = most("bandits") + 5
    assert f"total     {whole:g} / {whole:g}" in data["output"]
    assert "after the due date" not in data["output"]


def test_the_gradescope_due_date_comes_from_its_metadata(tmp_path):
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"assignment": {"due_date": "2026-12-01T23:59:00-07:00"}}))
    assert due_date_of(metadata) == datetime(2026, 12, 2, 6, 59, tzinfo=timezone.utc)
    assert due_date_of(tmp_path / "none.json") is None


def test_hidden_tests_wait_for_the_late_due_date_and_extensions(tmp_path):
    """Red team 15, 10: shown after the due date alone, a hidden test's message reached a late
    submission while late ones were still accepted; the date is the last one a student may
    still submit by (the late due date, a group member's extension)."""
    metadata = tmp_path / "submission_metadata.json"
    assignment = {"due_date": "2026-12-01T23:59:00-07:00", "late_due_date": None}
    users = [{"email": "a@example.com", "id": 1, "name": "A"}]

    def due() -> datetime | None:
        data = {"assignment": assignment, "users": users}
        metadata.write_text(json.dumps(data))
        return due_date_of(metadata)

    assert due() == datetime(2026, 12, 2, 6, 59, tzinfo=timezone.utc)
    assignment["late_due_date"] = "2026-12-04T23:59:00-07:00"
    assert due() == datetime(2026, 12, 5, 6, 59, tzinfo=timezone.utc)
    users.append({"id": 2, "assignment": {"due_date": "2026-12-08T12:00:00+00:00"}})
    assert due() == datetime(2026, 12, 8, 12, 0, tzinfo=timezone.utc)
    users[1]["assignment"]["late_due_date"] = "2026-12-09"  # no zone: nothing is shown early
    assert due() is None


def test_gradescope_results_hold_hidden_points_back_before_the_date(tmp_path, monkeypatch):
    sub = build("reference", tmp_path / "submission", files=("bandits",))
    tests = hidden(tmp_path / "source" / "tests", GOOD.replace("2, exercise", "5, exercise"))
    results = tmp_path / "results" / "results.json"
    metadata = tmp_path / "submission_metadata.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tests))
    monkeypatch.setenv("MCTS_GRADESCOPE_METADATA", str(metadata))
    outputs = {}
    for side, days in (("before", 1), ("after", -1)):
        due = datetime.now(timezone.utc) + timedelta(days=days)
        metadata.write_text(json.dumps({"assignment": {"due_date": due.isoformat()}}))
        assert main(["grade", "--gradescope", *BANDITS]) == 0
        outputs[side] = json.loads(results.read_text())["output"]
    assert "5 more points" in outputs["before"] and "5 more points" not in outputs["after"]
    whole = most("bandits") + 5
    assert f"{whole:g} / {whole:g}" in outputs["after"]
    assert f"{whole:g} / {whole:g}" not in outputs["before"]


def test_the_student_output_names_no_held_back_test():
    data = {
        "tests": [
            {"name": "[bandits] a", "score": 1, "max_score": 1, "tags": ["bandits"]},
            {
                "name": "[secret] the hidden one",
                "score": 0,
                "max_score": 3,
                "tags": ["secret"],
                "visibility": "after_due_date",
            },
        ]
    }
    early = student_output(data, DUE - timedelta(days=1), DUE)
    assert "secret" not in early and "3 more points are shown after the due date" in early
    assert "secret" in student_output(data, DUE + timedelta(days=1), DUE)
    data["tests"][1]["visibility"] = "hidden"
    late = student_output(data, DUE + timedelta(days=1), DUE)
    assert "secret" not in late and "3 more points are not shown" in late


def test_a_gradescope_run_that_breaks_says_so_and_fails(tmp_path, monkeypatch, capsys):
    sub = build("reference", tmp_path / "submission", files=("bandits",))
    results = tmp_path / "results" / "results.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tmp_path / "no-tests"))
    assert main(["grade", "--gradescope", "--no-such-option"]) == 1
    data = json.loads(results.read_text())
    assert data["extra_data"]["status"] == "crashed" and "could not grade" in data["output"]
    assert "(crashed)" in capsys.readouterr().out
