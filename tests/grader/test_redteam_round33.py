"""Red team round 33, all as a teaching assistant (no cgroup): a grading run killed by SIGKILL
left its sandbox running, its student code spawning daemons (03); on a machine short of memory
the kernel killed the grader first, and the submission lived on holding the memory (04); a
helper waiting for a ``vfork`` child that never execs made every pause wait out its limit (05).
The cgroups are switched off here to take the teaching assistant's path on any machine."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grading_fixtures.asking import CALL, namespaced
from test_pidns_pause import alive, identity

from mcts_course.grading import pidns, sandbox

OOM = """
def f(x):
    found = open("/proc/self/oom_score_adj").read().strip()
    try:
        with open("/proc/self/oom_score_adj", "w") as out:
            out.write("0")
        lowered = "lowered"
    except OSError as error:
        lowered = type(error).__name__
    return found + " " + lowered
"""


@namespaced
def test_04_the_students_processes_are_the_first_the_kernel_kills(started):
    process = started(OOM)
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    found, lowered = reply["ok"].split()
    assert found == "1000", reply
    if sandbox.writes_abi(sandbox.confinement_mode()) > 0:  # Landlock: no write there
        assert lowered != "lowered", reply


VFORK = """
import ctypes, os

STARTED = []

def f(x):
    if not STARTED:
        STARTED.append(1)
        if os.fork() == 0:  # a helper waiting for a vfork child that never execs
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.vfork() == 0:
                while True:
                    libc.pause()
            os._exit(0)
    return x + 1
"""


@namespaced
def test_05_a_process_waiting_for_its_vfork_child_counts_as_stopped(started, monkeypatch):
    import mcts_course.grading.process as process_module

    results: list[bool] = []
    real = process_module.stop_from_inside

    def watched(*args):
        results.append(real(*args))
        return results[-1]

    monkeypatch.setattr(process_module, "stop_from_inside", watched)
    process = started(VFORK)
    for _ in range(4):
        reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
        assert reply["ok"] == 2
    assert results and all(results), results  # never the wait's limit, then the scan


ORPHAN = """
import pathlib, sys, time
from mcts_course.grading import confine
from mcts_course.grading.process import StudentProcess
confine.cgroups_allowed = lambda: False
public = pathlib.Path(sys.argv[1])
process = StudentProcess(None, "probe.py", None, ["f"], public, code="def f(x):\\n    return x\\n")
process.start()
print(process.init_pid, flush=True)
time.sleep(600)
"""


@namespaced
def test_03_a_sandbox_dies_with_the_run_that_started_it():
    public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    public.chmod(0o755)
    run = subprocess.Popen(
        [sys.executable, "-c", ORPHAN, str(public)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        init = int(run.stdout.readline())
        namespace = pidns._namespace(init)
        assert namespace is not None
        inside = [identity(pid) for pid in pidns.members(namespace)]
        assert len(inside) >= 2, inside  # its first process and the server
    finally:
        run.send_signal(signal.SIGKILL)  # the grading run, killed as the OOM killer would
        run.wait()
        shutil.rmtree(public, ignore_errors=True)
    # The kernel ends them asynchronously: tests/conftest.py's limit stops a wait without end.
    # The processes themselves, not the namespace's name, which the next namespace may reuse.
    while any(alive(who) for who in inside):
        time.sleep(0.05)


def _gone(process) -> str:
    """Why ``process`` ended, as the question that found it gone says."""
    from mcts_course.grading.process import StudentGone

    try:
        process.exchange(CALL, 5.0, lambda m: {}, "f")
    except StudentGone as gone:
        return str(gone)
    raise AssertionError("the process answered")


@namespaced
def test_a_first_process_killed_from_outside_is_not_the_students_exit(started):
    """Killed from outside, the namespace's first process takes every process of the
    namespace with it, and ``unshare`` exits 1, as if the student's code had called
    ``os._exit(1)``: the run is ``killed``, not the student's fault."""
    process = started("def f(x):\n    return x + 1\n")
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert reply["ok"] == 2
    os.kill(process.init_pid, signal.SIGKILL)
    process.proc.wait(timeout=30)  # its end is asynchronous: the launcher waits for it
    why = _gone(process)
    assert process.outside, why
    assert "sent neither by the grader nor by a cap" in why, why


@namespaced
def test_a_students_exit_1_stays_its_own(started):
    process = started("import os\n\ndef f(x):\n    os._exit(1)\n")
    why = _gone(process)
    assert not process.outside and "exited with status 1" in why, why
