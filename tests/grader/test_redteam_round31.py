"""Red team round 31: ``grade`` hid its own copy of the instructor's hidden tests from the
student's process, but not the folder it was given: under a path every sandbox shows (``/usr``,
the interpreter's prefix; a Docker image's ``/usr/src/app/hidden``), every student's code read
the hidden tests and their data and printed them in a visible test's feedback (09).  Reading
the disk with ``O_DIRECT`` cost a question no time (3.7 GB in 3 s for 0.38 s of CPU: 05), and
without a freezer a chain of processes that fork and exit at once ran on between questions,
as a scan of ``/proc`` signals only the processes it saw (08)."""

from __future__ import annotations

import os
import platform
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest
from grading_fixtures.asking import CALL, namespaced
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading import pidns
from mcts_course.grading.clock import TIMED_OUT
from mcts_course.grading.process import StudentGone

HIDDEN = '''
import pytest


@pytest.mark.points(1, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret(student):
    """a hidden test"""
    assert student.ucb1_choice([4, 4], [1.0, 3.0], 0.0) == 1  # SECRET-INPUT-31
'''

READER = """

def ucb1_choice(counts, sums, c=2 ** 0.5):
    found = []
    for name in ("test_secret.py", "expected.txt"):
        try:
            found.append(open(FOLDER + "/" + name).read())
        except OSError as error:
            found.append(type(error).__name__)
    raise RuntimeError("READ " + repr(found))
"""


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="writes under /usr/local/share"
)
def test_09_the_given_tests_folder_is_hidden_too(tmp_path):
    folder = Path("/usr/local/share") / f"mcts-rt31-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    try:
        (folder / "test_secret.py").write_text(HIDDEN)
        (folder / "expected.txt").write_text("SECRET-DATA-31\n")
        code = (SOLUTIONS / "bandits.py").read_text() + f"\nFOLDER = {str(folder)!r}\n" + READER
        options = ("--tests", str(folder), "--exercise-set=bandits", "-k", "test_ucb1_choice")
        data = graded_file(tmp_path, "reader", "bandits.py", code, *options)
    finally:
        shutil.rmtree(folder)
    said = " ".join(t["output"] for t in data["tests"])
    assert "READ" in said, said  # the probe ran, in a visible test
    assert "SECRET-INPUT-31" not in said and "SECRET-DATA-31" not in said, said
    assert sys.prefix  # (the interpreter's own folders stay visible: the code needs them)


PRIORITIES = """

import ctypes as _ctypes
import os as _os
import platform as _platform

_said = []
for _name, _call in (
    ("fadvise", lambda: _os.posix_fadvise(_os.open("/usr", _os.O_RDONLY), 0, 0, 4)),
    ("user", lambda: _os.setpriority(_os.PRIO_USER, 0, 19)),
    ("group", lambda: _os.setpriority(_os.PRIO_PGRP, 0, 19)),
    ("nice", lambda: _os.nice(1)),
):
    try:
        _call()
        _said.append(f"{_name} ok")
    except OSError as _e:
        _said.append(f"{_name} {_e.errno}")
_number = {"x86_64": 251, "aarch64": 30}.get(_platform.machine(), -1)
_libc = _ctypes.CDLL(None, use_errno=True)
_said.append(f"ioprio {_libc.syscall(_number, 3, 0, 3 << 13)} {_ctypes.get_errno()}")


def ucb1_choice(counts, sums, c=2 ** 0.5):
    raise ValueError("SAID " + ", ".join(_said))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_05_no_page_cache_drops_io_priorities_or_others_priorities(tmp_path):
    code = (SOLUTIONS / "bandits.py").read_text() + PRIORITIES
    data = graded_file(
        tmp_path, "probe", "bandits.py", code, "--exercise-set=bandits", "-k", "ucb1"
    )
    said = next(t["output"] for t in data["tests"] if "SAID" in t["output"])
    for refused in ("fadvise 1", "user 1", "group 1", "ioprio -1 1"):  # EPERM
        assert refused in said, said
    assert "nice ok" in said, said  # its own priority, as os.nice sets it


DIRECT_READER = """
import mmap, os, time

def _big():
    seen = 0
    for top in ("/usr/lib", "/usr/local", "/usr"):
        for root, _, files in os.walk(top):
            for name in files:
                seen += 1
                path = os.path.join(root, name)
                try:
                    if not os.path.islink(path) and os.path.getsize(path) > 16 << 20:
                        return path
                except OSError:
                    pass
                if seen > 200000:
                    return None
    return None

def f(x):
    path = _big()
    if path is None:
        return -2
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError:
        return -1
    buffer, total, start = mmap.mmap(-1, 1 << 20), 0, time.monotonic()
    while time.monotonic() - start < 5:
        got = os.readv(fd, [buffer])
        if got <= 0:
            os.lseek(fd, 0, 0)
        total += got
    return total
"""


@namespaced
def test_05_reading_the_disk_counts_against_the_question(started):
    process = started(DIRECT_READER)
    try:
        reply, _ = process.exchange(CALL, 1.0, lambda m: {}, "f")
    except StudentGone as gone:
        assert gone.kind == TIMED_OUT, gone.why  # not "under load": the reads were counted
        return
    if reply.get("ok") in (-1, -2):
        pytest.skip("no file of 16 MB under /usr, or no O_DIRECT on its file system")
    raise AssertionError(f"5 s of direct reads answered within a 1 s limit: {reply}")


FORK_CHAINS = """
import os, time

def _chain(until):
    while time.monotonic() < until:
        try:
            child = os.fork()
        except OSError:  # the process cap, for a moment: try again
            continue
        if child != 0:
            os._exit(0)  # the parent ends at once; its child goes on


STARTED = []

def f(x):
    if not STARTED:  # at the first question only
        STARTED.append(1)
        until = time.monotonic() + 30
        for _ in range(6):
            if os.fork() == 0:
                _chain(until)
                os._exit(0)
    return x + 1
"""


def _born(namespace: str) -> list[int]:
    """The processes of the namespace that began in a tenth of a second: none while it is
    stopped (a chain that ran on between questions forks a new one every millisecond)."""
    first = set(pidns.members(namespace))
    born: set[int] = set()
    for _ in range(20):
        born |= set(pidns.members(namespace)) - first
        time.sleep(0.005)
    return sorted(born)


@namespaced
def test_08_a_fork_and_exit_chain_is_stopped_between_questions(started):
    process = started(FORK_CHAINS)
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert reply["ok"] == 2
    namespace = pidns.sandbox_namespace(process.proc.pid)
    assert namespace is not None
    born = []
    # a scan of /proc missed a chain in 1 stop of 4 (red team 31); these 12 stops of 6 chains
    # caught that scan in 2 runs of 4 here, the kill(-1) in none of 13
    for _ in range(12):
        born += _born(namespace)
        again, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
        assert again.get("ok") == 2, again  # resumed for each question
    assert born == []
