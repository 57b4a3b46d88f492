"""Red team round 10, helper GK's items: a result on disk never outlives the run that should
have replaced it (a re-grade stopped by a signal, or killed), the per-run folders a killed
grader left in the temporary folder are swept by lock, and a student's bidirectional controls
(note N2) are escaped in pytest.log and results.json.  The grading is real (as root: in the
sandbox)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.batches import honest, private, rows
from grading_fixtures.points import most
from grading_fixtures.shared_folders import SOLUTIONS, folder_in_tmp

from mcts_course.cli import main
from mcts_course.grading.report import printable

BANDITS = "--exercise-set=bandits"
FULL = f"{most('bandits'):g}"
# Unicode's Bidi_Control characters (PropList.txt): the marks, embeddings, overrides, isolates
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


# --- N2: bidirectional controls of a student's output ------------------------------------------
# Red team 10's bidi_bandits.py: the reference with a ucb1_choice whose exception message holds
# terminal escapes, carriage returns and a right-to-left override.
BIDI_UCB1 = """

def ucb1_choice(counts, sums, c=1.4):
    raise RuntimeError("\\x1b]0;RT10PWNED\\x07\\x1b[2J\\x1b[31mred\\u202eevil\\r\\rOVERWRITE")
"""


def test_n2_every_bidi_control_is_escaped_as_in_a_name():
    for char in BIDI_CONTROLS:
        shown = printable(f"one {char}line\n\ttwo")
        assert shown == f"one \\u{ord(char):04x}line\n\ttwo"
    assert printable("caf\u00e9 \u4e2d\u6587 \u2192") == "caf\u00e9 \u4e2d\u6587 \u2192"


def test_n2_a_students_bidi_override_reaches_no_log_raw(tmp_path):
    sub = tmp_path / "excmsg"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + BIDI_UCB1)
    out = tmp_path / "out"
    assert main(["grade", "--out", str(out), BANDITS, "--", str(sub)]) == 0
    log = (out / "excmsg" / "pytest.log").read_text(encoding="utf-8")
    raw = (out / "excmsg" / "results.json").read_text(encoding="utf-8")
    messages = json.dumps([t.get("output", "") for t in json.loads(raw)["tests"]])
    assert "redevil" not in log  # the override is no longer dropped in silence either
    assert "red\\u202eevil" in log and "red\\\\u202eevil" in messages  # json doubles it
    for text in (log, raw, json.loads(raw)["output"], messages):
        assert not any(c in text for c in BIDI_CONTROLS + "\x1b\x07\r")


# --- 1: a re-grade that does not finish leaves no older result -----------------------------------
# A submission changed since its first grading, whose new run sleeps (marked by its argument, so
# that the test can tell its run has started): the grader is stopped while it runs.
SLEEPER = "import time\ntime.sleep({seconds})\n"


@pytest.fixture
def shared() -> Iterator[Path]:
    """A temporary folder of the test's own for the grader run in a subprocess (world-writable
    and sticky, as /tmp: the sandboxes' users reach the public package there); removed after."""
    with folder_in_tmp("gk-r10-shared-", 0o1777) as folder:
        yield folder


def _graded_fully(tmp_path: Path, names: list[str]) -> tuple[Path, Path, dict[str, str]]:
    """``names`` graded in full into ``out``; their logs' last lines (pytest's summaries)."""
    base = private(tmp_path / "subs")
    for name in names:
        honest(base / name)
    out = tmp_path / "out"
    assert main(["grade", "--out", str(out), BANDITS, "--", *(str(base / n) for n in names)]) == 0
    assert {r["submission"]: r["score"] for r in rows(out)} == dict.fromkeys(names, FULL)
    logs = {n: (out / n / "pytest.log").read_text().strip().splitlines()[-1] for n in names}
    return base, out, logs


def _start(command: list[str], tmpdir: Path, marker: str) -> subprocess.Popen[bytes]:
    """The grader, in a session of its own, once the run of the submission whose path ends
    with ``marker`` has started (its pytest process exists) and had a moment to reach the
    student's code."""
    env = dict(os.environ, TMPDIR=str(tmpdir))
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    for _ in range(600):
        found = subprocess.run(["pgrep", "-f", f"submission={marker}( |$)"], capture_output=True)
        if found.stdout.strip():
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    else:
        raise AssertionError("the run never started")
    time.sleep(3)
    return proc


def _old_score_nowhere(out: Path, name: str, old_summary: str) -> None:
    data = json.loads((out / name / "results.json").read_text())
    assert data["extra_data"]["status"] == "not graded" and data["score"] == 0, data
    assert old_summary not in (out / name / "pytest.log").read_text()
    if (out / "grades.csv").exists():
        row = {r["submission"]: r for r in rows(out)}[name]
        assert (row["status"], row["score"]) == ("not graded", "0")


def test_1_a_regrade_stopped_by_sigterm_leaves_no_older_score(tmp_path, shared):
    base, out, logs = _graded_fully(tmp_path, ["alice", "bob"])
    (base / "alice" / "bandits.py").write_text(SLEEPER.format(seconds=1011))  # changed
    command = [sys.executable, "-m", "mcts_course", "grade", "--force", "--jobs", "1"]
    command += ["--out", str(out), BANDITS, "--", str(base / "alice"), str(base / "bob")]
    proc = _start(command, shared, str(base / "alice"))
    proc.send_signal(signal.SIGTERM)  # the grader alone, as `kill` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()
    # alice's run was stopped, bob's never started: neither shows its first grading's score
    for name in ("alice", "bob"):
        _old_score_nowhere(out, name, logs[name])
    carol = honest(base / "carol")
    assert main(["grade", "--force", "--out", str(out), BANDITS, "--", str(carol)]) == 0
    table = {r["submission"]: (r["status"], r["score"]) for r in rows(out)}
    assert table == {  # the rebuild from --out resurrects nothing
        "alice": ("not graded", "0"),
        "bob": ("not graded", "0"),
        "carol": ("graded", FULL),
    }
    for name in ("alice", "bob"):
        _old_score_nowhere(out, name, logs[name])


def test_1_a_regrade_killed_with_sigkill_leaves_no_older_score(tmp_path, shared):
    base, out, logs = _graded_fully(tmp_path, ["alice"])
    (base / "alice" / "bandits.py").write_text(SLEEPER.format(seconds=23))  # ends by itself
    command = [sys.executable, "-m", "mcts_course", "grade", "--force", "--out", str(out)]
    command += [BANDITS, "--", str(base / "alice")]
    proc = _start(command, shared, str(base / "alice"))
    os.killpg(proc.pid, signal.SIGKILL)  # the grader and its pytest run: nothing can clean up
    proc.communicate(timeout=60)
    _old_score_nowhere(out, "alice", logs["alice"])
    carol = honest(base / "carol")
    assert main(["grade", "--force", "--out", str(out), BANDITS, "--", str(carol)]) == 0
    _old_score_nowhere(out, "alice", logs["alice"])  # the rebuild resurrects nothing


def test_1_a_gradescope_run_stopped_by_a_signal_leaves_no_earlier_results(tmp_path, monkeypatch):
    from mcts_grader import batch

    sub = honest(tmp_path / "submission")
    results = tmp_path / "results" / "results.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tmp_path / "no-tests"))
    assert main(["grade", "--gradescope", BANDITS]) == 0  # an earlier run's, graded
    assert json.loads(results.read_text())["score"] == most("bandits")

    def stopped(*args: object, **kwargs: object) -> None:
        raise batch.Stopped(signal.SIGTERM)  # the autograder stopped mid-run

    monkeypatch.setattr(batch, "grade_one", stopped)
    assert main(["grade", "--gradescope", BANDITS]) == 128 + signal.SIGTERM
    assert not results.exists() and not (results.parent / "pytest.log").exists()


# --- 2: the per-run folders of a grader killed with SIGKILL are swept, by lock -----------------
HOLDER = """
import sys, time
from mcts_course.grading import leftovers
print(leftovers.make(sys.argv[1], sys.argv[2]), flush=True)
time.sleep(300)
"""


def _holder(prefix: str, where: Path) -> tuple[subprocess.Popen[str], Path]:
    """A live process holding a folder of :func:`leftovers.make`'s, as a grader does."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, prefix, str(where)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def _swept_when_released(where: Path, names: set[str]) -> set[str]:
    """Sweep ``where`` until ``names`` are gone (at most 10 s: a killed process's locks go
    once the kernel has torn it down); the names still there."""
    from mcts_course.grading import leftovers

    for _ in range(100):
        leftovers.sweep(where)
        if not any((where / n).exists() for n in names):
            break
        time.sleep(0.1)
    return {n for n in names if (where / n).exists()}


def test_2_only_a_dead_graders_own_folders_are_swept(shared, monkeypatch):
    from mcts_course.grading import leftovers

    monkeypatch.setattr(leftovers, "GRACE", 0.0)  # old enough: only the lock protects them
    live, held = _holder("mcts-sandboxes-", shared)
    dead, left = _holder("mcts-box-", shared)
    try:
        dead.kill()
        dead.wait()
        unmarked = shared / "mcts-work-abcd1234"  # a grader's that takes no lock (an older one)
        unmarked.mkdir()
        link = shared / "mcts-grade-link1234"
        link.symlink_to(held)
        assert _swept_when_released(shared, {left.name}) == set()
        assert held.is_dir() and (held / leftovers.MARK).exists()  # its grader lives
        assert unmarked.is_dir() and link.is_symlink()
        if os.geteuid() == 0:  # another user's folder of that name, marked: never ours
            theirs = shared / "mcts-public-4242-theirs12"
            theirs.mkdir()
            (theirs / leftovers.MARK).touch()
            for path in (theirs, theirs / leftovers.MARK):
                os.chown(path, 65534, 65534)
            assert theirs.name not in leftovers.sweep(shared) and theirs.is_dir()
    finally:
        live.kill()
        live.wait()
    assert _swept_when_released(shared, {held.name}) == set()  # its grader is gone now


def test_2_a_batch_killed_with_sigkill_leaves_nothing_after_the_next(tmp_path, shared, monkeypatch):
    from mcts_course.grading import confine, sandbox

    base = private(tmp_path / "subs")
    honest(base / "alice")
    (base / "bob").mkdir()
    (base / "bob" / "bandits.py").write_text(SLEEPER.format(seconds=29))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "mcts_course", "grade", "--jobs", "1", "--out", str(out)]
    command += [BANDITS, "--", str(base / "bob"), str(base / "alice")]
    proc = _start(command, shared, str(base / "bob"))
    os.killpg(proc.pid, signal.SIGKILL)  # the grader and its run, mid-batch
    proc.communicate(timeout=60)
    left = {p.name for p in shared.iterdir() if p.name.startswith("mcts-")}
    kinds = {re.sub(r"-(\d+-)?[a-z0-9_]{8}$", "", n) for n in left}
    assert {"mcts-grader", "mcts-public", "mcts-sandboxes"} <= kinds, left
    for _ in range(100):  # the run, killed too, lets its locks go once torn down
        found = subprocess.run(
            ["pgrep", "-f", f"submission={base / 'bob'}( |$)"], capture_output=True
        )
        if not found.stdout.strip():
            break
        time.sleep(0.1)
    time.sleep(confine.GRACE + 0.5)  # past the grace of a folder between its mkdir and its lock
    # the next grader, in this process, sweeps this folder: the same code as any grade's start
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setattr(sandbox, "_BASE_PARENT", str(shared))
    assert main(["grade", "--out", str(tmp_path / "out2"), BANDITS, "--", str(base / "alice")]) == 0
    assert not any((shared / n).exists() for n in left), sorted(os.listdir(shared))


# --- N1: a local user's entries in the temporary folder do not use up the sweep ----------------
STRANGER, STUDENT = 65534, 3_999_917  # nobody, and a swept id no account has


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (folders of other users)")
def test_n1_a_local_users_folders_do_not_cut_the_sweep(shared, monkeypatch):
    from mcts_course.grading import sweep

    monkeypatch.setattr(sweep, "ENTRIES", 50)  # stands for the million of the attack
    theirs = shared / "theirs"  # a local user's folder, 755: the student's id cannot write in it
    theirs.mkdir()
    for k in range(200):
        (theirs / f"d{k:03d}").mkdir()
    open_ = shared / "open"  # another folder of that user's, world-writable: the id wrote in it
    open_.mkdir()
    (open_ / "note").write_text("for the next run")
    os.chown(open_ / "note", STUDENT, STUDENT)
    for path in (theirs, open_, *theirs.iterdir()):
        os.chown(path, STRANGER, STRANGER)
    open_.chmod(0o1777)
    found = sweep.sweep({STUDENT}, roots=(str(shared),))
    assert not found.cut and found.files == 1 and not (open_ / "note").exists()
    assert len(list(theirs.iterdir())) == 200  # untouched
    # a walk that really is cut still says so: entries the id could have written in
    for k in range(60):
        (open_ / f"f{k}").touch()
    assert sweep.sweep({STUDENT}, roots=(str(shared),)).cut


def test_1_a_refused_regrade_shows_no_older_score_and_a_fresh_one_writes_no_table(
    tmp_path, monkeypatch, capsys
):
    from mcts_grader import batch

    from mcts_course.grading.sandbox import SandboxError

    base, out, logs = _graded_fully(tmp_path, ["alice"])

    def refused(*args: object, **kwargs: object) -> None:
        raise SandboxError("the sandbox cannot be built: (a test's refusal)")

    monkeypatch.setattr(batch, "run_one", refused)
    args = [BANDITS, "--", str(base / "alice")]
    assert main(["grade", "--force", "--out", str(out), *args]) != 0
    _old_score_nowhere(out, "alice", logs["alice"])
    fresh = tmp_path / "fresh"
    assert main(["grade", "--out", str(fresh), *args]) != 0
    assert not (fresh / "grades.csv").exists()  # the next grade into it needs no --force
    assert "a test's refusal" in capsys.readouterr().err
