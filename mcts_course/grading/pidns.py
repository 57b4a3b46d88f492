"""Stopping every process of a submission without a cgroup freezer, through its pid namespace.

Between questions the student's process is stopped, so that its code runs only on a test's time.
With a cgroup freezer (root, cgroup v1 or v2) the whole submission is frozen.  Without one (an
ordinary user's grader in user namespaces, a container without cgroup access) only the process
group got SIGSTOP, and daemons that had left it (``setsid``, double fork) kept spinning
(red-team attack 11: 32 processes running beside the stopped server, load 32 on 2 cores).  The
sandbox has a pid namespace of its own (``unshare --pid --fork``), so its processes are exactly
those whose ``/proc/PID/ns/pid`` is the one of the launcher's child: each is signalled, again
until no new one appears (a daemon forking while it is being stopped).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

PASSES = 20  # rounds of signalling: a fork during a round is caught by the next


def _parent(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _namespace(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def sandbox_namespace(launcher: int) -> str | None:
    """The pid namespace of the processes ``launcher`` (``unshare --fork``) started, or None
    when it has no child in a namespace of its own (no pid namespace)."""
    own = _namespace(launcher)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _parent(entry) == launcher:
            found = _namespace(entry)
            if found is not None and found != own:
                return found
    return None


def members(namespace: str) -> list[int]:
    """The processes (seen from here) of a pid namespace."""
    return [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and _namespace(entry) == namespace
    ]


# launcher -> its namespace, for the launchers stopped this way (a resume looks here only: with
# a freezer, nothing was stopped by signal and nothing is scanned)
_STOPPED: dict[int, str] = {}


def forget(launcher: int) -> None:
    """Drop what was kept of ``launcher`` (a process killed while stopped): its pid and its
    namespace's name are both reused once it is gone (the lowest free ``pid:[inode]`` goes to
    the next namespace made on the machine), and a later launcher of the same pid must not
    signal another sandbox's processes."""
    _STOPPED.pop(launcher, None)


def signal_namespace(launcher: int, sig: int) -> int:
    """Send ``sig`` to every process of the pid namespace under ``launcher``; how many got it.
    With SIGSTOP, rounds go on until a round finds no process it had not stopped yet; SIGCONT
    goes only where a SIGSTOP went."""
    if sig == signal.SIGSTOP:
        namespace = _STOPPED.get(launcher) or sandbox_namespace(launcher)
        if namespace is not None:
            _STOPPED[launcher] = namespace
    else:
        namespace = _STOPPED.pop(launcher, None) if sig == signal.SIGCONT else None
        namespace = namespace or (sandbox_namespace(launcher) if sig != signal.SIGCONT else None)
    if namespace is None:
        return 0
    done: set[int] = set()
    for _ in range(PASSES if sig == signal.SIGSTOP else 1):
        new = [pid for pid in members(namespace) if pid not in done]
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            done.add(pid)
    return len(done)


# The sandbox's first process (confine.INIT) stops or continues every other process of its
# namespace with one kill(-1), on request.  The kernel delivers a signal sent to -1 to a
# process forking at that moment and to its child alike (the fork restarts once the signal is
# handled), while a scan of /proc from outside signals only the processes it saw: a chain of
# processes that fork and exit at once ran through 2 in 8 of the scans' stops (red team 31, 08).
STOP, CONTINUE = b"s", b"c"
STOPPED_STATES = (b"T", b"t", b"Z", b"X")
STOP_WAIT = 1.0  # seconds to wait for the stop to show; the scan is the fallback


def state(pid: int) -> bytes | None:
    """``pid``'s state letter in ``/proc/PID/stat`` (None: no such process, or no /proc)."""
    return _letter(f"/proc/{pid}")


def _letter(where: str) -> bytes | None:
    try:
        with open(f"{where}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _stopped(pid: int) -> bool:
    """Whether ``pid`` runs no code of its own until continued: each of its threads stopped or
    ended, or asleep in the kernel (``D``) with the stop pending, which it takes on its way
    out: a process waiting for its ``vfork`` child, stopped, stays there, and every pause waited
    out :data:`STOP_WAIT` for it (red team 33, 05).  Every thread, not the leader's state
    alone: a leader that ended shows ``Z`` while another thread of it runs (red team 39, 02)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return _task_stopped(f"/proc/{pid}")
    return all(_task_stopped(f"/proc/{pid}/task/{task}") for task in tasks)


def _task_stopped(where: str) -> bool:
    letter = _letter(where)
    if letter in STOPPED_STATES or letter is None:
        return True
    if letter != b"D":
        return False
    try:
        with open(f"{where}/status", "rb") as f:
            lines = f.read().splitlines()
    except OSError:
        return True  # gone
    pending = 0
    for line in lines:
        if line.startswith((b"SigPnd:", b"ShdPnd:")):
            pending |= int(line.split()[1], 16)
    return bool(pending >> (signal.SIGSTOP - 1) & 1)


def ask_init(init: int, launcher: int, control: int, request: bytes) -> bool:
    """Ask the namespace's first process ``init`` to carry out ``request``: written on its
    socket ``control``, then SIGUSR1; only while ``init`` is still the child of ``launcher`` (a
    pid freed by a run that ended may already be another program's)."""
    if _parent(str(init)) != launcher:
        return False
    try:
        os.write(control, request)
        os.kill(init, signal.SIGUSR1)
    except OSError:  # a full socket (the process starved), or gone
        return False
    return True


def stop_from_inside(init: int, launcher: int, control: int) -> bool:
    """Have ``init`` stop every other process of its namespace, and wait, at most
    :data:`STOP_WAIT` seconds, until ``/proc`` shows them all stopped."""
    namespace = _namespace(init)
    if namespace is None or not ask_init(init, launcher, control, STOP):
        return False
    deadline = time.monotonic() + STOP_WAIT
    while time.monotonic() < deadline:
        if all(_stopped(pid) for pid in members(namespace) if pid != init):
            return True
        time.sleep(0.001)
    return False


TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _times(pid: int) -> float | None:
    """CPU seconds of ``pid`` (its threads, live and gone) and of the children it waited for."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / TICKS  # utime stime cutime cstime
    except (OSError, IndexError, ValueError):
        return None


def _disk_reads(pid: int) -> float | None:
    """Bytes ``pid`` (its threads, live and gone, and the children it waited for: the kernel
    adds a reaped child's I/O counts to its parent's, as its CPU times) made the kernel fetch
    from a storage device: ``read_bytes`` of ``/proc/PID/io``, page-cache hits left out,
    ``O_DIRECT`` reads and reads after ``posix_fadvise(DONTNEED)`` counted."""
    try:
        with open(f"/proc/{pid}/io", "rb") as f:
            for line in f.read().splitlines():
                if line.startswith(b"read_bytes:"):
                    return float(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    # no such count (a kernel without I/O accounting): 0; no such process: None
    return 0.0 if os.path.exists(f"/proc/{pid}") else None


def _children_of(pid: int) -> list[int] | None:
    """The children of every thread of ``pid`` (None when the kernel keeps no such list)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                found += [int(p) for p in f.read().split()]
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}/children"):
                return None
        except (OSError, ValueError):
            continue
    return found


def _total(init: int, count: Callable[[int], float | None]) -> float | None:
    """``count`` summed over every process of the pid namespace whose first process is
    ``init`` (seen from here), or None when ``init`` is gone.  Every process of a pid namespace
    descends from its first (orphans go to it), and a process's counts move to its parent's when
    the parent waits for it: the sum over the live processes (zombies included) of their own
    and their waited-for children's counts counts each once.  (A process whose parent ignores
    SIGCHLD would be reaped unaccounted: the sandbox's seccomp filter refuses to change
    SIGCHLD's action, :mod:`~mcts_course.grading.kernel`.)"""
    total = count(init)
    if total is None:
        return None
    todo, seen = [init], {init}
    while todo:
        children = _children_of(todo.pop())
        if children is None:  # no children lists: the whole /proc, by namespace
            namespace = _namespace(init)
            rest = [p for p in members(namespace) if p != init] if namespace else []
            return total + sum(count(p) or 0.0 for p in rest)
        for child in children:
            if child not in seen:
                seen.add(child)
                todo.append(child)
                total += count(child) or 0.0
    return total


def cpu_seconds(init: int) -> float | None:
    """CPU seconds used so far by every process of the pid namespace whose first process is
    ``init``, or None when it is gone."""
    return _total(init, _times)


def disk_bytes(init: int) -> float | None:
    """Bytes read from storage devices so far by every process of that pid namespace (0 where
    the kernel keeps no such count), or None when it is gone."""
    return _total(init, _disk_reads)
