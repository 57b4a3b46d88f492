"""Without a cgroup freezer, daemons that left the student's process group are stopped too
between questions (red-team attack 11: as an ordinary user, 30 `setsid` daemons per submission
kept running while the grader "paused" it).  The freezer is switched off here to take the
ordinary user's path on any machine that has namespaces."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest
from grading_fixtures.asking import CALL

from mcts_course.grading import confine, pidns, sandbox
from mcts_course.grading.process import StudentProcess

DAEMON = """
import os

def _daemon():
    child = os.fork()
    if child == 0:
        try:
            os.setsid()  # out of the process group the grader stops
        except PermissionError:  # the filter refuses it (red team 39, 01)
            pass
        if os.fork() == 0:
            while True:
                pass
        os._exit(0)
    os.waitpid(child, 0)

_daemon()

def f(x):
    return x + 1
"""


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def ticks(pid: int) -> int:
    fields = _stat(pid)
    return int(fields[11]) + int(fields[12])


def identity(pid: int) -> tuple[int, str]:
    """A process as itself, not its number: (pid, start time in ticks after boot).  A pid is
    reused (pid_max is 32768 here), and so is a namespace's ``pid:[inode]`` name, the lowest
    free one going to the next namespace made on the machine (another grader's sandbox)."""
    return pid, _stat(pid)[19]


def alive(who: tuple[int, str]) -> bool:
    """Whether that very process still runs (a zombie runs nothing: it waits to be reaped)."""
    try:
        fields = _stat(who[0])
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[19] == who[1] and fields[0] not in ("Z", "X")


def busy(pids: list[int]) -> list[int]:
    """The processes among ``pids`` that got CPU time during half a second."""
    before = {pid: ticks(pid) for pid in pids}
    time.sleep(0.5)
    return [pid for pid in pids if ticks(pid) - before[pid] > 1]


@pytest.mark.skipif(
    sandbox.confinement_mode() not in ("namespaces", "userns"),
    reason="needs the namespace sandbox (a pid namespace per submission)",
)
def test_setsid_daemons_are_stopped_between_questions(monkeypatch):
    monkeypatch.setattr(confine.Cage, "freeze", lambda self: False)  # no freezer
    monkeypatch.setattr(confine.Cage, "thaw", lambda self: None)
    public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    public.chmod(0o755)
    process = StudentProcess(None, "daemon.py", None, ["f"], public, code=DAEMON)
    try:
        process.start()
        assert process.proc is not None
        call = {"op": "call", "name": "f", "many": False, "calls": [[[1], {"$d": []}]]}
        reply, _ = process.exchange({**call, "nodes": []}, 5.0, lambda m: {}, "f")
        assert reply["ok"] == 2
        namespace = pidns.sandbox_namespace(process.proc.pid)
        assert namespace is not None
        inside = pidns.members(namespace)
        assert len(inside) >= 2  # the server (and its launcher shell) and the daemon
        ran = [identity(pid) for pid in inside]
        # paused: the daemon too (the first process, the grader's, stops them, now and then)
        assert busy([p for p in inside if p != process.init_pid]) == []
        again, _ = process.exchange({**call, "nodes": []}, 5.0, lambda m: {}, "f")
        assert again["ok"] == 2  # and resumed for the next question
        assert busy([p for p in pidns.members(namespace) if p != process.init_pid]) == []
    finally:
        process.kill()
        shutil.rmtree(public, ignore_errors=True)
    # Nothing of it outlives its run.  The kernel kills a namespace's processes asynchronously:
    # wait for that (tests/conftest.py's time limit stops a wait that never ends), and ask
    # about the processes themselves, not about the namespace's name: once the namespace is
    # gone, its name may already be another sandbox's (the old check failed under load, when
    # other batches made namespaces; a fixed 5 s wait was the other guess).
    while any(alive(who) for who in ran):
        time.sleep(0.05)
    assert process.proc.pid not in pidns._STOPPED  # nor is its namespace's name kept


@pytest.mark.skipif(
    sandbox.confinement_mode() not in ("namespaces", "userns"),
    reason="needs the namespace sandbox (a pid namespace per submission)",
)
def test_what_the_kernel_continues_between_questions_is_stopped_again(started):
    """The kernel continues a stopped process group that becomes orphaned (red team 39, 01):
    here the SIGCONT comes from outside, as the kernel's would, long after the stop; the
    namespace's first process stops it again within its RESTOP_LATER."""
    process = started(DAEMON)
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert reply["ok"] == 2
    inside = pidns.members(pidns.sandbox_namespace(process.proc.pid) or "")
    woken = [p for p in inside if p != process.init_pid]
    assert woken and busy(woken) == []
    for pid in woken:
        os.kill(pid, signal.SIGCONT)
    time.sleep(0.2)
    assert busy(woken) == [], [pidns.state(p) for p in woken]


LEADERLESS = """
import ctypes, platform, threading

def spin():
    while True:
        pass

threading.Thread(target=spin).start()
ctypes.CDLL(None).syscall({"x86_64": 60, "aarch64": 93}[platform.machine()], 0)  # SYS_exit
"""


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_a_process_whose_leader_ended_is_not_stopped_while_a_thread_runs():
    """A leader thread that ended shows ``Z`` while another thread of it runs: the pause took
    it for stopped (red team 39, 02)."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", LEADERLESS])
    try:
        while pidns.state(proc.pid) != b"Z":
            time.sleep(0.01)
        assert not pidns._stopped(proc.pid)
        os.kill(proc.pid, signal.SIGSTOP)
        while not pidns._stopped(proc.pid):  # (the test's time limit ends a wait without end)
            time.sleep(0.01)
    finally:
        proc.kill()
        proc.wait()
