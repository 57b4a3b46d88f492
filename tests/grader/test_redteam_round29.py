"""Red team round 29: the student's output went to an unnamed file on the machine's disk, so
``fallocate`` on it took disk blocks beyond RLIMIT_FSIZE (04) and synchronous writes kept the
disk busy (13); with the disk nearly full, the grader's own error while building an honest
neighbour's sandbox was reported as that student's "could not be loaded", a quiet 0 (08); and
``memfd_secret`` held memory outside RLIMIT_AS in a teaching assistant's run (10)."""

from __future__ import annotations

import errno
import os
import platform
from pathlib import Path

import pytest
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading import process as process_module
from mcts_course.grading import sandbox
from mcts_course.grading.process import ImportFailed, StudentProcess

NUMBERS = {"x86_64": (447, 162, 306), "aarch64": (447, 81, 267)}  # memfd_secret, sync, syncfs

PROBE = """

import ctypes as _ctypes
import os as _os

_said = ["out " + _os.readlink("/proc/self/fd/1").split(":")[0]]
try:
    _os.posix_fallocate(1, 0, 1 << 20)
    _said.append("fallocate ok")
except OSError as _e:
    _said.append(f"fallocate {_e.errno}")
_libc = _ctypes.CDLL(None, use_errno=True)
for _name, _number in zip(("memfd_secret", "sync", "syncfs"), NUMBERS):
    _args = (0,) if _name != "sync" else ()
    _said.append(f"{_name} {_libc.syscall(_number, *_args)} {_ctypes.get_errno()}")


def ucb1_choice(counts, sums, c=2 ** 0.5):
    raise ValueError("SAID " + ", ".join(_said))
"""


@pytest.mark.skipif(platform.machine() not in NUMBERS, reason="syscall numbers of x86_64, arm64")
def test_04_10_13_output_in_memory_and_no_fallocate_memfd_secret_or_sync(tmp_path):
    code = PROBE.replace("NUMBERS", repr(NUMBERS[platform.machine()]))
    code = (SOLUTIONS / "bandits.py").read_text() + code
    data = graded_file(
        tmp_path, "probe", "bandits.py", code, "--exercise-set=bandits", "-k", "ucb1"
    )
    said = next(t["output"] for t in data["tests"] if "SAID" in t["output"])
    assert "SAID out /memfd" in said, said  # not a file on the machine's disk
    assert "fallocate 1" in said, said  # EPERM
    for name in ("memfd_secret", "sync", "syncfs"):
        assert f"{name} -1 1" in said, said


def test_08_the_graders_own_error_while_preparing_is_not_the_students(tmp_path, monkeypatch):
    """ENOSPC while the sandbox is built: a run to grade again, not a 0 for the file."""

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(process_module, "Sandbox", full)
    process = StudentProcess(None, "x.py", None, ["f"], tmp_path, code="def f():\n    pass\n")
    with pytest.raises(ImportFailed) as failed:
        process.start()
    assert failed.value.under_load and "not a grade" in str(failed.value), failed.value


def test_08_a_file_that_cannot_be_read_is_still_the_students(tmp_path):
    os.symlink("/etc/hostname", tmp_path / "x.py")
    process = StudentProcess(tmp_path / "x.py", "x.py", None, ["f"], tmp_path)
    with pytest.raises(ImportFailed) as failed:
        process.start()
    assert not failed.value.under_load and "could not be loaded" in str(failed.value)


def test_08_a_short_write_is_written_on(tmp_path: Path, monkeypatch):
    real = os.write
    monkeypatch.setattr(sandbox.os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    fd = os.open(tmp_path / "copy", os.O_WRONLY | os.O_CREAT)
    try:
        sandbox.write_all(fd, b"a helper module's bytes")
    finally:
        os.close(fd)
    assert (tmp_path / "copy").read_bytes() == b"a helper module's bytes"
