"""Red teams 12 and 13.  Round 12, 06: a submission's held-back tests ran while a neighbour of
the same batch (``grade --jobs 2``) ran its visible ones; the held-back process sized files in
its private ``/dev/shm`` per character of its hidden inputs, and the neighbour read them back
from the machine-wide ``Shmem:`` line of ``/proc/meminfo`` into its own feedback.  A batch now
runs each held-back phase alone (:mod:`mcts_course.grading.phases`).  Round 12's 01 and 08
(what other local accounts can watch) and round 13's 05 (execution_time), 15 and 16 (locks and
watches on shared files) and 20 (a stranger's lock on the grader's cgroups) follow."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS
from mcts_grader import observers
from test_redteam_round11_gl import _hidden_tests

from mcts_course.grading import invocation, phases

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")


def _entered(p: phases.Phases, held_back: bool, log: list[str], name: str) -> threading.Thread:
    def go() -> None:
        p.enter(held_back)
        log.append(name)

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread


def _busy(path: Path) -> bool:
    """Whether a run holds ``path``'s lock (a run waiting for its held-back phase holds the
    gate)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_held_back_phase_waits_for_the_visible_ones_and_goes_before_later_ones(tmp_path):
    phases.make(tmp_path)
    first, waiting, later = (phases.Phases(str(tmp_path)) for _ in range(3))
    log: list[str] = []
    first.enter(held_back=False)
    held = _entered(waiting, True, log, "held back")
    deadline = time.monotonic() + 10
    while not _busy(tmp_path / "gate.lock") and time.monotonic() < deadline:
        time.sleep(0.02)
    visible = _entered(later, False, log, "visible")  # asks after the held-back phase did
    time.sleep(0.5)
    assert log == [], "a phase began while another run's visible phase was under way"
    first.close()
    held.join(10)
    assert log == ["held back"]  # the later visible phase still waits for it
    waiting.close()
    visible.join(10)
    assert log == ["held back", "visible"]
    later.close()


def test_visible_phases_run_side_by_side(tmp_path):
    phases.make(tmp_path)
    one, two = phases.Phases(str(tmp_path)), phases.Phases(str(tmp_path))
    log: list[str] = []
    one.enter(held_back=False)
    _entered(two, False, log, "two").join(10)
    assert log == ["two"]
    one.close()
    two.close()


def test_a_run_alone_takes_no_lock(tmp_path):
    alone = phases.Phases(None)
    alone.enter(held_back=True)  # returns at once: nothing to wait for
    alone.close()


def test_a_grading_run_holds_its_held_back_tests_until_the_other_runs_visible_phase_ends(
    tmp_path,
):
    """The plugin's side: a real pytest run of the reference with hidden tests, in a batch where
    another run (this test) is in its visible phase: the run's visible tests go on, its first
    held-back test waits, and it ends, graded in full, once the other run's phase ends."""
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SOLUTIONS / "bandits.py", sub / "bandits.py")
    batch = tmp_path / "batch"
    batch.mkdir(mode=0o700)
    phases.make(batch)
    other = phases.Phases(str(batch))
    other.enter(held_back=False)
    results = tmp_path / "results.json"
    args = invocation.pytest_args(
        sub,
        reference=True,
        tests=[_hidden_tests(tmp_path)],
        results_json=results,
        options=["-q", "--exercise-set=bandits", "-k", "ucb1 or secret or later"],
        rootdir=tmp_path,
    )
    env = {**os.environ, phases.PHASES_ENV: str(batch)}
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        waited = 0
        while waited < 10 and time.monotonic() < deadline and run.poll() is None:
            waited = waited + 1 if _busy(batch / "gate.lock") else 0
            time.sleep(0.2)
        assert waited == 10, "the run never waited for its held-back phase"
        assert run.poll() is None and not results.exists()
    finally:
        other.close()
    said, _ = run.communicate(timeout=600)
    assert run.returncode == 0, said[-3000:]
    assert "passed" in said and "failed" not in said, said[-3000:]


# -- 01 and 08: what other local accounts can watch ---------------------------------------------
def test_the_proc_mount_options_say_whether_processes_are_hidden(tmp_path):
    info = tmp_path / "mountinfo"
    line = "22 1 0:20 / {where} rw,nosuid - proc proc rw{extra}\n"
    info.write_text(line.format(where="/proc", extra=""))
    assert not observers.proc_hides_processes(info)
    info.write_text(
        line.format(where="/sys", extra="") + line.format(where="/proc", extra=",hidepid=invisible")
    )
    assert observers.proc_hides_processes(info)
    info.write_text(line.format(where="/proc", extra=",hidepid=0"))
    assert not observers.proc_hides_processes(info)


@pytest.mark.skipif(os.geteuid() != 0, reason="another account's process needs root to start")
def test_grade_warns_when_another_account_has_processes_here(tmp_path, capsys):
    """Red team 12's 01 and 08 need a second account on the grading machine: no sandbox hides a
    process's arguments from it (without hidepid) nor the machine's counters, so grade says so."""
    from mcts_course.cli import main

    other = 1500  # a login account's id, outside the sandboxes' range
    assert other not in observers.other_accounts()
    watcher = subprocess.Popen(["sleep", "60"], user=other, group=other)
    try:
        assert other in observers.other_accounts()
        sub = tmp_path / "sub"
        sub.mkdir()
        shutil.copy(SOLUTIONS / "bandits.py", sub / "bandits.py")
        main(
            [
                "grade",
                str(sub),
                "--out",
                str(tmp_path / "out"),
                "--exercise-set=bandits",
                "-k",
                "ucb1",
            ]
        )
        said = capsys.readouterr().err
        assert "other accounts have processes on this machine" in said and "1500" in said, said
        assert "hidepid=invisible" in said, said
        # said before the batch (an instructor can still stop it), and not said twice
        assert said.index("other accounts have processes") < said.index("sub:"), said
        assert said.count("other accounts have processes") == 1, said
    finally:
        watcher.kill()
        watcher.wait()


# -- red team 13, 05: the run's length told how long the held-back process slept -------------
SLEEPS_ON_THE_HIDDEN_INPUT = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer; on the hidden counts, first a sleep as long as their first
    count (no CPU: the question's clock does not see it)."""
    if list(counts) == [3, 5, 7]:
        import time

        time.sleep(4 * counts[0])
    return _reference_ucb1(counts, sums, c)
'''


def test_execution_time_counts_the_visible_tests_only(tmp_path):
    """The same run with and without a 12 s sleep in the held-back process: the same
    execution_time, within the noise of a loaded machine."""
    from test_redteam_round11_gl import _grade

    times = {}
    for name, tail in (("honest", ""), ("sleepy", SLEEPS_ON_THE_HIDDEN_INPUT)):
        sub = tmp_path / name / name
        sub.mkdir(parents=True)
        (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + tail)
        data, _, _ = _grade(sub, tmp_path / name)
        assert data["extra_data"]["status"] == "graded"
        times[name] = data["execution_time"]
    assert times["sleepy"] - times["honest"] < 6, times


# -- red team 13, 15 and 16: locks and watches on files the sandbox shares with the machine ----
LOCKS_UNDER_THE_FILTER = """
import ctypes, errno, fcntl, os, sys
from mcts_course.grading import kernel

assert kernel.install_filter()
seen = {}
fd = os.open(sys.argv[1], os.O_RDWR)
folder = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY)
libc = ctypes.CDLL(None, use_errno=True)
calls = {
    "flock": lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB),
    "lockf": lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB),
    "F_GETLK": lambda: fcntl.fcntl(fd, fcntl.F_GETLK, bytes(32)),
    "F_OFD_SETLK": lambda: fcntl.fcntl(fd, fcntl.F_OFD_SETLK, bytes(32)),
    "F_SETLEASE": lambda: fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK),
    "F_NOTIFY": lambda: fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS),
}
for what, call in calls.items():
    try:
        call()
        seen[what] = "ok"
    except OSError as error:
        seen[what] = errno.errorcode[error.errno]
for what in ("inotify_init1", "fanotify_init"):
    got = getattr(libc, what)(0, 0) if what == "fanotify_init" else libc.inotify_init1(0)
    seen[what] = "ok" if got >= 0 else errno.errorcode[ctypes.get_errno()]
import signal
try:  # red team 16, 04: a child reaped by the kernel takes its CPU seconds out of every count
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    seen["SIGCHLD ignored"] = "ok"
except OSError as error:
    seen["SIGCHLD ignored"] = errno.errorcode[error.errno]
seen["SIGCHLD read"] = "ok" if signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL else "wrong"
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # other signals' actions are the code's own
flags = fcntl.fcntl(fd, fcntl.F_GETFL)  # what ordinary work asks of fcntl still works
fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
seen["F_GETFL"] = "ok" if flags & os.O_RDWR else "wrong"
print(repr(seen))
"""


def test_the_filter_refuses_file_locks_leases_and_watches(tmp_path):
    """A held-back process locked, or opened, files every sandbox shares (the set's copy of the
    package, /usr) one bit at a time; a neighbour or a local account polling the same locks, or
    watching the folder with inotify, read the hidden input.  Neighbours no longer overlap
    (phases); the filter takes the means away too."""
    from mcts_course.grading import kernel

    if kernel._arch() is None:
        pytest.skip("the seccomp filter is Linux's (x86_64, arm64)")
    target = tmp_path / "shared.py"
    target.write_text("")
    script = tmp_path / "under.py"
    script.write_text(LOCKS_UNDER_THE_FILTER)
    done = subprocess.run(
        [sys.executable, str(script), str(target)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our own script's repr)
    assert seen.pop("F_GETFL") == "ok" and seen.pop("SIGCHLD read") == "ok"
    assert seen == dict.fromkeys(seen, "EPERM"), seen


# -- red team 13, 20: a stranger's lock on the grader's cgroup folders --------------------------
def test_no_other_account_may_open_a_graders_cgroup_folder(tmp_path):
    """The grader holds an flock on each of its cgroup folders and sweeps a dead grader's by
    taking it: a stranger able to open the folder could hold the lock (keeping a dead grader's
    cgroups, frozen processes and all) or take it between mkdir and the grader's lock (failing
    the batch).  The folders are root's alone."""
    from test_redteam_round8_gg import VICTIM, _dead_pid

    from mcts_course.grading import confine

    if os.geteuid() != 0 or not confine.cgroups_allowed():
        pytest.skip("needs root and cgroups")
    name = f"{_dead_pid()}-box-rt13cg"
    proc = subprocess.Popen([sys.executable, "-c", VICTIM, name], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        folders = [
            confine._own_cgroup(c) / f"mcts-{name}"
            for c in confine.CONTROLLERS
            if confine._own_cgroup(c) is not None
        ]
        assert folders
        for folder in folders:
            assert folder.stat().st_mode & 0o077 == 0, folder
        # as nobody: opening a folder to lock it needs read permission, as listing it does
        probe = 'for f; do ls "$f" > /dev/null 2>&1 && echo "opened $f"; done; true'
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        done = subprocess.run(
            [*drop, "sh", "-c", probe, "sh", *map(str, folders)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr
    finally:
        proc.kill()
        proc.wait()
        confine.GRACE, old = 0.0, confine.GRACE
        try:
            confine.remove_stale()
        finally:
            confine.GRACE = old


# -- red team 14, 05: the public copy's folder open to others for a moment ----------------------
def test_the_public_copys_folder_is_the_graders_alone_from_its_mkdir(monkeypatch):
    """The batch's copy of the package was made 755 and closed only once written: a stranger
    polling TMPDIR opened it in between and held its lock, keeping a killed grader's folder."""
    from mcts_grader import batch

    from mcts_course.grading import sandbox

    seen: list[int] = []
    real = sandbox.public_package

    def watched(dest):
        seen.append(dest.stat().st_mode & 0o777)
        return real(dest)

    monkeypatch.setattr(sandbox, "public_package", watched)
    with batch._batch_env() as (_, env):
        assert env
    assert seen == [0o700]
