"""Red team round 6: after round 5's fix (no configuration file, no conftest.py, hidden tests
copied into the grader's folder), pytest still imported the ``__init__.py`` of a folder above
that copy (the shared temporary folder) to set it up as a package; a temporary folder another
user may rename inside let them swap the grader's folder; and without namespaces (a user id
per student, no mount namespace) a student read world-readable hidden tests and a neighbour's
folder beside its own."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import folder_in_tmp, honest
from mcts_grader.gradescope import main as gradescope_main

from mcts_course.cli import main
from mcts_course.grading import confine

as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="another owner needs root to make"
)
STUDENT = 54321
ONE_SET = ["--exercise-set=bandits", "-k", "ucb1"]


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder in ``/tmp`` that every user may enter (mode 755)."""
    with folder_in_tmp("rt6-", 0o755) as base:
        yield base


def hidden_tests(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "test_more.py").write_text(
        "import pytest\n"
        '@pytest.mark.points(1, exercise="bandits")\n'
        "def test_hidden_ucb1(student):\n    assert True\n"
    )
    return folder


@as_root
def test_a_strangers_init_py_above_the_graders_folder_is_never_imported(
    open_folder, tmp_path, monkeypatch
):
    shared = open_folder / "shared"  # stands for /tmp: world-writable, sticky
    shared.mkdir()
    os.chmod(shared, 0o1777)
    marker = tmp_path / "ran"
    init = shared / "__init__.py"
    init.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    os.chown(init, STUDENT, STUDENT)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    tests = hidden_tests(tmp_path / "hid")
    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 0
    assert not marker.exists()
    assert gradescope_main([str(tmp_path / "a.zip"), "--tests", str(tests)]) == 0
    assert not marker.exists()


@as_root
def test_a_temporary_folder_another_user_may_rename_inside_is_refused(
    open_folder, tmp_path, monkeypatch, capsys
):
    theirs = open_folder / "theirs"
    theirs.mkdir()
    os.chmod(theirs, 0o777)  # not sticky: they may rename the grader's folder away
    os.chown(theirs, STUDENT, STUDENT)
    monkeypatch.setattr(tempfile, "tempdir", str(theirs))
    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), *ONE_SET]) == 2
    assert "temporary folder (TMPDIR)" in capsys.readouterr().err
    assert not out.exists() and list(theirs.iterdir()) == []


@as_root
def test_without_namespaces_readable_hidden_tests_and_neighbours_are_refused(
    open_folder, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    try:
        refused_without_namespaces(open_folder, tmp_path, capsys)
    finally:
        confine.namespaces_allowed.cache_clear()


def refused_without_namespaces(open_folder: Path, tmp_path: Path, capsys) -> None:
    tests = hidden_tests(open_folder / "hid")  # 755 folders, a 644 file: anyone may read it
    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 2
    assert "other users can read it" in capsys.readouterr().err
    export = open_folder / "export"
    export.mkdir()
    alice = honest(export / "alice")
    honest(export / "bob", mode=0o755)  # bob's files are readable by any user
    assert main(["grade", str(alice), "--out", str(out), *ONE_SET]) == 2
    assert f"other users can read {export / 'bob'}" in capsys.readouterr().err
    assert not out.exists()
    os.chmod(export / "bob", 0o700)  # and once bob's folder is closed, alice is graded
    assert main(["grade", str(alice), "--out", str(out), *ONE_SET]) == 0
