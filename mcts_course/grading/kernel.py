"""The kernel surface a student's process keeps: no kernel keys, no new namespaces or mounts.

Namespaces and a user id of its own do not cover everything the kernel offers a process.
Kernel keys are not in any namespace a root-graded run gets: a key a submission adds outlives
its run (the next run, or any local account, reads it), and the session keyring is inherited
through fork and exec, so the student's code would possess the keys of whoever started the
grader (Kerberos tickets, cached passphrases).  As root, the student's process could also
unshare a user namespace of its own and mount, or reach bpf, perf or io_uring: the usual routes
of a local privilege escalation.  None of it serves an exercise.

So the child, before any student code exists in it (:func:`mcts_course.grading.server.main`):

* joins a new anonymous session keyring (:func:`leave_keyrings`): nothing of the grader's
  login is possessed any more;
* drops every capability of its bounding set (:func:`drop_capabilities`, root only: the user
  namespace mode has none left already);
* sets ``no_new_privs`` and installs a seccomp filter (classic BPF, built here with ctypes:
  :func:`install_filter`) that answers ``EPERM`` to the key system calls, to ``unshare`` and
  ``clone`` with any ``CLONE_NEW*`` flag, ``setns``, every mount call, ``bpf``,
  ``perf_event_open``, ``userfaultfd``, ``io_uring_setup``, module and kexec loading and
  ``ptrace``, and ``socket`` of any family (without namespaces the network is the machine's:
  a held-back test's inputs must leave neither by TCP or UDP nor by an abstract Unix socket,
  which any user's process may listen on; multiprocessing's pipes keep working); also
  ``socketpair`` of any type but ``SOCK_STREAM`` and ``connect``, ``bind``, ``listen``,
  ``accept``/``accept4`` and ``sendto`` with an address: a datagram end of a socket pair
  could still send to, or connect to, another user's abstract address (red team 11, 01 A),
  while a stream pair is connected for life and needs none (the kernel refuses an address on
  ``sendmsg`` to it); file locks (``flock``, ``fcntl``'s lock, lease and ``F_NOTIFY``
  commands) and file-system watches (``inotify``, ``fanotify``): a lock taken, or a file opened,
  in a folder the sandbox shares with the machine (``/usr``, the set's copy of the package) is
  seen by whoever watches it (red team 13, 15 and 16); ``memfd_create`` and ``setsockopt``:
  memory no teaching assistant's sandbox caps (memfd files never mapped, socket buffers raised
  to 4 MB each; red team 23, 07 and 14), and ``memfd_secret`` likewise; ``fallocate``, which
  reserves disk blocks beyond ``RLIMIT_FSIZE`` (red team 29, 04), and ``sync``/``syncfs``,
  which flush the machine's writes; ``fadvise64`` (dropping a shared file from the page cache
  makes everyone read it from the device again) and ``ioprio_set``, and ``setpriority`` but of
  the process itself (``PRIO_USER`` reaches every process of the user id, the grader's as a
  teaching assistant); ``io_setup`` (the machine's asynchronous I/O contexts, red team 36, 01),
  and ``timer_create``, ``mq_notify`` and ``fcntl``'s ``F_SETSIG``, through which a process
  stopped between a teaching assistant's questions had the kernel send it ``SIGCONT`` (red
  team 36, 04 and 05), as ``clone`` with an exit signal but ``SIGCHLD`` (a child's end woke
  its parent: red team 38, 01) and a parent-death signal but ``SIGKILL`` did, and ``setsid``
  and ``setpgid``, whose new process group the kernel continued when it became orphaned (red
  team 39, 01); ``ENOSYS`` to
  ``clone3`` (its flags lie
  in memory a filter cannot read: the C library then falls back to ``clone``, whose flags it
  can).  A system call of another
  architecture's table (x32, i386 from a 64-bit process) kills the process.

The filter is inherited by every child and thread of the student's process and cannot be
removed.  Without the grader's sandbox (a student's own ``check`` on an unusual machine) a
filter that cannot be built is skipped; in a sandbox it is refused (the grader fails closed).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from typing import Any

PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_SET_SECCOMP = 22
PR_GET_SECCOMP = 21
SECCOMP_MODE_FILTER = 2
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
CAP_SETPCAP = 8
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_INVALIDATE = 21

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0 = 0, 4, 16  # args[0]'s low 32 bits (little endian)
OFFSET_ARG1, OFFSET_ARG4 = 24, 48  # args[1]'s and args[4]'s low 32 bits (the high: + 4)
SOCK_STREAM = 1
SOCK_FLAGS = 0o4000 | 0o2000000  # SOCK_NONBLOCK, SOCK_CLOEXEC (x86_64 and arm64 alike)
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
LD_W_ABS, JEQ, JGE, JSET, RET, AND = 0x20, 0x15, 0x35, 0x45, 0x06, 0x54
X32_BIT = 0x40000000  # x86_64's x32 table: same numbers, another ABI

# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; unshare also takes NEWTIME
# (0x80), which in clone's flags is a bit of the exit signal.
CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
CLONE_NEW |= 0x40000000
UNSHARE_NEW = CLONE_NEW | 0x00000080

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
DENIED = (
    "add_key request_key keyctl setns mount umount2 pivot_root open_tree move_mount fsopen "
    "fsconfig fsmount fspick mount_setattr bpf perf_event_open userfaultfd io_uring_setup "
    "kexec_load kexec_file_load init_module finit_module delete_module ptrace "
    "connect bind listen accept accept4 inotify_init inotify_init1 fanotify_init flock "
    # memory a teaching assistant's sandbox (no cgroup) would hold beyond RLIMIT_AS, in no
    # process's RSS: memfd files never mapped, socket buffers raised up to wmem_max (4 MB a
    # socket; red team 23, 07 and 14).  As root the cgroup counts both anyway.
    "memfd_create setsockopt "
    # the same with a secret memfd (red team 29, 10); fallocate reserves blocks beyond
    # RLIMIT_FSIZE (a file's size does not grow: red team 29, 04), and sync and syncfs
    # flush the whole machine's or a file system's writes
    "memfd_secret fallocate sync syncfs "
    # what the disk does for others: dropping a file every sandbox shares (/usr's) from the
    # page cache, so that others read it from the device again, and I/O priorities, which
    # ioprio_set also changes for every process of the user id (the grader's, as a teaching
    # assistant); red team 31, 05
    "fadvise64 ioprio_set "
    # the machine's asynchronous I/O contexts (fs.aio-max-nr), which one submission took all of
    # for its run: every other program's io_setup failed (red team 36, 01); and the two ways a
    # process has the kernel send it a signal of its choice later, SIGCONT among them, which
    # woke a daemon stopped between a teaching assistant's questions (red team 36, 04 and 05;
    # fcntl's F_SETSIG, the third, is below)
    "io_setup timer_create mq_notify "
    # a process group of its own: the kernel continues a stopped group that becomes orphaned
    # (its last link to a parent in another group of the session ending), which woke a daemon
    # stopped between a teaching assistant's questions (red team 39, 01); in the one group the
    # launcher starts, orphaned from the start (its leader's parent is of another session), no
    # such change can come
    "setsid setpgid"
).split()
# fcntl's commands that lock a file, ask about another process's lock, take a lease or watch a
# folder (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE,
# F_GETLEASE, F_NOTIFY): a lock on a file the sandbox shares with others (the set's copy of the
# package, /usr) is a message any process that tries the same lock reads (red team 13, 15)
FCNTL_DENIED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 10)  # and F_SETSIG (red team 36, 04)
# A process whose parent ignores SIGCHLD (or sets SA_NOCLDWAIT) is reaped by the kernel and its
# CPU time is added to no one's: a teaching assistant's runs (no cgroup) count the pid
# namespace's processes, and children that burnt CPU and ended that way went uncounted (red team
# 16, 04).  Setting SIGCHLD's action is refused; reading it (a null new action) is not.
SIGCHLD = 17  # x86_64 and arm64 alike
SIGKILL, PR_SET_PDEATHSIG = 9, 1
# From the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/
# unistd.h for arm64).
NUMBERS = {
    "x86_64": {
        "add_key": 248, "request_key": 249, "keyctl": 250, "setns": 308, "mount": 165,
        "umount2": 166, "pivot_root": 155, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "ptrace": 101, "unshare": 272, "clone": 56, "clone3": 435,
        "setresuid": 117, "socket": 41, "socketpair": 53, "connect": 42, "bind": 49,
        "listen": 50, "accept": 43, "accept4": 288, "sendto": 44, "inotify_init": 253,
        "inotify_init1": 294, "fanotify_init": 300, "flock": 73, "fcntl": 72,
        "rt_sigaction": 13, "memfd_create": 319, "setsockopt": 54, "memfd_secret": 447,
        "fallocate": 285, "sync": 162, "syncfs": 306, "fadvise64": 221, "ioprio_set": 251,
        "setpriority": 141, "io_setup": 206, "timer_create": 222, "mq_notify": 244,
        "prctl": 157, "setsid": 112, "setpgid": 109,
    },
    "aarch64": {
        "add_key": 217, "request_key": 218, "keyctl": 219, "setns": 268, "mount": 40,
        "umount2": 39, "pivot_root": 41, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425,
        "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "ptrace": 117, "unshare": 97, "clone": 220, "clone3": 435,
        "setresuid": 147, "socket": 198, "socketpair": 199, "connect": 203, "bind": 200,
        "listen": 201, "accept": 202, "accept4": 242, "sendto": 206,
        "inotify_init1": 26, "fanotify_init": 262, "flock": 32, "fcntl": 25,
        "rt_sigaction": 134, "memfd_create": 279, "setsockopt": 208, "memfd_secret": 447,
        "fallocate": 47, "sync": 81, "syncfs": 267, "fadvise64": 223, "ioprio_set": 30,
        "setpriority": 140, "io_setup": 0, "timer_create": 107, "mq_notify": 184,
        "prctl": 167, "setsid": 157, "setpgid": 154,
    },
}  # fmt: skip
SUMMARY = (
    "seccomp filter (no kernel keys, no new namespaces, mounts, bpf, perf, io_uring or "
    "ptrace, no sockets but stream socket pairs, no socket addresses or options, no memfd, "
    "no fallocate, sync, fadvise or I/O priorities, no other process's priority, "
    "no asynchronous I/O contexts, POSIX timers, queue notices or F_SETSIG, no exit or "
    "parent-death signal but SIGCHLD and SIGKILL, no new session or process group, "
    "no file locks, leases or file-system watches, SIGCHLD's action kept), a keyring of its "
    "own, no capabilities"
)


class KernelError(OSError):
    """A step of the hardening failed where it must not: the grader refuses to grade."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def prctl(option: int, *args: Any) -> int:
    """prctl(2) with its variadic arguments passed as full unsigned longs (as the kernel reads
    them): a plain int would leave the upper half of the register to chance."""
    words = [a if isinstance(a, ctypes.c_void_p) else ctypes.c_ulong(a) for a in args]
    words += [ctypes.c_ulong(0)] * (4 - len(words))
    result: int = _libc().prctl(ctypes.c_int(option), *words)
    return result


def syscall(name: str, *args: int | None) -> int:
    """The system call ``name`` of this machine's table, its arguments as longs."""
    arch = _arch()
    if arch is None:
        raise KernelError(errno.ENOSYS, f"{name}: unknown system call table")
    words = [ctypes.c_long(0 if a is None else a) for a in args]
    result: int = _libc().syscall(ctypes.c_long(NUMBERS[arch][name]), *words)
    return result


def _arch() -> str | None:
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return machine if machine in NUMBERS and sys.maxsize > 2**32 else None


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def _allowed_if_null(offset: int, deny: int) -> list[bytes]:
    """Six instructions: allow the call if the argument at ``offset`` (all 64 bits) is a null
    pointer, else ``deny``; the fifth is the RET_ALLOW."""
    return [
        _op(LD_W_ABS, offset),
        _op(JEQ, 0, jf=3),
        _op(LD_W_ABS, offset + 4),
        _op(JEQ, 0, jf=1),
        _op(RET, RET_ALLOW),
        _op(RET, deny),
    ]


def program(arch: str) -> bytes:
    """The filter's instructions (struct sock_filter, native byte order) for ``arch``."""
    numbers = NUMBERS[arch]
    deny = RET_ERRNO | errno.EPERM
    code = [
        _op(LD_W_ABS, OFFSET_ARCH),
        _op(JEQ, AUDIT_ARCH[arch], jt=1),
        _op(RET, RET_KILL_PROCESS),
        _op(LD_W_ABS, OFFSET_NR),
    ]
    if arch == "x86_64":
        code += [_op(JGE, X32_BIT, jf=1), _op(RET, RET_KILL_PROCESS)]
    for name in DENIED:
        if name in numbers:  # arm64 has no inotify_init (only inotify_init1)
            code += [_op(JEQ, numbers[name], jf=1), _op(RET, deny)]
    code += [_op(JEQ, numbers["fcntl"], jf=2 * len(FCNTL_DENIED) + 2), _op(LD_W_ABS, OFFSET_ARG1)]
    for command in FCNTL_DENIED:
        code += [_op(JEQ, command, jf=1), _op(RET, deny)]
    code.append(_op(RET, RET_ALLOW))  # any other fcntl (flags, descriptors, pipes' sizes)
    code += [_op(JEQ, numbers["clone3"], jf=1), _op(RET, RET_ERRNO | errno.ENOSYS)]
    code += [  # clone: no new namespace, and a child's end signals its parent with SIGCHLD or
        # nothing (a thread): an exit signal of SIGCONT woke a process stopped between a
        # teaching assistant's questions whenever one of its children ended (red team 38, 01)
        _op(JEQ, numbers["clone"], jf=8),
        _op(LD_W_ABS, OFFSET_ARG0),
        _op(JSET, CLONE_NEW, jf=1),
        _op(RET, deny),
        _op(AND, 0xFF),
        _op(JEQ, 0, jt=2),
        _op(JEQ, SIGCHLD, jt=1),
        _op(RET, deny),
        _op(RET, RET_ALLOW),
    ]
    code += [
        _op(JEQ, numbers["unshare"], jf=4),  # not this call: past the four below
        _op(LD_W_ABS, OFFSET_ARG0),
        _op(JSET, UNSHARE_NEW, jf=1),
        _op(RET, deny),
        _op(RET, RET_ALLOW),
    ]
    code += [  # prctl: a parent-death signal of SIGKILL or none (SIGCONT is another waker)
        _op(JEQ, numbers["prctl"], jf=7),
        _op(LD_W_ABS, OFFSET_ARG0),
        _op(JEQ, PR_SET_PDEATHSIG, jf=4),
        _op(LD_W_ABS, OFFSET_ARG1),
        _op(JEQ, 0, jt=2),
        _op(JEQ, SIGKILL, jt=1),
        _op(RET, deny),
        _op(RET, RET_ALLOW),
    ]
    code += [  # setpriority: of the process itself only (PRIO_PROCESS, 0), as os.nice does;
        # PRIO_USER reniced every process of the user id, the grader's own as a teaching
        # assistant, and PRIO_PGRP the namespace's first process (confine.INIT)
        _op(JEQ, numbers["setpriority"], jf=6),
        _op(LD_W_ABS, OFFSET_ARG0),
        _op(JEQ, 0, jf=3),
        _op(LD_W_ABS, OFFSET_ARG1),
        _op(JEQ, 0, jf=1),
        _op(RET, RET_ALLOW),
        _op(RET, deny),
    ]
    code += [_op(JEQ, numbers["socket"], jf=1), _op(RET, deny)]
    code += [  # socketpair: a stream pair only (whatever its NONBLOCK and CLOEXEC flags)
        _op(JEQ, numbers["socketpair"], jf=5),
        _op(LD_W_ABS, OFFSET_ARG1),
        _op(AND, 0xFFFFFFFF & ~SOCK_FLAGS),
        _op(JEQ, SOCK_STREAM, jf=1),
        _op(RET, RET_ALLOW),
        _op(RET, deny),
    ]
    # sendto: without an address (send() is sendto(..., NULL, 0))
    code += [_op(JEQ, numbers["sendto"], jf=6), *_allowed_if_null(OFFSET_ARG4, deny)]
    code += [  # rt_sigaction: SIGCHLD's action only read (the new action's pointer null)
        _op(JEQ, numbers["rt_sigaction"], jf=8),
        _op(LD_W_ABS, OFFSET_ARG0),
        _op(JEQ, SIGCHLD, jf=4),  # another signal: to the RET_ALLOW below
        *_allowed_if_null(OFFSET_ARG1, deny),
    ]
    code.append(_op(RET, RET_ALLOW))
    return b"".join(code)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _check(result: int, what: str) -> None:
    if result < 0:
        error = ctypes.get_errno()
        raise KernelError(error, f"{what}: {os.strerror(error)}")


def leave_keyrings() -> None:
    """Join a new anonymous session keyring: the grader's (its login's keys) is no longer
    possessed.  A kernel without keys, or a container that forbids keyctl already (Docker's
    default seccomp profile), leaves nothing to leave."""
    arch = _arch()
    if sys.platform != "linux" or arch is None:
        return
    result = syscall("keyctl", KEYCTL_JOIN_SESSION_KEYRING, None)
    if result < 0 and ctypes.get_errno() not in (errno.ENOSYS, errno.EPERM):
        _check(result, "keyctl(KEYCTL_JOIN_SESSION_KEYRING)")


def drop_capabilities() -> None:
    """As root: remove every capability from the bounding set (no exec may give one back).
    Needs CAP_SETPCAP, so it comes before the user id changes.  An ordinary user (or root of a
    user namespace whose bounding set ``setpriv`` emptied) has none to drop."""
    if sys.platform != "linux":
        return
    if not int(status().get("CapEff", "0") or "0", 16) & (1 << CAP_SETPCAP):
        # a container that withheld CAP_SETPCAP: no drop is possible, and none is needed,
        # since the student's id is not root and no_new_privs keeps exec from giving any
        return
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        if prctl(PR_CAPBSET_READ, cap) == 1:
            _check(prctl(PR_CAPBSET_DROP, cap), f"PR_CAPBSET_DROP {cap}")


def install_filter(strict: bool = True) -> bool:
    """Set no_new_privs and install the filter on this (single-threaded) process; True once
    installed.  ``strict``: raise when it cannot be (in a sandbox); otherwise skip."""
    arch = _arch()
    if sys.platform != "linux" or arch is None:
        if strict and sys.platform == "linux":
            raise KernelError(errno.ENOTSUP, f"no seccomp filter for {platform.machine()}")
        return False
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = 1
    if threads != 1:  # a filter covers the calling thread and its future children only
        raise KernelError(errno.EBUSY, f"seccomp: {threads} threads already run")
    code = program(arch)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    try:
        _check(prctl(PR_SET_NO_NEW_PRIVS, 1), "PR_SET_NO_NEW_PRIVS")
        where = ctypes.c_void_p(ctypes.addressof(prog))
        _check(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, where), "PR_SET_SECCOMP")
    except KernelError:
        if strict:
            raise
        return False
    return True


def status() -> dict[str, str]:
    """``NoNewPrivs``, ``Seccomp`` and ``CapBnd`` of this process (``/proc/self/status``)."""
    found: dict[str, str] = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("NoNewPrivs", "Seccomp", "CapBnd", "CapEff"):
                    found[key] = value.strip()
    except OSError:
        pass
    return found
