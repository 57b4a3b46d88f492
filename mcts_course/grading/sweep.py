"""What a sandbox's user id leaves behind outside its work folder, removed after its run.

Without namespaces (root in a container that forbids them: Gradescope's, or an instructor's
machine grading one submission per run) the student's processes share the machine's temporary
folders and its System V IPC with whatever runs next.  Its user id is new and owned by no
account, so everything of that id is the submission's: once its processes are killed,
:func:`sweep` removes the files and folders it owns under the world-writable temporary folders
(nested ones included), its System V shared memory, semaphores and message queues, and its
POSIX message queues where ``/dev/mqueue`` is mounted (the sandbox also gets
``RLIMIT_MSGQUEUE`` 0, so it cannot make one: ``server.limit_resources``).

The walk opens every folder relative to its parent's descriptor without following links and
checks that what it opened is what it listed, so a link or a folder swapped by another user
never leads it elsewhere; only entries owned by the swept ids are removed (with everything
inside them, however deep: an explicit stack, no recursion).  It enters only the folders the
ids could have written in and those of root or of the grader (which may hold such folders): a
folder of another user that the ids cannot write in is left unread, whatever it holds.  The
walk has no depth limit; it stops after :data:`ENTRIES` entries, and then the run says so and
is not counted as graded (:func:`incomplete`).  World-writable folders are visited before the
others (the submission can write only there).  Kernel keys the ids own are invalidated too
(:func:`_keys`: the seccomp filter of :mod:`mcts_course.grading.kernel` already refuses to
make one).  What each sweep of
this process removed is counted (:data:`TOTAL`) and listed (:data:`REMOVED`, for pytest.log).

The names stay in pytest.log, the instructor's alone: a student's feedback gets counts per folder
(:data:`BY_FOLDER`), never names, and only those of the sweeps before the held-back tests
(:func:`counts`; the plugin takes them then): the process answering those may name its files
after what it was asked (red team 11, 01 B1).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, replace

ALSO_ENV = "MCTS_SWEEP_ALSO"
# The folders any user may write in, and the grader's own temporary folder (fixed now: the
# grader later points ``tempfile`` at a folder of its own).  Tests give their own.
ROOTS: tuple[str, ...] = (
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/run/lock",
    "/dev/mqueue",
    tempfile.gettempdir(),
    # the temporary folder of whoever started the batch (its runs get a private TMPDIR): the
    # batch's last sweep looks there too, and what the runs' sweeps remove is counted there
    *([os.environ[ALSO_ENV]] if os.environ.get(ALSO_ENV) else []),
)
ENTRIES = 1_000_000  # entries looked at in one sweep (a machine's /tmp may be large: ~4 s here)
LISTED = 200  # removed paths kept for pytest.log
IPC_KINDS = {"shm": "-m", "sem": "-s", "msg": "-q"}  # /proc/sysvipc/NAME -> ipcrm's option
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Swept:
    """What one sweep removed, and what it could not."""

    files: int = 0  # files, folders and links (a folder's content counted with it)
    ipc: int = 0  # System V objects
    keys: int = 0  # kernel keys
    left: int = 0  # entries and objects of the ids still there (bounds, errors)
    cut: bool = False  # the walk reached its bounds

    def add(self, other: Swept) -> None:
        self.files += other.files
        self.ipc += other.ipc
        self.keys += other.keys
        self.left += other.left
        self.cut = self.cut or other.cut


TOTAL = Swept()  # this process's sweeps, for the confinement line
RUNS = [0]  # how many sweeps ran
REMOVED: list[str] = []  # what they removed (the first LISTED paths), for pytest.log
BY_FOLDER: dict[str, int] = {}  # how many entries they removed in each swept folder


def sweep(uids: set[int], roots: tuple[str, ...] | None = None) -> Swept:
    """Remove what ``uids`` own under ``roots`` (default :data:`ROOTS`) and in System V IPC.
    Call it once their processes are dead.  Never raises."""
    found = Swept()
    if not uids:
        return found
    seen: set[tuple[int, int]] = set()
    for root in ROOTS if roots is None else roots:
        try:
            fd = os.open(root, _DIR_FLAGS)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) not in seen:  # /var/lock is /run/lock, TMPDIR /tmp
                seen.add((info.st_dev, info.st_ino))
                before = found.files
                _walk(fd, root, uids, found)
                if found.files > before:
                    BY_FOLDER[root] = BY_FOLDER.get(root, 0) + found.files - before
        finally:
            os.close(fd)
    _sysv(uids, found)
    _keys(uids, found)
    TOTAL.add(found)
    RUNS[0] += 1
    return found


@dataclass
class Counts:
    """The sweeps of this process up to a moment, as counts: what a student may be told."""

    runs: int
    total: Swept
    by_folder: dict[str, int]


def counts() -> Counts:
    """A copy of what this process's sweeps removed so far, in numbers (no path: a file's
    name, made by the process answering the held-back tests, would carry their inputs)."""
    return Counts(RUNS[0], replace(TOTAL), dict(BY_FOLDER))


def summary(upto: Counts | None = None) -> str:
    """One phrase for the confinement line: whether the sweep ran, and what it removed (all
    of this process's sweeps, or those counted in ``upto``)."""
    runs, total = (RUNS[0], TOTAL) if upto is None else (upto.runs, upto.total)
    if not runs:
        return "what its user id leaves in the temporary folders and IPC is swept after its run"
    words = (
        f"swept after the run: {total.files} file(s) or folder(s), {total.ipc} IPC "
        f"object(s) and {total.keys} kernel key(s) its user id left were removed"
    )
    if total.left:
        words += f", {total.left} could not be"
    if total.cut:
        words += f" (the walk stopped at {ENTRIES} entries: not everything was looked at)"
    return words


def incomplete() -> bool:
    """Whether a sweep of this process stopped at a bound or left something of its ids: the
    run is then not reported as graded (the next one could find what this one left)."""
    return TOTAL.cut or TOTAL.left > 0


def _note(path: str) -> None:
    if len(REMOVED) < LISTED:
        REMOVED.append(path)


def _walk(top: int, where: str, uids: set[int], found: Swept) -> None:
    """Every folder below the one open at ``top`` (not closed here), world-writable folders
    first, depth first with an explicit stack (no depth limit, no recursion), until
    :data:`ENTRIES` entries were looked at."""
    stack: list[tuple[int, str]] = [(os.dup(top), where)]  # world-writable folders
    later: list[tuple[int, str]] = []  # the others any user may enter
    looked = 0
    try:
        while stack or later:
            fd, path = stack.pop() if stack else later.pop()
            try:
                with os.scandir(fd) as listing:
                    names = [entry.name for entry in listing]
            except OSError:
                os.close(fd)
                continue
            for name in names:
                looked += 1
                if looked > ENTRIES:
                    found.cut = True
                    break
                try:
                    info = os.lstat(name, dir_fd=fd)
                except OSError:
                    continue
                if info.st_uid in uids:
                    _remove(fd, name, info, found, os.path.join(path, name))
                elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IXOTH:
                    writable = _writable_by(info, uids)
                    if not writable and info.st_uid not in (0, os.geteuid()):
                        # another user's folder the ids cannot write in: nothing in it is
                        # theirs, and its entries (a million, made by a local user) must not
                        # use up the walk (red team 10's note N1)
                        continue
                    try:
                        child = _open_same(fd, name, info)
                    except OSError:  # out of descriptors: say so
                        found.cut = True
                        continue
                    if child is not None:
                        tier = stack if writable else later
                        tier.append((child, os.path.join(path, name)))
            os.close(fd)
            if looked > ENTRIES:
                break
    finally:
        for fd, _ in (*stack, *later):
            os.close(fd)


def _writable_by(info: os.stat_result, uids: set[int]) -> bool:
    """Whether the swept ids may make entries in a folder of another owner: writable by others,
    or by its group when that is one of theirs (a sandbox's group id is its user id)."""
    if info.st_mode & stat.S_IWOTH:
        return True
    return bool(info.st_mode & stat.S_IWGRP) and info.st_gid in uids


def _open_same(parent: int, name: str, info: os.stat_result) -> int | None:
    """The folder ``name`` opened without following a link, if it is still the one listed.
    Raises only when out of descriptors."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):
            raise
        return None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        return None
    return fd


def _remove(parent: int, name: str, info: os.stat_result, found: Swept, path: str) -> None:
    """Remove ``name`` (owned by a swept id), a folder with all it holds."""
    try:
        if stat.S_ISDIR(info.st_mode):
            fd = _open_same(parent, name, info)
            if fd is None:
                found.left += 1
                return
            try:
                complete = _empty(fd)
            finally:
                os.close(fd)
            if not complete:
                found.left += 1
                found.cut = True
                return
            os.rmdir(name, dir_fd=parent)
        else:
            os.unlink(name, dir_fd=parent)
        found.files += 1
        _note(path)
    except OSError:
        found.left += 1


def _empty(top: int) -> bool:
    """Remove everything in the folder open at ``top`` (its owner's: whatever it holds goes),
    however deep, through descriptors (an explicit stack), never following a link; False if
    something stays (out of descriptors, an error)."""
    complete = True
    # (the folder's descriptor, its names still to remove, its parent's descriptor, its name)
    frames: list[tuple[int, list[tuple[str, bool]], int | None, str]] = []

    def push(fd: int, parent: int | None, name: str) -> None:
        with os.scandir(fd) as listing:
            names = [(e.name, e.is_dir(follow_symlinks=False)) for e in listing]
        frames.append((fd, names, parent, name))

    push(os.dup(top), None, "")
    try:
        while frames:
            fd, names, parent, name = frames[-1]
            if not names:
                frames.pop()
                if parent is not None:
                    try:
                        os.rmdir(name, dir_fd=parent)
                    except OSError:
                        complete = False
                os.close(fd)
                continue
            child, folder = names.pop()
            try:
                if not folder:
                    os.unlink(child, dir_fd=fd)
                    continue
                sub = os.open(child, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                complete = False
                continue
            try:
                push(sub, fd, child)
            except OSError:
                os.close(sub)
                complete = False
    finally:
        for fd, *_ in frames:
            os.close(fd)
    return complete


def ipc_objects(uids: set[int]) -> list[tuple[str, int]]:
    """The System V objects (kind, id) whose owner or creator is one of ``uids``."""
    objects = []
    for kind in IPC_KINDS:
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                lines = table.read().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        header = lines[0].split()
        try:
            at_id, at_uid, at_cuid = 1, header.index("uid"), header.index("cuid")
        except ValueError:
            continue
        for line in lines[1:]:
            cells = line.split()
            try:
                if int(cells[at_uid]) in uids or int(cells[at_cuid]) in uids:
                    objects.append((kind, int(cells[at_id])))
            except (IndexError, ValueError):
                continue
    return objects


def _sysv(uids: set[int], found: Swept) -> None:
    before = ipc_objects(uids)
    if not before:
        return
    tool = shutil.which("ipcrm")
    if tool is not None:
        command = [tool]
        for kind, ident in before:
            command += [IPC_KINDS[kind], str(ident)]
        subprocess.run(command, capture_output=True, timeout=30, check=False)
    after = ipc_objects(uids)
    found.ipc += len(set(before) - set(after))
    found.left += len(after)


KEYCTL_SETPERM, KEYCTL_INVALIDATE = 5, 21


def _keys(uids: set[int], found: Swept) -> None:
    """Invalidate the kernel keys ``uids`` own (as root; Linux).  Root lists those others may
    view; a thread of this process that takes each id as its effective id (the raw system
    call changes that thread alone) lists the others, opens them to itself and invalidates
    them.  A key made viewable by no one, its owner included, is not listed anywhere."""
    from mcts_course.grading import kernel

    if sys.platform != "linux" or os.geteuid() != 0 or kernel._arch() is None:
        return
    _invalidate_listed(uids, found)
    for uid in sorted(uids):
        thread = threading.Thread(target=_as_owner, args=(uid, uids, found), daemon=True)
        thread.start()
        thread.join(timeout=30)


def _as_owner(uid: int, uids: set[int], found: Swept) -> None:
    from mcts_course.grading import kernel

    if kernel.syscall("setresuid", -1, uid, -1) != 0:
        return
    try:
        _invalidate_listed(uids, found, opened=True)
    finally:  # the thread ends anyway; its credentials go with it
        kernel.syscall("setresuid", -1, 0, -1)


def _invalidate_listed(uids: set[int], found: Swept, opened: bool = False) -> None:
    from mcts_course.grading import kernel

    try:
        with open("/proc/keys") as listing:
            lines = listing.read().splitlines()
    except OSError:
        return
    for line in lines:
        cells = line.split()
        try:
            serial, owner = int(cells[0], 16), int(cells[5])
        except (IndexError, ValueError):
            continue
        if owner not in uids:
            continue
        if opened:  # the owner may always change a key's rights
            kernel.syscall("keyctl", KEYCTL_SETPERM, serial, 0x3F3F0000)
        if kernel.syscall("keyctl", KEYCTL_INVALIDATE, serial) == 0:
            found.keys += 1
            _note(f"kernel key {serial:08x} {' '.join(cells[7:9])!r}")
