"""Red team round 41: a SIGKILL from an out-of-memory killer above the submission's own limit
to a process the submission started (a pool's worker), not its first one, failed a test of a
run graded as if the code had (06); and another program's SIGTERM or SIGHUP to the student's
process cost the rest of the set in a run graded as the code's crash (07)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from grading_fixtures.asking import CALL, namespaced

from mcts_course.grading import confine
from mcts_course.grading.process import StudentGone

as_root_with_cgroups = pytest.mark.skipif(
    os.geteuid() != 0 or not confine.cgroups_allowed(),
    reason="needs root and memory cgroups (v1)",
)


# -- 07: a signal only a kill sends ----------------------------------------------------------
@namespaced
@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGHUP])
def test_07_another_programs_signal_makes_the_run_not_graded(started, sent):
    process = started("import time\n\ndef f(x):\n    return x + 1\n")
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert reply["ok"] == 2
    os.kill(process.server_pid, sent)  # from outside, between questions (kept till it runs)
    with pytest.raises(StudentGone) as gone:
        process.exchange(CALL, 5.0, lambda m: {}, "f")
    why = str(gone.value)
    assert process.outside, why
    assert signal.Signals(sent).name in why and "not a grade" in why, why


@namespaced
def test_07_a_fault_stays_the_codes_own(started):
    process = started("import ctypes\n\ndef f(x):\n    return ctypes.string_at(0)\n")
    with pytest.raises(StudentGone) as gone:
        process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert not process.outside and "SIGSEGV" in str(gone.value), gone.value


# -- 06: an out-of-memory kill of any process of the submission ------------------------------
WORKER = """
import os, time

def f(x):
    pids = []
    for _ in range({n}):  # a pool's workers: {mb} MB each, really used
        pid = os.fork()
        if pid == 0:
            data = bytearray({mb} << 20)
            for k in range(0, len(data), 4096):
                data[k] = 1
            time.sleep(1)  # all at once
            os._exit(0)
        pids.append(pid)
    return max(os.waitpid(pid, 0)[1] for pid in pids)
"""

UNDER = """
import os, sys, tempfile
from pathlib import Path
from grading_fixtures.asking import CALL
from mcts_course.grading import sandbox
from mcts_course.grading.process import StudentProcess

parent, n, megabytes, memory_mb = Path(sys.argv[1]), *map(int, sys.argv[2:5])
(parent / "cgroup.procs").write_text(str(os.getpid()))  # the grader's memory cgroup
public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
public.chmod(0o755)
code = sys.stdin.read().format(n=n, mb=megabytes)
process = StudentProcess(None, "probe.py", None, ["f"], public, memory_mb, code=code)
process.start()
reply, _ = process.exchange(CALL, 30.0, lambda m: {}, "f")
process.kill()
print(repr((reply.get("ok"), process.outside)))
"""


def _memory_cgroup(limit_mb: int | None) -> Path:
    own = confine._own_cgroup("memory")
    assert own is not None
    folder = Path(tempfile.mkdtemp(prefix="mcts-test-oom-", dir=own))
    if limit_mb is not None:
        (folder / "memory.limit_in_bytes").write_text(str(limit_mb << 20))
    return folder


def _remove(folder: Path) -> None:
    for _ in range(200):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def _graded_under(
    limit_mb: int | None, workers: int, worker_mb: int, memory_mb: int
) -> tuple[int, bool]:
    """``workers`` workers of ``worker_mb`` MB at once, the submission's cap ``memory_mb``, the
    grader in a memory cgroup capped at ``limit_mb`` (a container's limit): the largest of the
    workers' wait statuses and whether the run is told killed from outside."""
    folder = _memory_cgroup(limit_mb)
    try:
        done = subprocess.run(
            [sys.executable, "-c", UNDER, str(folder), *map(str, (workers, worker_mb, memory_mb))],
            input=WORKER,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert done.returncode == 0, done.stderr[-3000:]
        status, outside = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our repr)
        return status, outside
    finally:
        _remove(folder)


@as_root_with_cgroups
def test_06_a_worker_killed_by_an_outer_memory_limit_makes_the_run_not_graded():
    status, outside = _graded_under(limit_mb=300, workers=1, worker_mb=600, memory_mb=1024)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    assert outside


@as_root_with_cgroups
def test_06_a_worker_killed_by_the_submissions_own_cap_is_its_own():
    # each under the per-process cap, together over the cgroup's (the cap and its tmpfs: 409 MB)
    status, outside = _graded_under(limit_mb=None, workers=4, worker_mb=150, memory_mb=200)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    assert not outside


@as_root_with_cgroups
def test_06_a_worker_within_every_limit_is_no_kill():
    status, outside = _graded_under(limit_mb=None, workers=1, worker_mb=50, memory_mb=1024)
    assert status == 0 and not outside


@namespaced
@as_root_with_cgroups  # to make an out-of-memory kill elsewhere on the machine
def test_06_without_a_memory_cgroup_any_kill_on_the_machine_counts(started):
    """A teaching assistant's sandbox has no memory cgroup: whose process the machine's killer
    took is not known, and any kill while the sandbox lives makes the run not graded."""
    process = started("def f(x):\n    return x + 1\n")
    assert not process.outside
    before = confine.machine_oom_kills()
    folder = _memory_cgroup(64)
    try:
        join = 'echo $$ > "$1/cgroup.procs"; exec "$2" -c "bytearray(256 << 20)"'
        subprocess.run(["/bin/sh", "-c", join, "sh", str(folder), sys.executable], timeout=60)
    finally:
        _remove(folder)
    assert before is not None and (confine.machine_oom_kills() or 0) > before
    assert process.outside
