"""A batch's held-back phases, one at a time: while one submission's held-back tests run, no
other submission's code runs.

A held-back test's process knows inputs its student must not learn.  Whatever it does shows in
counters the whole machine shares (the ``Shmem:`` line of ``/proc/meminfo``, the load, free
memory): a second submission running at the same time (``grade --jobs 2``) could read them
and put what it decoded in its own visible feedback (red team 12, 06).  No sandbox hides all
such counters, so the batch does not let the two overlap.

``grade`` runs each submission's visible tests and its held-back tests in two pytest runs
(``--phase``), every visible run of the batch before any held-back run (red team 14, 01: the
clock is everyone's, and no visible phase follows a held-back one to print it); the locks keep
the held-back runs one at a time when ``--jobs`` is more than 1, and serve a run of both phases
given ``$MCTS_GRADING_PHASES`` too.

``grade`` makes two lock files in a folder of its account's (:func:`shared_folder`: two batches
graded at once by one account keep their held-back phases apart too, red team 20, 14) and
names the folder in ``$MCTS_GRADING_PHASES`` for its runs.  A run takes the phase lock shared
before its first test (visible phases run side by side) and exclusive before its first
held-back test (when every visible process of its own is closed), and keeps it to its end.  The
gate lock lets a run waiting for its held-back phase go before visible phases that start after
it asked: without it, with two runs, one could wait through many others' visible phases.  The
kernel drops both locks when a run ends, however it ends.  A run started alone (``check``,
pytest by hand) takes none."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

PHASES_ENV = "MCTS_GRADING_PHASES"
_FILES = ("phase.lock", "gate.lock")


def shared_folder(fallback: Path) -> tuple[Path, str | None]:
    """The lock files' folder, one per account on the machine (``~/.cache/mcts-course/phases``,
    its owner's alone), and None; or, when the home folder cannot hold it, ``fallback`` (the
    batch's own folder) and why, for the batch to say."""
    folder = Path.home() / ".cache" / "mcts-course" / "phases"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            return fallback, f"{folder} is not a folder of this account's"
        if info.st_mode & 0o077:
            os.chmod(folder, 0o700)
        return folder, None
    except OSError as error:
        return fallback, f"{folder}: {error.strerror or error}"


def make(folder: Path) -> None:
    """The batch's lock files in ``folder`` (the grader's own: no student process reaches it)."""
    for name in _FILES:
        os.close(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))


class Phases:
    """This run's place in its batch: ``None`` before its first test, then "visible" or
    "held back"."""

    def __init__(self, folder: str | None) -> None:
        self.state: str | None = None
        self.fds: tuple[int, int] | None = None
        if folder:
            flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
            phase, gate = (os.open(Path(folder) / name, flags) for name in _FILES)
            self.fds = (phase, gate)

    def enter(self, held_back: bool) -> None:
        """Before a test: wait, if need be, for the phase it belongs to."""
        wanted = "held back" if held_back else "visible"
        if self.state == wanted or self.state == "held back":
            return  # no visible test follows a held-back one (plugin.held_back_last)
        self.state = wanted
        if self.fds is None:
            return
        phase, gate = self.fds
        if held_back:
            fcntl.flock(phase, fcntl.LOCK_UN)  # not held while waiting: no deadlock
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(phase, fcntl.LOCK_EX if held_back else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)

    def close(self) -> None:
        if self.fds is not None:
            for fd in self.fds:
                os.close(fd)
            self.fds = None


def from_environment() -> Phases:
    return Phases(os.environ.get(PHASES_ENV))
