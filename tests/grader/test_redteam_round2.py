"""What the second red team broke (issue 24), each refused before any student code runs:

- a student's folder named like an option (``--tests=mallory``, ``-kucb1``) that a shell pattern
  (``cd EXPORT && grade *``) turns into an option of ``grade``;
- hidden tests a student could have written (run as the grader, unconfined);
- a single-file submission carrying the files beside it (other students' files in a flat
  export) into its sandbox;
- tens of thousands of empty folders costing the batch minutes;
- grading again into a folder that holds grades, without saying so."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcts_course.cli import main
from mcts_course.grading import snapshot

ROOT = Path(__file__).resolve().parents[2]
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="another owner needs root to make"
)


def honest(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((ROOT / "exercises" / "bandits.py").read_text())
    return folder


def test_an_option_that_is_also_a_folder_here_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    honest(tmp_path / "alice")
    (tmp_path / "-kucb1").mkdir()  # what `grade *` would pass as pytest's -k
    assert main(["grade", "alice", "-kucb1", "--out", "o"]) == 2
    assert "shell pattern" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    (tmp_path / "--tests=mallory").mkdir()
    honest(tmp_path / "mallory")
    assert main(["grade", "alice", "--tests=mallory", "--out", "o"]) == 2
    assert "'--tests=mallory' is an option and also a file" in capsys.readouterr().err


def test_hidden_tests_someone_else_may_write_are_refused(tmp_path, capsys):
    sub = honest(tmp_path / "alice")
    tests = tmp_path / "hidden"
    tests.mkdir()
    (tests / "test_more.py").write_text("def test_x():\n    assert True\n")
    os.chmod(tests / "test_more.py", 0o666)
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests)]) == 2
    assert "may be written by others" in capsys.readouterr().err
    assert not out.exists()


@as_root
def test_hidden_tests_owned_by_a_student_are_refused(tmp_path, capsys):
    sub = honest(tmp_path / "alice")
    tests = tmp_path / "hidden"
    tests.mkdir()
    (tests / "test_more.py").write_text("def test_x():\n    assert True\n")
    os.chown(tests / "test_more.py", 54321, 54321)
    assert main(["grade", str(sub), "--out", str(tmp_path / "o"), "--tests", str(tests)]) == 2
    assert "belongs to user id 54321" in capsys.readouterr().err


def test_one_file_is_copied_alone(tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "alice.py").write_text("import bob\n")
    (flat / "bob.py").write_text("ANSWER = 1\n")
    (flat / "notes.txt").write_text("SECRET-INSTRUCTOR-NOTE\n")
    snap = snapshot.take(flat / "alice.py")
    copied = sorted(p.name for p in snap.root.rglob("*"))
    assert copied == ["alice.py"]


def test_folders_are_capped(tmp_path):
    sub = honest(tmp_path / "alice")
    for i in range(snapshot.FOLDERS + 100):
        (sub / f"d{i:05d}").mkdir()
    snap = snapshot.take(sub)
    folders = [p for p in snap.root.rglob("*") if p.is_dir()]
    assert len(folders) == snapshot.FOLDERS
    assert (snap.root / "bandits.py").is_file()


def test_grading_again_into_a_folder_with_grades_needs_force(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "grades.csv").write_text("submission,status,score\nbob,graded,17\n")
    sub = honest(tmp_path / "alice")
    assert main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "grades.csv").read_text().count("\n") == 2  # untouched
