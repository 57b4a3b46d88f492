"""The grader is a pytest plugin: `python -m pytest --pyargs mcts_course.grading --submission
PATH` grades PATH, an instructor's hidden test is a plain pytest file, and pytest run on the
wrong thing says what to do instead of failing obscurely."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_fixtures.mutants import build
from grading_fixtures.points import marks, most
from mcts_grader.batch import grade
from mcts_grader.feedback import HELD_BACK

from mcts_course.cli import main

ROOT = Path(__file__).resolve().parents[2]

if sys.platform != "linux":  # resource limits and process groups are POSIX features
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")


def pytest_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m pytest ARGS`` in a fresh process (the plugin loads from the entry point)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pytest_grades_a_submission(tmp_path):
    """pytest's report and the points table; exit 0 as every test passes; results.json with
    float scores and an execution time within the run's"""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    results = tmp_path / "results.json"
    started = time.monotonic()
    done = pytest_run(
        "--pyargs",
        "mcts_course.grading",
        f"--submission={sub}",
        "--exercise-set=bandits",
        f"--results-json={results}",
        f"--grades-csv={tmp_path / 'grades.csv'}",
        cwd=tmp_path,
    )
    wall = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    # the public checks alone (--pyargs mcts_course.grading): the grader's tests need the grader
    public = most("bandits", public_only=True)
    assert f"{len(marks('bandits', public_only=True))} passed, " in done.stdout
    assert f"total     {public:g} / {public:g}" in done.stdout
    assert "warnings summary" not in done.stdout and "Warning" not in done.stderr
    data = json.loads(results.read_text())
    assert data["score"] == public and isinstance(data["score"], float)
    assert all(isinstance(t["score"], float) for t in data["tests"])
    assert isinstance(data["execution_time"], int) and data["execution_time"] <= wall
    assert data["extra_data"]["files"] == {"bandits": str(sub / "bandits.py")}
    (row,) = csv.DictReader(open(tmp_path / "grades.csv", newline=""))
    assert (row["submission"], float(row["bandits"]), row["ttt_selection"]) == (
        "sub",
        public,
        "",  # not graded in this run
    )


def test_a_run_that_read_a_configuration_file_is_refused(tmp_path):
    """pytest reads the current folder's configuration (and loads the plugins its addopts name)
    before any plugin can stop it: the grading plugin refuses such a run at its first hook,
    and the same run with ``-c /dev/null`` grades, without warnings (a student's install has
    no pytest-timeout)."""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    args = ["-p", "no:timeout", "--pyargs", "mcts_course.grading", f"--submission={sub}"]
    done = pytest_run(*args, "-k", "unplayed", cwd=ROOT)  # the checkout's pyproject.toml
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    expected = f"pytest read {ROOT / 'pyproject.toml'}; run from a folder of your own or pass -c"
    assert expected in done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tox.ini").write_text("[pytest]\naddopts = -p no:terminal\n")
    done = pytest_run(*args, "-k", "unplayed", cwd=elsewhere)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert f"pytest read {elsewhere / 'tox.ini'}" in done.stderr
    done = pytest_run(*args, "-c", os.devnull, "-k", "unplayed", cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warnings summary" not in done.stdout and "Warning" not in done.stderr


def test_a_run_whose_rootdir_is_the_submission_is_refused(tmp_path):
    """started inside the submission's folder, pytest makes it the rootdir (and would read its
    configuration files): refused, though the folder holds no configuration"""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    (sub / "inner").mkdir()
    for where, given in ((sub, "."), (sub / "inner", "..")):
        done = pytest_run("--pyargs", "mcts_course.grading", f"--submission={given}", cwd=where)
        assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
        assert "rootdir" in done.stderr and "is in the submission" in done.stderr


def test_pytest_fails_a_wrong_submission(tmp_path):
    sub = build("ucb1_choice_log_of_count", tmp_path / "sub", files=("bandits",))
    done = pytest_run(
        "--pyargs", "mcts_course.grading", f"--submission={sub}", "-k", "ucb1", cwd=tmp_path
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED tests/test_bandits.py::test_ucb1_choice" in done.stdout
    points = dict((name, p) for name, p, _ in marks("bandits"))["test_ucb1_choice"]
    assert "_ test_ucb1_choice: [bandits] " in done.stdout  # the failure's title: what it cost
    assert f" (0 / {points:g}) _" in done.stdout
    assert "Hint: " in done.stdout and "Traceback" not in done.stdout


@pytest.mark.parametrize("package", ["mcts_course", "mcts_course.grading"])
def test_pytest_without_a_submission_says_how(tmp_path, package):
    done = pytest_run("--pyargs", package, cwd=tmp_path)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "--submission=PATH" in done.stderr
    assert "fixture 'student' not found" not in done.stdout + done.stderr


def test_pytest_on_the_exercises_folder_says_how(tmp_path):
    done = pytest_run(str(ROOT / "exercises"), cwd=tmp_path)
    assert done.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, done.stdout + done.stderr
    assert "holds exercise files, not tests" in done.stdout
    assert "--pyargs mcts_course.grading --submission" in done.stdout


def test_a_configuration_file_in_the_submission_is_refused(tmp_path):
    """pytest reads the configuration of a loose path argument: a submission must not get to
    set options of its own grading run"""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    (sub / "pytest.ini").write_text("[pytest]\naddopts = --exercise=nothing\n")
    done = pytest_run("--pyargs", "mcts_course.grading", "--submission", str(sub), cwd=tmp_path)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "belongs to the submission" in done.stderr


HIDDEN = '''"""An instructor's hidden tests: a plain pytest file."""
import pytest


@pytest.mark.points(2, exercise="bandits", visibility="hidden")
def test_greedy_arm(student):
    """ucb1_choice with c=0 is greedy"""
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1


@pytest.mark.points(1, exercise="bandits_extra", exercise_set="bandits", hint="arm 0")
def test_fails(student):
    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 0, "expected arm 0"
'''


@pytest.fixture
def hidden(tmp_path) -> Path:
    folder = tmp_path / "hidden"
    folder.mkdir()
    (folder / "test_more.py").write_text(HIDDEN)
    return folder


def test_pytest_runs_hidden_tests_alone(tmp_path, hidden):
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    done = pytest_run(str(hidden), f"--submission={sub}", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout
    failure = done.stdout.split("_ test_fails: [bandits_extra] test_fails (0 / 1) _")[1]
    # pytest explains the instructor's assert (rewritten: not a package module); the hint last
    assert failure.index("expected arm 0") < failure.index("assert 1 == 0")
    assert failure.index("assert 1 == 0") < failure.index("Hint: arm 0")
    assert "bandits_extra  0 / 1" in done.stdout and "total          2 / 3" in done.stdout


def test_grade_adds_hidden_tests(tmp_path, hidden):
    """grade --tests: the hidden tests after the shipped ones, in results.json and grades.csv;
    students see them after the due date unless they say otherwise"""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    out = tmp_path / "out"
    # test_fails fails on the reference solutions: refused before anyone is graded
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(hidden)]) == 2
    assert not out.exists()
    fixed = HIDDEN.replace('== 0, "expected arm 0"', '== 1, "expected arm 1"')
    (hidden / "test_more.py").write_text(fixed)
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(hidden)]) == 0
    results = json.loads((out / "sub" / "results.json").read_text())
    # no --due: the hidden tests are their points only (names, outputs held back)
    held = [t for t in results["tests"] if t["name"] == HELD_BACK]
    extra, greedy = held  # the hidden test last, in a process of its own (red team 30, 02)
    assert (greedy["score"], greedy["max_score"], greedy["visibility"]) == (2, 2, "hidden")
    assert (extra["score"], extra["max_score"], extra["visibility"]) == (1, 1, "after_due_date")
    assert extra["extra_data"]["exercise"] == "bandits_extra"
    shipped = [t for t in results["tests"] if t["name"] != HELD_BACK]
    assert all(t["visibility"] == "visible" for t in shipped)
    assert results["tests"][: len(shipped)] == shipped  # the hidden ones come last
    (row,) = csv.DictReader(open(out / "grades.csv", newline=""))
    assert row["bandits_extra"] == "1" and float(row["bandits"]) == most("bandits") + 2
    assert list(row)[-4:] == ["bandits_extra", "source", "ascii_name", "look_alike"]


def test_grade_passes_options_on_to_pytest(tmp_path):
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    out = tmp_path / "out"
    assert main(["grade", str(sub), "--out", str(out), "--exercise", "bandits"]) == 0
    (row,) = csv.DictReader(open(out / "grades.csv", newline=""))
    assert float(row["score"]) == float(row["max_score"]) == most("bandits")
    assert "deselected" in (out / "sub" / "pytest.log").read_text()


def test_results_json_scores_are_floats_whatever_the_score(tmp_path):
    full = build("reference", tmp_path / "full", files=("bandits",))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "bandits.py").write_text((ROOT / "exercises" / "bandits.py").read_text())
    grades = grade([full, empty], tmp_path / "out", sets=["bandits"], n_jobs=2)
    assert [g.score for g in grades] == [most("bandits"), 0]
    for name in ("full", "empty"):
        data = json.loads((tmp_path / "out" / name / "results.json").read_text())
        assert isinstance(data["score"], float), data["score"]


def test_a_run_that_breaks_still_gets_a_results_json(tmp_path):
    """pytest ending without results (here: an option it refuses) leaves a zero with the
    reason, and the other submissions are graded"""
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    # past the pre-run, which refuses such an option (tests/grader/test_grade_options.py)
    (result,) = grade(
        [sub], tmp_path / "out", sets=["bandits"], pytest_args=["--no-such"], check_tests=False
    )
    data = json.loads((tmp_path / "out" / "sub" / "results.json").read_text())
    assert data["score"] == 0 and data["tests"] == [] and result.outcomes == []
    assert result.status == data["extra_data"]["status"] == "crashed"
    assert "could not grade" in data["output"]
    # pytest's own words stay in the instructor's log (they may name hidden tests)
    assert "--no-such" not in data["output"]
    assert "--no-such" in (tmp_path / "out" / "sub" / "pytest.log").read_text()


def test_gradescope_mode(tmp_path, monkeypatch):
    sub = build("reference", tmp_path / "submission", files=("bandits",))
    results = tmp_path / "results" / "results.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tmp_path / "no-tests"))
    assert main(["grade", "--gradescope"]) == 0
    data = json.loads(results.read_text())
    assert data["score"] == sum(t["score"] for t in data["tests"]) == most("bandits")
    missing = [t for t in data["tests"] if "no file for ttt_mcts" in t["output"]]
    assert len(missing) == len(marks("ttt_mcts")) and all(t["score"] == 0 for t in missing)


SEED_PROBE = """import os
from pathlib import Path

import pytest


@pytest.mark.points(1, exercise="alphabeta")
def test_seed(submission_seed):
    Path(os.environ["SEED_OUT"]).write_text(str(submission_seed))
"""


def test_the_positions_seed_is_the_submissions_code(tmp_path):
    """submission_seed (the alpha-beta positions' seed): the same code, the same seed in every
    run (a grade can be reproduced); another code, another seed (a recorded table cannot know
    the positions)"""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "test_seed.py").write_text(SEED_PROBE)
    code = build("reference", tmp_path / "ref", files=("alphabeta",)) / "alphabeta.py"
    other = tmp_path / "other"
    other.mkdir()
    (other / "alphabeta.py").write_text(code.read_text() + "\nTABLE = {}\n")

    def seed(folder: Path) -> str:
        out = tmp_path / "seed.txt"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(probe)]
            + [f"--submission={folder}"],
            cwd=tmp_path,
            env={**os.environ, "SEED_OUT": str(out)},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return out.read_text()

    first = seed(code.parent)
    assert seed(code.parent) == first
    # 64 bits (red team 18): a 32-bit seed is found again by brute force in about an hour
    assert 32 < int(first).bit_length() <= 64
    assert seed(other) != first
    # red team 15: a table in a helper beside the unchanged exercise file changes the seed too
    helper = tmp_path / "helper"
    helper.mkdir()
    (helper / "alphabeta.py").write_text(code.read_text())
    assert seed(helper) == first
    (helper / "table.py").write_text("TABLE = {(0, 1): 2}\n")
    with_table = seed(helper)
    assert with_table != first
    (helper / "table.py").write_text("TABLE = {(0, 1): 3}\n")
    other_table = seed(helper)
    assert other_table not in (first, with_table)
    (helper / "notes.txt").write_text("not importable: not copied, not hashed\n")
    assert seed(helper) == other_table
    # red team 21, 20: a sibling's name goes in as the bytes the student's code can list, so
    # two names that differ only in bytes UTF-8 cannot decode give two seeds
    table = os.fsencode(helper / "table.py")
    os.rename(table, os.fsencode(helper) + b"/t\x80\x81.py")
    first_name = seed(helper)
    os.rename(os.fsencode(helper) + b"/t\x80\x81.py", os.fsencode(helper) + b"/t\xbf\xa5.py")
    assert first_name != seed(helper) and first_name not in (first, other_table)
