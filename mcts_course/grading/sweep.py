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
inside them), and the walk is bounded in depth and count.  World-writable folders are visited
before the others (the submission can write only there), so the bound cuts the least likely
places first.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections import deque
from dataclasses import dataclass

# The folders any user may write in, and the grader's own temporary folder (fixed now: the
# grader later points ``tempfile`` at a folder of its own).  Tests give their own.
ROOTS: tuple[str, ...] = (
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/run/lock",
    "/dev/mqueue",
    tempfile.gettempdir(),
)
DEPTH = 8  # folders below a root
ENTRIES = 50_000  # entries looked at in one sweep (the machine's /tmp may be large)
IPC_KINDS = {"shm": "-m", "sem": "-s", "msg": "-q"}  # /proc/sysvipc/NAME -> ipcrm's option
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Swept:
    """What one sweep removed, and what it could not."""

    files: int = 0  # files, folders and links (a folder's content counted with it)
    ipc: int = 0  # System V objects
    left: int = 0  # entries and objects of the ids still there (bounds, errors)
    cut: bool = False  # the walk reached its bounds

    def add(self, other: Swept) -> None:
        self.files += other.files
        self.ipc += other.ipc
        self.left += other.left
        self.cut = self.cut or other.cut


TOTAL = Swept()  # this process's sweeps, for the confinement line
RUNS = [0]  # how many sweeps ran


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
                _walk(fd, uids, found)
        finally:
            os.close(fd)
    _sysv(uids, found)
    TOTAL.add(found)
    RUNS[0] += 1
    return found


def summary() -> str:
    """One phrase for the confinement line: whether the sweep ran, and what it removed."""
    if not RUNS[0]:
        return "what its user id leaves in the temporary folders and IPC is swept after its run"
    words = (
        f"swept after the run: {TOTAL.files} file(s) or folder(s) and {TOTAL.ipc} IPC "
        "object(s) its user id left were removed"
    )
    if TOTAL.left:
        words += f", {TOTAL.left} could not be"
    if TOTAL.cut:
        words += f" (the walk stops at {ENTRIES} entries or {DEPTH} folders deep)"
    return words


def _walk(top: int, uids: set[int], found: Swept) -> None:
    """Breadth first from the folder open at ``top`` (not closed here): world-writable
    folders first, then the others any user may enter, within :data:`DEPTH` and
    :data:`ENTRIES`."""
    queue: deque[tuple[int, int]] = deque([(os.dup(top), 0)])  # (descriptor, depth)
    later: deque[tuple[int, int]] = deque()
    looked = 0
    try:
        while queue or later:
            fd, depth = queue.popleft() if queue else later.popleft()
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
                    _remove(fd, name, info, found)
                elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IXOTH:
                    if depth >= DEPTH:
                        found.cut = True
                        continue
                    child = _open_same(fd, name, info)
                    if child is not None:
                        tier = queue if info.st_mode & stat.S_IWOTH else later
                        tier.append((child, depth + 1))
            os.close(fd)
            if looked > ENTRIES:
                break
    finally:
        for fd, _ in (*queue, *later):
            os.close(fd)


def _open_same(parent: int, name: str, info: os.stat_result) -> int | None:
    """The folder ``name`` opened without following a link, if it is still the one listed."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError:
        return None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        return None
    return fd


def _remove(parent: int, name: str, info: os.stat_result, found: Swept) -> None:
    """Remove ``name`` (owned by a swept id), a folder with all it holds."""
    try:
        if stat.S_ISDIR(info.st_mode):
            fd = _open_same(parent, name, info)
            if fd is None:
                found.left += 1
                return
            try:
                complete = _empty(fd, DEPTH)
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
    except OSError:
        found.left += 1


def _empty(fd: int, depth: int) -> bool:
    """Remove everything in the folder open at ``fd`` (its owner's: whatever it holds goes),
    through descriptors, never following a link; False if it goes deeper than ``depth``."""
    with os.scandir(fd) as listing:
        names = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
    complete = True
    for name, folder in names:
        if not folder:
            os.unlink(name, dir_fd=fd)
            continue
        if depth <= 0:
            complete = False
            continue
        child = os.open(name, _DIR_FLAGS, dir_fd=fd)
        try:
            inner = _empty(child, depth - 1)
        finally:
            os.close(child)
        if inner:
            os.rmdir(name, dir_fd=fd)
        complete = complete and inner
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
