"""Red team round 11, helper GM's items: ``pytest --submission=DIR`` collecting (importing, in
the grader's own process) the submission's files when a path in it reaches pytest's command
line (15), and the teaching-assistant mode counting a question's time limit in wall seconds, so
that a loaded machine cost honest submissions their points quietly (08)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS, as_account, folder_in_tmp, userns_usable_by

from mcts_course.grading import invocation
from mcts_course.grading.clock import UNDER_LOAD

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


@pytest.mark.parametrize(
    "one_file", [False, True], ids=["folder submission", "one-file submission"]
)
@pytest.mark.parametrize("how", ["test file", "folder", "grader tests and folder", "link"])
def test_15_a_path_in_the_submission_is_refused_before_anything_of_it_is_imported(
    attack15, how, one_file
):
    """Red team 12's 02: a one-file submission (``--submission=DIR/bandits.py``) counts as its
    folder, so a test file beside it is refused as one in a submitted folder is."""
    sub, marks, run = attack15
    submitted = sub / "bandits.py" if one_file else sub
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
        "-c",
        os.devnull,
        f"--submission={submitted}",
        "--exercise-set=bandits",
        *where,
        *paths,
        cwd=run,
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


@pytest.mark.parametrize(
    "one_file", [False, True], ids=["folder submission", "one-file submission"]
)
def test_15_the_honest_spelling_still_grades(attack15, one_file):
    sub, marks, run = attack15
    done = _pytest(
        "-c",
        os.devnull,
        "--pyargs",
        "mcts_course.grading",
        f"--submission={sub / 'bandits.py' if one_file else sub}",
        "--exercise-set=bandits",
        "-k",
        "ucb1",
        cwd=run,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == []


# -- 08: the budget of a question is the CPU time of the submission's processes -----------------
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="another account needs root to run as")

SLEEPS = """

def ucb1_choice(*args, **kwargs):  # waits: no CPU, no answer
    import time

    time.sleep(600)
"""
SPINS = """

def ucb1_choice(*args, **kwargs):  # loops: CPU, no answer
    while True:
        pass
"""


def _bandits(folder: Path, tail: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + tail)
    return folder


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="") as f:
        return {row["submission"]: row for row in csv.DictReader(f)}


@pytest.fixture(params=["namespaces", "no-namespaces"])
def namespaces(request, monkeypatch) -> str:
    if request.param == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    return str(request.param)


def test_08_a_function_that_waits_is_stopped_by_the_backstop_loudly(tmp_path, capsys, namespaces):
    """No CPU used, no answer: with namespaces (the budget is CPU seconds) the wall-clock
    backstop stops it, and the row says the grading is in doubt (exit 1); without them (one
    submission in a container of its own) the budget is wall seconds, a plain timeout."""
    from mcts_course.cli import main

    sub = _bandits(tmp_path / "napper", SLEEPS)
    out = tmp_path / "out"
    code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    said = capsys.readouterr()
    tests = json.loads((out / "napper" / "results.json").read_text())["tests"]
    stopped = [t for t in tests if t["name"].startswith("[bandits] ucb1_choice")]
    if namespaces == "namespaces":
        assert code == 1, said.out[-3000:] + said.err[-3000:]
        assert _rows(out)["napper"]["status"] == UNDER_LOAD
        assert stopped and stopped[0]["extra_data"]["status"] == UNDER_LOAD, tests
        assert "This is not a grade" in stopped[0]["output"], stopped
    else:
        assert code == 0, said.out[-3000:] + said.err[-3000:]
        assert _rows(out)["napper"]["status"] == "graded"
        assert stopped and stopped[0]["extra_data"]["status"] == "timed out", tests


def test_08_a_function_that_spins_is_stopped_at_its_limit_as_before(tmp_path, capsys, namespaces):
    from mcts_course.cli import main

    sub = _bandits(tmp_path / "spinner", SPINS)
    out = tmp_path / "out"
    code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    said = capsys.readouterr()
    assert code == 0, said.out[-3000:] + said.err[-3000:]
    assert _rows(out)["spinner"]["status"] == "graded"
    tests = json.loads((out / "spinner" / "results.json").read_text())["tests"]
    stopped = [t for t in tests if t["name"].startswith("[bandits] ucb1_choice")]
    assert stopped and stopped[0]["extra_data"]["status"] == "timed out", tests
    assert "did not return within this test's time limit of 3 s" in stopped[0]["output"]


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder of the test's own that the account may enter (never the real /tmp's root)."""
    with folder_in_tmp("gm-shared-", 0o755) as folder:
        yield folder


@as_root
def test_08_a_loaded_machine_costs_the_teaching_assistants_reference_nothing(shared):
    """Attack 08: in the teaching assistant's mode (user namespaces, no cgroup) two reference
    submissions graded at once (--jobs 2) beside two busy processes lost points to time limits
    counted in wall seconds.  Counted in CPU seconds of each submission's processes, the
    reference keeps full marks.  The limits are scaled down (--timeout-scale 0.15) so that the
    wall time of the student's answers, round trips included, overruns them on a loaded
    machine, while its CPU time does not."""
    ta = 65534  # nobody
    if not userns_usable_by(ta):
        pytest.skip("user namespaces are not available to an ordinary account here")
    home = shared / "ta"
    (home / "tmp").mkdir(parents=True)
    for name in ("alice", "bob"):
        _bandits(home / "subs" / name)
    for path in [home, *home.rglob("*")]:
        os.chown(path, ta, ta)
    os.chmod(home / "tmp", 0o700)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.pop("MCTS_NO_NAMESPACES", None)
    command = [*as_account(ta), sys.executable, "-m", "mcts_course", "grade"]
    command += [str(home / "subs" / "alice"), str(home / "subs" / "bob")]
    command += ["--out", str(home / "out"), "--jobs", "2", "--exercise-set=bandits"]
    command += ["-k", "unplayed_first or monte_carlo_move", "--timeout-scale", "0.15"]
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)
    ]  # nice 0, as the graders
    try:
        done = subprocess.run(
            command, env=env, cwd=home, capture_output=True, text=True, timeout=900
        )
    finally:
        for process in busy:
            process.kill()
            process.wait()
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    rows = _rows(home / "out")
    for name in ("alice", "bob"):
        assert rows[name]["status"] == "graded", rows
        assert float(rows[name]["score"]) == float(rows[name]["max_score"]) == 4.0, rows


def test_15_a_submission_holding_the_installed_package_still_collects_its_checks(tmp_path):
    """An editable install's checkout given as the submission (``mcts-course check .`` at its
    top): the course's own checks lie in it but are the code already running; the other
    entries pytest lists on its way down to them are passed by, not refused."""
    import mcts_course

    top = Path(mcts_course.__file__).resolve().parents[1]
    done = _pytest(
        "-c",
        os.devnull,
        f"--rootdir={tmp_path}",
        "--pyargs",
        "mcts_course.grading",
        f"--submission={top}",
        "--exercise-set=bandits",
        "--collect-only",
        "-q",
        cwd=tmp_path,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    assert "tests collected" in done.stdout and "refused" not in said, said[-3000:]
