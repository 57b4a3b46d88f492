"""File-system writes of a student's process, kept to its own folders by the kernel (Landlock).

Without namespaces (root in a container that forbids them, as Gradescope's; or one submission
per run on an instructor's machine) the student's process is a fresh user id on the machine's
own file system: besides its work folder it may write in every world-writable folder there is.
The sweep (:mod:`mcts_course.grading.sweep`) removes afterwards what that id left in the usual
temporary folders, but a ``1777`` folder elsewhere (``/var/crash``, a course's drop folder)
kept a held-back test's inputs for the next run and for every local account (red team 11's
attack 10).  A list of folders to sweep can never be complete; a rule of what may be written
can.

So the student's process, before any student code exists in it, restricts itself with
Landlock (Linux 5.13 and later): creating, removing, renaming or linking any file, folder,
link, fifo, socket or device, and writing or truncating a file, is refused (``EACCES``) except
beneath its work folder, its ``TMPDIR`` and ``/dev/shm`` (where multiprocessing's semaphores are
made; swept after the run), plus writing to a few character devices (``/dev/null``...).
Reading is not restricted here: the other layers (namespaces, permissions, hidden files) decide
what it reads.  The restriction is inherited by every child and thread and cannot be lifted.

The grader asks the kernel which Landlock ABI it offers (:func:`abi`) and tells the child; the
child then applies it or refuses to start (:func:`restrict_writes`), so the confinement line
(:func:`summary`) says what each run had.  Where Landlock is not there (an older kernel, a
kernel booted without it, a container whose seccomp profile refuses the calls) the sweep is the
only mechanism, and the line says that instead.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import stat
import sys
from collections.abc import Iterable

# include/uapi/linux/landlock.h
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: moving or linking a file to another folder
TRUNCATE = 1 << 14  # ABI 3: truncate(2), ftruncate(2), open with O_TRUNC
# What changes the file system, by the first ABI that knows it (reads, execution and device
# ioctls are not handled, so they stay allowed everywhere).
WRITES_BY_ABI = {
    1: WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM,
    2: REFER,
    3: TRUNCATE,
}  # fmt: skip
FILE_RIGHTS = WRITE_FILE | TRUNCATE  # the only ones of these a rule on a non-folder may hold
# The system calls have one number on every architecture (include/uapi/asm-generic/unistd.h,
# arch/x86/entry/syscalls/syscall_64.tbl).
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
ARCHES = ("x86_64", "aarch64")
PR_SET_NO_NEW_PRIVS = 38
NO_LANDLOCK_ENV = "MCTS_NO_LANDLOCK"

SHARED_MEMORY = "/dev/shm"
# In namespaces these are the sandbox's own size-capped tmpfs folders, not the machine's.
PRIVATE_TMP = ("/tmp", "/var/tmp", "/run/lock")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


class LandlockError(OSError):
    """The restriction could not be applied where the grader said it would be: the child
    refuses to start (the grader then refuses to grade)."""


class _RulesetAttr(ctypes.Structure):
    # the first field alone: every ABI accepts this size (later ABIs add fields after it)
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _call(number: int, *args: int | ctypes.c_void_p) -> int:
    """The system call ``number``, its arguments as full words (as the kernel reads them)."""
    libc = ctypes.CDLL(None, use_errno=True)
    words = [a if isinstance(a, ctypes.c_void_p) else ctypes.c_long(a) for a in args]
    result: int = libc.syscall(ctypes.c_long(number), *words)
    return result


def _machine() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def probe() -> int:
    """The Landlock ABI version this process may use now; 0 where there is none (not Linux,
    another architecture, ENOSYS: not built in, EOPNOTSUPP: disabled at boot, EPERM: a
    container's seccomp profile refuses it)."""
    if sys.platform != "linux" or _machine() not in ARCHES or sys.maxsize <= 2**32:
        return 0
    version = _call(CREATE_RULESET, ctypes.c_void_p(None), 0, CREATE_RULESET_VERSION)
    return max(version, 0)


def abi() -> int:
    """The ABI the grader's sandboxes restrict with: :func:`probe`, asked once per grader (the
    kernel does not change under it); 0 when told to behave as on a kernel without Landlock
    (``MCTS_NO_LANDLOCK=1``, as ``MCTS_NO_NAMESPACES=1`` for namespaces: the sweep alone)."""
    return 0 if os.environ.get(NO_LANDLOCK_ENV) == "1" else _kernel_abi()


@functools.lru_cache(maxsize=1)
def _kernel_abi() -> int:
    return probe()


def handled(version: int) -> int:
    """The write rights the ABI ``version`` knows (a newer right unknown to the kernel would make
    the ruleset invalid: EINVAL)."""
    rights = 0
    for since, bits in WRITES_BY_ABI.items():
        if version >= since:
            rights |= bits
    return rights


def _check(result: int, what: str) -> None:
    if result < 0:
        error = ctypes.get_errno()
        raise LandlockError(error, f"landlock {what}: {os.strerror(error)}")


def _add(ruleset: int, path: str, rights: int, required: bool) -> None:
    """Allow ``rights`` beneath ``path`` (a folder) or on it (another file: its own rights)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as error:
        if required:
            raise LandlockError(error.errno, f"landlock: {path}: {error.strerror}") from None
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        where = ctypes.c_void_p(ctypes.addressof(rule))
        _check(_call(ADD_RULE, ruleset, RULE_PATH_BENEATH, where, 0), f"add_rule {path}")
    finally:
        os.close(fd)


def restrict_writes(folders: Iterable[str], version: int, devices: Iterable[str] = DEVICES) -> None:
    """Restrict this (single-threaded) process and all it starts later: file-system writes only
    beneath ``folders`` (each must exist) and ``/dev/shm``, and into ``devices``; with the
    rights that ABI ``version`` knows (at most the kernel's own).  Raises LandlockError."""
    version = min(version, probe())
    if version < 1:
        raise LandlockError(errno.EOPNOTSUPP, "landlock: not available in this process")
    rights = handled(version)
    attr = _RulesetAttr(rights)
    where = ctypes.c_void_p(ctypes.addressof(attr))
    ruleset = _call(CREATE_RULESET, where, ctypes.sizeof(attr), 0)
    _check(ruleset, "create_ruleset")
    try:
        for folder in folders:
            _add(ruleset, folder, rights, required=True)
        _add(ruleset, SHARED_MEMORY, rights, required=False)
        for device in devices:
            _add(ruleset, device, rights, required=False)
        # restrict_self needs no_new_privs (or CAP_SYS_ADMIN): set it here, whoever runs first
        libc = ctypes.CDLL(None, use_errno=True)
        one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero), "no_new_privs")
        _check(_call(RESTRICT_SELF, ruleset, 0), "restrict_self")
    finally:
        os.close(ruleset)


def summary(version: int, namespaces: bool) -> str:
    """One phrase for the confinement line: what kept the run's writes in (``namespaces``: a
    private root, read-only but for its own tmpfs folders)."""
    if version >= 1:
        return (
            f"Landlock (ABI {version}): file-system writes only in its work folder"
            + (", its private /tmp, /var/tmp, /run/lock" if namespaces else "")
            + " and /dev/shm, any other refused"
        )
    if namespaces:
        return "no Landlock here: writes only in its private tmpfs folders"
    return (
        "no Landlock here: it may write in any world-writable folder of the machine, and only "
        "the temporary folders are swept"
    )
