"""Red team round 11, helper GM's items: ``pytest --submission=DIR`` collecting (importing, in
the grader's own process) the submission's files when a path in it reaches pytest's command
line (15), and the teaching-assistant mode counting a question's time limit in wall seconds, so
that a loaded machine cost honest submissions their points quietly (08)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading import invocation

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")


# -- 15: a path of the submission on pytest's command line ---------------------------------------
def _evil(folder: Path, marks: Path) -> Path:
    """Attack 15's submission: the reference bandits.py, and files that leave a mark when
    imported (a package's __init__.py, two test files, a conftest.py) and a pytest.ini naming a
    plugin."""
    folder.mkdir(mode=0o700, parents=True)
    (folder / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    for name in ("__init__", "conftest", "test_evil", "test_bandits"):
        code = f"open({str(marks / ('MARK-' + name))!r}, 'w').close()\n"
        if name.startswith("test_"):
            code += "\ndef test_x():\n    pass\n"
        (folder / f"{name}.py").write_text(code)
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p evil_plugin\n")
    return folder


def _pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def attack15(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the submission, the marks' folder, a folder of the instructor's own to run from)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    return _evil(tmp_path / "subs" / "evil", marks), marks, run


def _grader_tests() -> str:
    folders = invocation.test_folders(reference=True)
    assert len(folders) > 1, "the grader's tests are not installed"
    return str(folders[1])


@pytest.mark.parametrize("how", ["test file", "folder", "grader tests and folder", "link"])
def test_15_a_path_in_the_submission_is_refused_before_anything_of_it_is_imported(attack15, how):
    sub, marks, run = attack15
    where = ["--rootdir", str(run)]
    if how == "test file":
        paths = [str(sub / "test_evil.py")]
    elif how == "folder":
        paths = [str(sub)]
    elif how == "grader tests and folder":  # no --rootdir: the common ancestor is /
        where, paths = [], [_grader_tests(), str(sub)]
    else:  # a link of the instructor's own to a file of the submission
        (run / "test_link.py").symlink_to(sub / "test_bandits.py")
        paths = [str(run / "test_link.py")]
    done = _pytest(
        "-c", os.devnull, f"--submission={sub}", "--exercise-set=bandits", *where, *paths, cwd=run
    )
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, said[-3000:]
    assert "is the submission or lies in it" in said, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == [], said[-3000:]


def test_15_the_walk_into_the_submission_is_stopped_too(attack15):
    """A folder that holds the submission, walked by pytest (the second line: the hooks of the
    collection, for a path the command line's check did not see, the current folder)."""
    sub, marks, run = attack15
    done = _pytest("-c", os.devnull, f"--submission={sub}", "--rootdir", str(run), cwd=sub.parent)
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, said[-3000:]
    assert "is the submission or lies in it" in said, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == [], said[-3000:]


def test_15_the_second_line_stops_a_collected_file_of_the_submission(attack15):
    """The collection hooks alone (the command line's check bypassed): a file of the submission
    reached while collecting stops the run before its module is imported."""
    sub, marks, run = attack15
    (run / "conftest_free.py").write_text("")
    code = (
        "import sys, pytest\n"
        "from mcts_course.grading import plugin\n"
        "plugin._refuse_collected_args = lambda config: None\n"
        f"sys.exit(pytest.main(['-p', 'no:cacheprovider', '-c', {os.devnull!r}, "
        f"'--rootdir', {str(run)!r}, '--submission={sub}', {str(sub / 'test_evil.py')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=run, capture_output=True, text=True, timeout=600
    )
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, said[-3000:]
    assert "is the submission or lies in it" in said, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == [], said[-3000:]


def test_15_the_separate_spelling_is_refused_with_the_one_to_use(attack15):
    sub, marks, run = attack15
    done = _pytest(
        "-c", os.devnull, "--pyargs", "mcts_course.grading", "--submission", str(sub), cwd=run
    )
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, said[-3000:]
    assert f"write --submission={sub}" in said, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == []


def test_15_the_honest_spelling_still_grades(attack15):
    sub, marks, run = attack15
    done = _pytest(
        "-c",
        os.devnull,
        "--pyargs",
        "mcts_course.grading",
        f"--submission={sub}",
        "--exercise-set=bandits",
        "-k",
        "ucb1",
        cwd=run,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == []
