"""`grade`'s front end against what students choose and instructors mistype: a folder's name
prints no line of its own and puts no control byte in grades.csv, a folder named like an option
stays a folder, a due date needs its zone, the tests held back until the due date are only
points before it, and one pre-run checks the options and hidden tests on every route
(Gradescope's too).  Graded for real (as root: in the sandbox)."""

from __future__ import annotations

import argparse
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from grading_fixtures.mutants import build
from grading_fixtures.points import most
from mcts_grader.cli import due_date
from mcts_grader.feedback import HELD_BACK, with_student_output
from mcts_grader.table import Row, csv_cell, one_line, table

from mcts_course.cli import main
from mcts_course.grading.report import Outcome

BANDITS = "--exercise-set=bandits"
# names a student may give a folder: a fake row after a newline, a screen clear, a formula
# behind a control byte
NAMES = ["eve\nmallory,graded,100,100", "\x1b[2Jzed\x1b[31m", "\x01=HYPERLINK(1)"]


def private(base: Path) -> Path:
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(base, 0o700)  # a batch's submissions, closed to the sandboxes' users
    return base


def test_a_name_is_shown_on_one_line_and_escaped_in_a_cell():
    assert one_line("eve\nmallory\x1b[2J\t\udcff") == "eve\\nmallory\\x1b[2J\\t\\udcff"
    assert csv_cell("\x1b[2Jzed\x1b[31m") == "\\x1b[2Jzed\\x1b[31m"
    assert csv_cell("\x01=cmd") == "\\x01=cmd"  # escaped, never deleted: no formula either
    assert csv_cell("=x") == "'=x" and csv_cell("alice") == "alice"
    rows = [
        Row(name, "graded", [Outcome("t", "bandits", 1.0, 1.0, "passed", "")]) for name in NAMES
    ]
    text = table(rows)
    assert not any(ord(c) < 32 and c != "\n" for c in text)
    assert len(text.splitlines()) == 1 + len(NAMES)  # one line a row, for grep and awk too


def test_names_a_student_chose_print_no_line_and_no_control(tmp_path, capfd):
    base = private(tmp_path / "subs")
    subs = [build("reference", base / name, files=("bandits",)) for name in NAMES]
    out = tmp_path / "out"
    assert main(["grade", "--out", str(out), BANDITS, "--jobs", "2", "--", *map(str, subs)]) == 0
    err = capfd.readouterr().err
    assert "\x1b" not in err and "\x01" not in err
    assert not any(line.startswith("mallory") for line in err.splitlines())
    assert f"eve\\nmallory,graded,100,100: {most('bandits'):g} / " in err
    text = (out / "grades.csv").read_bytes().decode()
    assert not any(ord(c) < 32 and c != "\n" for c in text)
    lines = text.splitlines()
    assert len(lines) == 1 + len(NAMES) and not any(ln.startswith("mallory") for ln in lines)
    assert any(ln.startswith("\\x01=HYPERLINK(1)") for ln in lines), text


def test_a_folder_named_like_an_option_is_refused_before_dashes_and_graded_after(
    tmp_path, monkeypatch, capsys
):
    base = private(tmp_path / "export")
    monkeypatch.chdir(base)
    build("reference", base / "alice", files=("bandits",))
    build("reference", base / "-5", files=("bandits",))  # argparse takes -5 for a SUBMISSION
    build("reference", base / "--jo=2", files=("bandits",))  # once an abbreviation of --jobs
    for words in (["alice", "-5"], ["--jo=2", "alice"]):
        assert main(["grade", *words, "--out", "o", BANDITS]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "grade --out DIR -- *" in err, err
        assert not (base / "o").exists()
    # after --, every word is a submission: `grade --out o -- *`
    assert main(["grade", "--out", "o", BANDITS, "--", "alice", "-5", "--jo=2"]) == 0
    rows = (base / "o" / "grades.csv").read_text().splitlines()[1:]
    assert sorted(r.split(",")[0] for r in rows) == ["'--jo=2", "'-5", "alice"]


def test_an_option_is_never_abbreviated(tmp_path, capsys):
    # --jo would have been --jobs: now pytest's, which does not know it either (the pre-run)
    sub = build("reference", private(tmp_path / "subs") / "alice", files=("bandits",))
    assert main(["grade", "--jo=2", "--out", str(tmp_path / "o"), "--", str(sub)]) == 2
    assert "--jo=2" in capsys.readouterr().err


def _args(due: str | None, gradescope: bool) -> argparse.Namespace:
    return argparse.Namespace(due=due, gradescope=gradescope)


@pytest.mark.parametrize("due", ["", "   "])
def test_an_empty_due_date_is_an_error(tmp_path, capsys, due):
    sub = build("reference", private(tmp_path / "subs") / "alice", files=("bandits",))
    assert main(["grade", str(sub), "--out", str(tmp_path / "o"), f"--due={due}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--due is empty" in err[0]
    assert not (tmp_path / "o").exists()


def test_a_due_date_without_a_zone_is_refused_or_takes_gradescopes(tmp_path, monkeypatch):
    from mcts_course.errors import UsageError

    for text in ("2026-12-01T23:59", "2026-12-01"):
        with pytest.raises(UsageError, match="add a zone, e.g. 2026-12-01T23:59"):
            due_date(_args(text, False))
    assert due_date(_args("2026-12-01T23:59Z", False)) == datetime(
        2026, 12, 1, 23, 59, tzinfo=timezone.utc
    )
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"assignment": {"due_date": "2026-11-30T10:00:00-08:00"}}))
    monkeypatch.setenv("MCTS_GRADESCOPE_METADATA", str(metadata))
    # on Gradescope, a date without a zone is read in the zone of the assignment's own date
    assert due_date(_args("2026-12-01T23:59", True)) == datetime(
        2026, 12, 2, 7, 59, tzinfo=timezone.utc
    )
    assert due_date(_args(None, True)) == datetime(2026, 11, 30, 18, 0, tzinfo=timezone.utc)
    metadata.write_text(json.dumps({"assignment": {"due_date": "2026-11-30T10:00:00"}}))
    assert due_date(_args(None, True)) is None  # no zone: nothing held back is shown


SECRET = {
    "name": "[secret] the hidden one",
    "number": "2",
    "score": 1.0,
    "max_score": 3.0,
    "status": "failed",
    "output": "expected 7 at the position (3, 4); hint: look at the corners",
    "visibility": "after_due_date",
    "tags": ["secret"],
    "extra_data": {"status": "failed", "test": "test_more.py::test_corner"},
}
SEEN = {"name": "[bandits] a", "score": 1.0, "max_score": 1.0, "tags": ["bandits"]}


def test_before_the_date_a_held_back_test_is_only_its_points():
    due = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)
    data = {"score": 2.0, "tests": [SEEN, SECRET]}
    early = with_student_output(data, due - timedelta(hours=1), due)
    held = early["tests"][1]
    # all but extra_data, which Gradescope stores and never shows (grades.csv reads it)
    shown = json.dumps({k: v for k, v in held.items() if k != "extra_data"})
    assert held["extra_data"] == {"exercise": "secret", "status": "held back"}
    assert held["name"] == HELD_BACK and held["output"] == "" and held["tags"] == []
    assert (held["score"], held["max_score"], held["visibility"]) == (1.0, 3.0, "after_due_date")
    assert early["score"] == 2.0  # the points count
    for word in ("secret", "corner", "(3, 4)", "hidden one"):
        assert word not in shown and word not in early["output"]
    # grades.csv still has the exercise's column, from where Gradescope shows nothing
    from mcts_course.grading.report import outcomes_of

    assert [o.exercise for o in outcomes_of(early)] == ["bandits", "secret"]
    late = with_student_output(data, due + timedelta(hours=1), due)
    assert late["tests"][1] == SECRET
    assert with_student_output(data, due + timedelta(hours=1), None)["tests"][1]["name"] == (
        HELD_BACK  # no date known: held back
    )


FAILS_ON_REFERENCE = """import pytest


@pytest.mark.points(2, exercise="bandits")
def test_wrong_arm(student):
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 0
"""


def test_gradescope_runs_the_pre_run_too(tmp_path, monkeypatch, capsys):
    """A hidden test that fails on the reference no longer grades a Gradescope submission:
    the one pre-run (options, hidden tests on the reference) runs on every route."""
    sub = build("reference", tmp_path / "submission", files=("bandits",))
    tests = tmp_path / "source" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_more.py").write_text(FAILS_ON_REFERENCE)
    results = tmp_path / "results" / "results.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tests))
    monkeypatch.setenv("MCTS_GRADESCOPE_METADATA", str(tmp_path / "none.json"))
    assert main(["grade", "--gradescope", BANDITS]) == 1
    captured = capsys.readouterr()
    assert "test_wrong_arm failed on the reference" in captured.err
    data = json.loads(results.read_text())
    assert data["tests"] == [] and data["extra_data"]["status"] == "crashed"
    assert "test_wrong_arm" not in json.dumps(data)  # the student's view names no test


def test_an_error_naming_a_folder_is_one_line(tmp_path, capsys):
    name = str(tmp_path / "no\nsuch\x1b[2J")
    assert main(["grade", "--out", str(tmp_path / "o"), "--", name]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "\x1b" not in err
    assert "no\\nsuch\\x1b[2J" in err
