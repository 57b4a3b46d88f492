"""The folders a grader makes in the temporary folder for one run, and the sweep of those that a
grader killed with SIGKILL left there.

Each such folder is made by :func:`make` (or :func:`folder`) under a name of one of the
grader's kinds (:data:`KINDS`) and held by a shared flock while the process that made it lives;
a batch's pytest runs take one too on the batch's folders they use (:func:`hold`).  The kernel
drops a lock when its process ends, however it ends.  :func:`sweep` removes a folder only when
it can take the exclusive lock, so only when no grader uses it, in any pid namespace: the rule
of the leftover cgroups (:func:`mcts_course.grading.confine.remove_stale`), with the same grace
(:data:`GRACE`) for a folder between its mkdir and its lock.  A folder of another user, a
link, or a name of no kind of the grader's is never touched, nor one without the mark
:func:`make` leaves in its folders (:data:`MARK`: one of a grader that takes no lock, an older
version's, may be in use)."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import re
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

# tempfile.mkdtemp's names: a prefix, then 8 characters of its alphabet
KINDS = re.compile(
    r"mcts-(?:(?:grader|public)-\d+|sandboxes|grade|work|box|snapshot|probe|zip)-[a-z0-9_]{8}"
)
GRACE = 10.0  # seconds: a folder younger than this may be between its mkdir and its lock
# The system's temporary folder, fixed now (a batch later points its runs at a folder of its own)
SYSTEM_TMP = tempfile.gettempdir()
MARK = ".mcts-held-by-lock"  # an empty file: "this folder's grader holds its lock"
_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_HELD: dict[str, int] = {}  # path -> the descriptor holding its shared lock
_LOCK = threading.Lock()


def hold(path: str | Path) -> None:
    """Hold a shared lock on ``path`` (a grader's folder) until :func:`release` or the end of
    this process.  OSError when it is no folder, or a sweep holds it (it is being removed)."""
    key = os.fspath(path)
    with _LOCK:
        if key in _HELD:
            return
        fd = os.open(key, _FLAGS)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise
        _HELD[key] = fd


def release(path: str | Path) -> None:
    with _LOCK:
        fd = _HELD.pop(os.fspath(path), None)
    if fd is not None:
        os.close(fd)


def make(prefix: str, where: str | Path | None = None, mode: int = 0o700) -> Path:
    """A new folder ``prefix`` + 8 characters in ``where`` (the temporary folder), held
    (:func:`hold`); ``prefix`` must make a name of :data:`KINDS`."""
    path = tempfile.mkdtemp(prefix=prefix, dir=where)
    assert KINDS.fullmatch(os.path.basename(path)), path
    try:
        hold(path)
        os.close(os.open(os.path.join(path, MARK), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.chmod(path, mode)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)
        raise
    return Path(path)


def remove(path: str | Path) -> None:
    """Remove a folder of :func:`make`'s (its links not followed), then let its lock go."""
    shutil.rmtree(path, ignore_errors=True)
    release(path)


@contextlib.contextmanager
def folder(prefix: str, where: str | Path | None = None, mode: int = 0o700) -> Iterator[Path]:
    """:func:`make`, removed on the way out."""
    path = make(prefix, where, mode)
    try:
        yield path
    finally:
        remove(path)


def _places() -> list[str]:
    return list(dict.fromkeys([SYSTEM_TMP, tempfile.gettempdir()]))


def sweep(where: str | Path | None = None) -> list[str]:
    """Remove the folders of the grader's kinds in ``where`` (default: the system's temporary
    folder and this process's) that no live grader holds: this user's own real folders,
    older than the grace of :mod:`~mcts_course.grading.confine`, whose exclusive lock can be
    taken (kept while the folder is removed).  Returns the names removed."""
    removed = []
    for place in [os.fspath(where)] if where is not None else _places():
        try:
            entries = [e.name for e in os.scandir(place) if KINDS.fullmatch(e.name)]
        except OSError:
            continue
        for name in entries:
            path = os.path.join(place, name)
            try:
                fd = os.open(path, _FLAGS)  # a link is refused here
            except OSError:
                continue
            try:
                info = os.fstat(fd)
                if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                    continue  # another user's folder of that name: never ours to remove
                if not _marked(fd):
                    continue  # not made by make(): its grader may take no lock
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a live grader's (or a sweep's under way)
                if time.time() - info.st_ctime < GRACE:
                    continue  # maybe between its mkdir and its lock
                # the temporary folder is sticky or the grader's own (grade refuses any other):
                # nobody else can swap this name for a link of theirs meanwhile
                shutil.rmtree(path, ignore_errors=True)
                removed.append(name)
            finally:
                os.close(fd)
    return sorted(removed)


def _marked(fd: int) -> bool:
    try:
        info = os.stat(MARK, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()


@functools.lru_cache(maxsize=1)
def sweep_once() -> None:
    """:func:`sweep` at a grader's first sandbox (its start)."""
    sweep()
