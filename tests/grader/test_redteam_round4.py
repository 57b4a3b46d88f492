"""Red team round 4: hidden tests reached through a link, or through a folder another user owns,
ran as root.  A hidden test runs as the grader, unconfined, so every file of it and every folder
on its way from ``/`` must be the grader's; links are refused.  Each test plants a test file that
would write a marker when imported, and asserts that it was refused and never ran."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcts_grader.gradescope import main as gradescope_main

from mcts_course.cli import main

ROOT = Path(__file__).resolve().parents[2]
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="another owner needs root to make"
)
STUDENT = 54321


def planted(path: Path, marker: Path) -> Path:
    """A hidden test with a valid marker that writes ``marker`` when pytest imports it."""
    path.write_text(
        "import pytest\n"
        f"open({str(marker)!r}, 'w').write(str(__import__('os').geteuid()))\n"
        '@pytest.mark.points(1, exercise="bandits")\n'
        "def test_x(student):\n    assert True\n"
    )
    return path


def honest(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((ROOT / "exercises" / "bandits.py").read_text())
    return folder


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """(a hidden-tests folder whose test file is a link to a file the student owns, the marker
    that file writes if it is ever imported)."""
    marker = tmp_path / "ran"
    theirs = planted(tmp_path / "evil.py", marker)
    os.chown(theirs, STUDENT, STUDENT)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_evil.py").symlink_to(theirs)
    return hidden, marker


@as_root
def test_a_hidden_test_that_is_a_link_to_a_students_file_is_refused(tmp_path, capsys, linked):
    hidden, marker = linked
    out = tmp_path / "o"
    sub = honest(tmp_path / "alice")
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(hidden)]) == 2
    assert "is a link" in capsys.readouterr().err
    assert not marker.exists() and not out.exists()


@as_root
def test_hidden_tests_inside_a_folder_a_student_owns_are_refused(tmp_path, capsys):
    """The grader's own files, but in a folder the student may rename and replace mid-batch."""
    marker = tmp_path / "ran"
    home = tmp_path / "home"
    home.mkdir()
    hidden = home / "hid"
    hidden.mkdir()
    planted(hidden / "test_more.py", marker)
    os.chown(home, STUDENT, STUDENT)
    sub = honest(tmp_path / "alice")
    assert main(["grade", str(sub), "--out", str(tmp_path / "o"), "--tests", str(hidden)]) == 2
    assert f"{home} belongs to user id {STUDENT}" in capsys.readouterr().err
    assert not marker.exists()
    link = tmp_path / "link"
    link.symlink_to(hidden)  # the same folder given through a link
    assert main(["grade", str(sub), "--out", str(tmp_path / "o"), "--tests", str(link)]) == 2
    assert "is a link" in capsys.readouterr().err
    assert not marker.exists()


@as_root
def test_the_gradescope_builder_refuses_the_same(tmp_path, capsys, linked):
    hidden, marker = linked
    zipped = tmp_path / "autograder.zip"
    assert gradescope_main([str(zipped), "--tests", str(hidden)]) == 2
    assert "is a link" in capsys.readouterr().err
    assert not marker.exists() and not zipped.exists()
