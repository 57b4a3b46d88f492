"""Red team round 55.

06: without namespaces (Gradescope's container; ``MCTS_NO_NAMESPACES=1`` here) the sandbox hid
the installed checkout's ``mcts_course`` and ``grader`` folders but left the rest of it
readable: a submission read the reference ``bandits.py`` out of the checkout's ``.git`` packs
(plain zlib) and printed it in its own feedback.  Now that fallback covers the copies of the
repository a namespace sandbox covers, all but what the student's process needs of them.

08: ``grade`` killed with SIGKILL (``kill -9``, a scheduler's hard limit) runs no handler.  Its
pytest runs lived on, re-parented, and went on starting sandboxes for the student's code for
more than 79 s with nowhere to write their results; they held the account's phase lock, so its
next batch waited for them without a word (80 s instead of 10 s).  Now a run watches the
``grade`` that started it and stops as ``grade`` would stop it.

21: a teaching assistant's sandbox: the student's code, with its namespace's root user id,
sent SIGINT to the namespace's first process, whose interpreter had a handler for it: the
sandbox ended, the row "killed", the message blaming the machine.  Now that process keeps
SIGINT's default action, which the kernel drops from inside the namespace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_fixtures.batches import private
from grading_fixtures.points import most
from grading_fixtures.shared_folders import SOLUTIONS, as_account, folder_in_tmp, userns_usable_by
from mcts_grader.batch import grade as grade_batch

from mcts_course.grading import checkouts, confine, sandbox

as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="graded runs as root"
)

# every function answers after 2.5 s of sleep: the set's tests take minutes, little CPU
SLOW = """import time
def _slow(*a, **k):
    time.sleep(2.5)
    return 0
ucb1_choice = epsilon_greedy_choice = softmax_choice = monte_carlo_move = _slow
compare_policies = _slow
def make_policy(name, **params):
    return _slow
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _runs(grade: int) -> list[int]:
    """The pytest runs grading a submission (not the pre-run on the reference)."""
    # a phase names the run of a submission; the pre-run, a copy of the reference, has none
    found = []
    for pid in _children(grade):
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(word.startswith(b"--phase") for word in words):
            found.append(pid)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(check, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.25)
    return check()


def test_08_runs_stop_when_their_grade_is_killed(tmp_path):
    subs = private(tmp_path / "subs")
    (subs / "slow").mkdir()
    (subs / "slow" / "bandits.py").write_text(SLOW)
    command = Path(sys.executable).with_name("mcts-course")
    grade = subprocess.Popen(
        [str(command), "grade", "--out", str(tmp_path / "out"), "--exercise-set=bandits", "--"]
        + ["slow"],
        cwd=subs,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the runs are not in the test's process group
    )
    try:
        assert _wait_for(lambda: bool(_runs(grade.pid)), 120), "no run started"
        (run,) = _runs(grade.pid)
        time.sleep(5)  # into the set's tests: the student's code is running
        assert _alive(run)
        grade.send_signal(signal.SIGKILL)
        grade.wait()
        # the run closes its sandboxes and ends (the kernel drops its phase lock with it: the
        # account's next batch does not wait); before, it went on for the set's whole length
        assert _wait_for(lambda: not _alive(run), 30), "the run outlived its grade"
    finally:
        grade.kill()
        grade.wait()


# The reference bandits, whose ucb1_choice first tries to read the checkout the grader runs from
PEEK = """

_right_ucb1_choice = ucb1_choice


def ucb1_choice(*args, **kwargs):
    for path in {paths!r}:
        try:
            with open(path, "rb") as file:
                if not file.read(1):  # a file covered by /dev/null reads empty
                    continue
        except OSError:
            continue
        raise RuntimeError("LEAK " + path)
    return _right_ucb1_choice(*args, **kwargs)
"""


@as_root
@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "no-namespaces"])
def test_06_the_checkout_the_grader_came_from_is_out_of_reach(tmp_path, monkeypatch, namespaces):
    root = checkouts.repository_root(sandbox.PACKAGE)
    if root is None:
        pytest.skip("the library is not installed from a checkout here")
    git = root / ".git"
    paths = [root / "README.md", root / "pyproject.toml", SOLUTIONS / "bandits.py"]
    paths += [git / "HEAD"] if git.is_dir() else [g / "HEAD" for g in checkouts.git_folders(root)]
    if not namespaces:
        monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    try:
        folder = private(tmp_path / "subs") / "peek"
        folder.mkdir()
        code = (SOLUTIONS / "bandits.py").read_text()
        (folder / "bandits.py").write_text(code + PEEK.format(paths=[str(p) for p in paths]))
        (result,) = grade_batch([folder], sets=["bandits"])
    finally:
        confine.namespaces_allowed.cache_clear()
    said = " ".join(o.output for o in result.outcomes)
    assert "LEAK" not in said, said[:1500]
    # the interpreter and what it imports stay: the reference's full marks
    assert result.score == most("bandits"), [(o.test, o.output) for o in result.outcomes]


# 21: the reference bandits, whose ucb1_choice first signals the sandbox's first process
INTERRUPT = """

import os as _os
import signal as _signal

_right_ucb1_choice = ucb1_choice


def ucb1_choice(*args, **kwargs):
    try:
        _os.kill(1, _signal.SIGINT)
    except OSError:
        pass
    return _right_ucb1_choice(*args, **kwargs)
"""
TA = 65534  # nobody: an account with no privilege, as a teaching assistant's


@as_root
def test_21_the_sandboxes_first_process_takes_no_sigint_from_inside():
    if not userns_usable_by(TA):
        pytest.skip("user namespaces are not available to an ordinary account here")
    with folder_in_tmp("r55-21-", 0o755) as where:
        sub = where / "subs" / "interrupt"
        sub.mkdir(parents=True)
        (where / "subs").chmod(0o700)
        code = (SOLUTIONS / "bandits.py").read_text()
        (sub / "bandits.py").write_text(code + INTERRUPT)
        (where / "tmp").mkdir()
        for path in [where, *where.rglob("*")]:
            os.chown(path, TA, TA)
        env = {k: v for k, v in os.environ.items() if k != confine.NO_NAMESPACES_ENV}
        env.update(HOME=str(where), TMPDIR=str(where / "tmp"))
        command = [*as_account(TA), sys.executable, "-m", "mcts_course", "grade"]
        command += ["--out", str(where / "out"), "--exercise-set=bandits", "--", str(sub)]
        done = subprocess.run(
            command, env=env, cwd=where, capture_output=True, text=True, timeout=900
        )
        said = done.stdout + done.stderr
        # before: the sandbox ended at the first question, "killed", exit status 1
        assert done.returncode == 0, said[-3000:]
        data = json.loads((where / "out" / "interrupt" / "results.json").read_text())
    assert data["score"] == most("bandits"), said[-3000:]


# 28, 29: limits no grading can use gave every student, the reference too, a quiet 0 "graded"
# (--timeout-scale 1e-9, --memory-mb 20) or crashed every run (nan, inf)
@pytest.mark.parametrize(
    "option",
    [
        ["--timeout-scale", "1e-9"],
        ["--timeout-scale", "nan"],
        ["--timeout-scale", "inf"],
        ["--memory-mb", "20"],
        ["--memory-mb", "0"],
        ["--memory-mb", "99999999999999999999"],  # red team 56, 11: blamed on confinement
    ],
    ids=lambda o: " ".join(o),
)
def test_28_29_limits_no_grading_can_use_stop_grade_before_anyone_is_graded(tmp_path, option):
    subs = private(tmp_path / "subs")
    (subs / "alice").mkdir()
    (subs / "alice" / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    command = [str(Path(sys.executable).with_name("mcts-course")), "grade", *option]
    command += ["--out", str(tmp_path / "out"), "--", "alice"]
    done = subprocess.run(command, cwd=subs, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{option[0]} must be" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_28_29_the_grading_run_refuses_them_too(tmp_path):
    for option in ("--timeout-scale=nan", "--memory-mb=20"):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--pyargs", "mcts_course.grading", option],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
        assert "must be" in done.stderr, done.stderr


# 02, 11 (nit): an option's value given as the next word was taken for a submission, and the
# error did not say how to give it
@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--exercise-set", "bandits"], "--exercise-set=bandits"),
        (["-k", "ucb1"], "-kucb1"),
    ],
)
def test_02_11_a_value_taken_for_a_submission_is_explained(tmp_path, words, said):
    subs = private(tmp_path / "subs")
    (subs / "alice").mkdir()
    command = [str(Path(sys.executable).with_name("mcts-course")), "grade"]
    command += ["--out", str(tmp_path / "out"), *words, "alice"]
    done = subprocess.run(command, cwd=subs, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"no such submission: {words[1]}" in done.stderr, done.stderr
    assert f"as one word: {said})" in done.stderr, done.stderr


# red team 56, 07: a scale below 1 is accepted, but not quietly: the reference lost 20 of 39
# points at 0.5 on a busy machine
def test_a_scale_below_one_is_said_to_tighten_the_limits(tmp_path):
    command = [str(Path(sys.executable).with_name("mcts-course")), "grade"]
    command += ["--timeout-scale", "0.5", "--out", str(tmp_path / "out"), "--", "nobody"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "warning: --timeout-scale 0.5 tightens every test's time limit" in done.stderr
    plain = subprocess.run(
        [*command[:2], *command[4:]], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert "tightens" not in plain.stderr, plain.stderr
