"""Red team round 5: files any local user may put in ``/tmp`` ran as the grader, outside the
sandbox.  A run's folder lay in ``/tmp``, and pytest looked upward from it for a configuration
file and conftest.py files (a stranger's ``/tmp/pytest.ini`` and ``/tmp/conftest.py``); hidden
tests that were a package under ``/tmp`` were imported by the name ``tmp.<folder>``, which ran a
stranger's ``/tmp/__init__.py``.  Each test plants such files, owned by an ordinary user, that
write a marker when run, grades, and asserts that nothing of them ran."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import folder_in_tmp, honest
from mcts_grader.gradescope import main as gradescope_main

from mcts_course.cli import main

as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="another owner needs root to make"
)
STUDENT = 54321
ONE_SET = ["--exercise-set=bandits", "-k", "ucb1"]


def strangers(path: Path, marker: Path) -> Path:
    """A Python file of an ordinary user's that writes ``marker`` when it runs."""
    path.write_text(f"open({str(marker)!r}, 'w').write(str(__import__('os').geteuid()))\n")
    os.chown(path, STUDENT, STUDENT)
    return path


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A world-writable sticky folder like ``/tmp``, which the grader uses as its temporary
    folder (the sandboxes' users must reach the public copy of the package made there)."""
    with folder_in_tmp("rt5-", 0o1777) as base:
        yield base


@as_root
def test_a_strangers_pytest_ini_and_conftest_above_the_runs_are_not_read(
    shared_tmp, tmp_path, monkeypatch
):
    marker = tmp_path / "ran"
    (shared_tmp / "pytest.ini").write_text("[pytest]\naddopts = -p no_such_plugin\n")
    os.chown(shared_tmp / "pytest.ini", STUDENT, STUDENT)
    strangers(shared_tmp / "conftest.py", marker)
    monkeypatch.setattr(tempfile, "tempdir", str(shared_tmp))  # the batch's folders go there
    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), *ONE_SET]) == 0
    assert not marker.exists()
    assert "alice,graded," in (out / "grades.csv").read_text()


@as_root
def test_hidden_tests_in_a_package_under_a_strangers_init_py_run_alone(
    shared_tmp, tmp_path, monkeypatch
):
    marker = tmp_path / "ran"
    parent = shared_tmp / "course"  # the instructor's (root's, 755), in a world-writable folder
    hidden = parent / "hid"
    hidden.mkdir(parents=True)
    os.chmod(parent, 0o755)
    strangers(parent / "__init__.py", marker)  # how a stranger's file got there is beside the point
    (hidden / "__init__.py").write_text("")
    (hidden / "test_more.py").write_text(
        "import pytest\n"
        '@pytest.mark.points(1, exercise="bandits")\n'
        "def test_hidden_ucb1(student):\n    assert True\n"
    )
    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    args = ["grade", str(sub), "--out", str(out), "--tests", str(hidden), *ONE_SET]
    assert main(args) == 0
    assert not marker.exists()
    zipped = tmp_path / "autograder.zip"
    assert gradescope_main([str(zipped), "--tests", str(hidden)]) == 0
    assert not marker.exists()
    with zipfile.ZipFile(zipped) as z:
        assert {"tests/__init__.py", "tests/test_more.py"} <= set(z.namelist())


@as_root
def test_pytest_with_the_plugin_loads_no_conftest_of_the_current_folder_or_above(tmp_path):
    """The README's own pytest route, started from a folder under a stranger's conftest.py."""
    marker = tmp_path / "ran"
    strangers(tmp_path / "conftest.py", marker)
    here = tmp_path / "work"
    here.mkdir()
    strangers(here / "conftest.py", marker)
    sub = honest(tmp_path / "alice")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["--pyargs", "mcts_course.grading", f"--submission={sub}", *ONE_SET]
    done = subprocess.run(command, cwd=here, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:]
    assert not marker.exists()
