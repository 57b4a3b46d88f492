"""`grade` with an option pytest does not know, or instructor's tests that do not load, stops
with one line and a non-zero exit status before grading anyone (red-team attack 06: every
student got 0 / 0 and `grade` exited 0)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def grade(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mcts_course", "grade", *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture
def submission(tmp_path: Path) -> Path:
    folder = tmp_path / "alice"
    folder.mkdir(mode=0o700)
    (folder / "bandits.py").write_text("def ucb1_choice(counts, sums, c):\n    return 0\n")
    return folder


@pytest.mark.parametrize("typo", [["--bogus-flag"], ["--set", "bandits"]])
def test_an_unknown_option_is_an_error_of_grade(tmp_path, submission, typo):
    out = tmp_path / "out"
    done = grade(submission, "--out", out, "--exercise-set=bandits", *typo, cwd=tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and typo[0] in lines[0] and "unrecognized" in lines[0], done.stderr
    assert not (out / "grades.csv").exists()


def test_instructor_tests_that_do_not_load_are_an_error_of_grade(tmp_path, submission):
    hidden = tmp_path / "hidden-missing-data"  # attack 06 (b): a data file not copied
    hidden.mkdir()
    (hidden / "test_bad.py").write_text(
        "import json, pathlib\nimport pytest\n"
        'DATA = json.loads((pathlib.Path(__file__).parent / "missing.json").read_text())\n\n\n'
        '@pytest.mark.points(2, exercise="bandits")\n'
        "def test_x(student):\n"
        "    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1\n"
    )
    out = tmp_path / "out"
    done = grade(
        submission, "--out", out, "--tests", hidden, "--exercise-set=bandits", cwd=tmp_path
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.json" in lines[0], done.stderr
    assert not (out / "grades.csv").exists()
