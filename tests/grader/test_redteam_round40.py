"""Red team round 40: how a run ended was read from the exit code of the namespace's first
process, 128 + n for a child killed by signal n, which a student's ``os._exit(137)`` also gives:
the grader read "killed from outside, not your fault" and the run was ``killed``, not graded
(02a); and a process killed from outside while it loaded the file lost that fact: the run was
graded 0 with a status of ``graded`` (02b).  Red team 39's orphaned process group (01), bounded
then, is closed here: a student's process can make no session or process group of its own."""

from __future__ import annotations

import os
import platform
import signal
import threading
import time

import pytest
from grading_fixtures.asking import CALL, namespaced
from test_redteam_round36 import filtered

from mcts_course.grading.process import StudentGone, StudentProcess
from mcts_course.grading.runner import SetRun


@namespaced
@pytest.mark.parametrize("code", [137, 152])  # SIGKILL's and SIGXCPU's 128 + n
def test_02a_an_exit_code_like_a_signals_is_the_students_own(started, code):
    process = started(f"import os\n\ndef f(x):\n    os._exit({code})\n")
    with pytest.raises(StudentGone) as gone:
        process.exchange(CALL, 5.0, lambda m: {}, "f")
    why = str(gone.value)
    assert not process.outside, why
    assert f"exited with status {code}" in why, why


@namespaced
def test_02a_a_signal_is_still_told_as_one(started):
    process = started("import os, signal\n\ndef f(x):\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
    with pytest.raises(StudentGone) as gone:
        process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert "killed by SIGSEGV" in str(gone.value), gone.value


def _kill_when_loading(process: StudentProcess) -> None:
    """SIGKILL the namespace's first process once the student's file is loading."""
    deadline = time.monotonic() + 30
    while process.init_pid <= 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the file's first line runs: a sleep of 20 s
    os.kill(process.init_pid, signal.SIGKILL)


def _loading(process: StudentProcess) -> SetRun:
    """A set whose process is ``process``, whose file must not load."""

    def load() -> tuple[StudentProcess, set[str]]:
        process.start()
        raise AssertionError("the file loaded")

    return SetRun("probe", load)


@namespaced
def test_02b_a_process_killed_from_outside_while_loading_is_not_graded(unstarted):
    process = unstarted("import time\ntime.sleep(20)\n\ndef f(x):\n    return x\n")
    run = _loading(process)
    killer = threading.Thread(target=_kill_when_loading, args=(process,))
    killer.start()
    student, connection = run.student(5.0)
    killer.join()
    assert connection is None and "sent neither by the grader nor by a cap" in run.why, run.why
    assert run.killed_outside() and run.killed_outside(visible_only=True)


@namespaced
def test_02b_a_file_that_exits_while_loading_is_graded(unstarted):
    run = _loading(unstarted("import os\nos._exit(137)\n"))
    student, connection = run.student(5.0)
    assert connection is None and "exited with status 137" in run.why, run.why
    assert not run.killed_outside()


# -- red team 39, 01 closed: no process group of the student's own ----------------------------
GROUPS = """
import errno, os
from mcts_course.grading import kernel

def tried(call):
    try:
        call()
        return "ok"
    except OSError as error:
        return errno.errorcode[error.errno]

def in_child(call):  # each in a child of its own: a group or session leader is refused anyway
    pid = os.fork()
    if pid == 0:
        os._exit({"ok": 0, "EPERM": 1}.get(tried(call), 2))
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return {0: "ok", 1: "EPERM"}.get(code, "other")

if __name__ == "__main__":
    calls = [os.setsid, lambda: os.setpgid(0, 0), os.setpgrp]
    before = [in_child(call) for call in calls]
    assert kernel.install_filter()
    print(repr((before, [in_child(call) for call in calls], in_child(lambda: None))))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_39_01_a_new_session_or_process_group_is_refused(tmp_path):
    """The kernel continues a stopped process group that becomes orphaned; a student's process
    that can make no group of its own stays in the launcher's, orphaned from the start."""
    before, after, forked = filtered(tmp_path, GROUPS)
    assert before == ["ok"] * 3, before  # the calls work where no filter is
    assert after == ["EPERM"] * 3, after
    assert forked == "ok"
