"""Red team round 36: a submission took the machine's asynchronous I/O contexts for its run
(01), and, graded by a teaching assistant, a daemon stopped between questions had the kernel
wake it with SIGCONT from a POSIX timer (04), making every pause wait out its limit (05); red
team 38 did the same with children whose end signals SIGCONT (01)."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

UNDER = """
import ctypes, errno, fcntl, os
from mcts_course.grading import kernel

def call(name, *args):
    return "ok" if kernel.syscall(name, *args) >= 0 else errno.errorcode[ctypes.get_errno()]

if __name__ == "__main__":
    context = ctypes.c_ulong(0)
    timer = ctypes.c_int(0)
    before = [call("io_setup", 1, ctypes.addressof(context))]
    before.append(call("timer_create", 1, 0, ctypes.addressof(timer)))
    assert kernel.install_filter()
    after = [
        call("io_setup", 1, ctypes.addressof(context)),
        call("timer_create", 1, 0, ctypes.addressof(timer)),
        call("mq_notify", -1, 0),
    ]
    read, write = os.pipe()
    try:
        fcntl.fcntl(read, 10, 0)  # F_SETSIG
        after.append("ok")
    except OSError as error:
        after.append(errno.errorcode[error.errno])
    child = kernel.syscall("clone", 18, 0, 0, 0, 0)  # a child whose end sends SIGCONT
    if child == 0:
        os._exit(0)
    after.append("ok" if child > 0 else errno.errorcode[ctypes.get_errno()])
    after.append(call("prctl", 1, 18))  # PR_SET_PDEATHSIG, SIGCONT
    kept = [call("prctl", 1, 9), call("prctl", 1, 0)]
    pid = os.fork()  # ordinary work: fork, a thread
    if pid == 0:
        os._exit(3)
    kept.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    import threading
    thread = threading.Thread(target=lambda: kept.append("thread"))
    thread.start()
    thread.join()
    print(repr((before, after, kept)))
"""


def filtered(tmp_path: Path, script: str) -> Any:
    """What ``script``, run by this interpreter (it installs the filter itself), prints as a
    Python literal."""
    path = tmp_path / "under.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip())  # noqa: S307 (our own script's repr)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_01_04_and_38_01_aio_contexts_and_chosen_wake_up_signals_are_refused(tmp_path):
    before, after, kept = filtered(tmp_path, UNDER)
    assert before == ["ok", "ok"], before  # the calls work where no filter is
    assert after == ["EPERM"] * 6, after
    assert kept == ["ok", "ok", 3, "thread"], kept
