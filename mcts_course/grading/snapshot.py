"""A private copy of a submission, taken once, before any of its code runs.

The grader (root on Gradescope, or an instructor grading ``/home/alice/sub``) reads a folder
whose owner may change it while it is graded: rename a subfolder and put a symbolic link to
``/etc`` or to the hidden tests in its place.  Anything that opened the folder by its path again
(each new student process copies the sibling modules beside the code) would then copy, as root,
whatever the link points to.  So the submission is read exactly once, here: every folder opened
by a descriptor relative to its parent with ``O_NOFOLLOW | O_DIRECTORY`` (a link is never
followed below the path given), every file with ``O_NOFOLLOW`` and checked by ``fstat``
(:func:`~mcts_course.grading.sandbox.read_regular`), into a folder of the grader's alone (0700).
Every later step (finding the exercise files, copying siblings into each sandbox) reads the copy;
the student's path is never resolved again.

The path the instructor gives may itself go through links (``/home`` on some systems, a folder of
links to the submissions): a link is followed only where no one but root or the grader can
change it (its folder belongs to one of them and no one else may write it, or is sticky and the
link is theirs).  A link the student could have planted is refused with one line.  A folder
on the way that other users may write gets a warning on the grader's terminal (the copy makes
it harmless, so it is not refused).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcts_course.grading import sandbox
from mcts_course.grading.pyparse import foreign_encoding
from mcts_course.grading.report import shown_name
from mcts_course.grading.sandbox import (
    FILE_CAP,
    UNREADABLE,
    UNREADABLE_FIX,
    NotRegularFile,
    read_regular,
)
from mcts_course.grading.sets import SETS

DEPTH = 6  # folders below the submission copied
FILES = 2000  # files copied at most
FOLDERS = 500  # folders copied at most (each costs a mkdir and a removal)
# Beyond those, the walk goes on for the exercise files alone (a <set>.py, a notebook): a data
# folder of 2,100 files or a home folder zipped 7 levels deep does not hide them (red team 8's
# attack 11).  These bound that walk.
NAME_DEPTH = 16
NAME_FOLDERS = 5000
TOTAL_BYTES = 64 << 20  # bytes copied at most
NOTEBOOK_CAP = 20 << 20  # bytes of a notebook (as in sources.py)
_HOPS = 40  # links followed on the given path, at most (as the kernel's ELOOP)

# a file the grading account may not read, as an exercise file's or a helper's note gives it
_UNREADABLE_REASON = f"{UNREADABLE} (permission denied): {UNREADABLE_FIX}"

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class SnapshotError(OSError):
    """The submission's path cannot be read safely (a link its owner could have planted)."""


@dataclass
class Snapshot:
    """``root``: the private copy; ``target``: what to grade in it (the copy of the folder, or of
    the single file given); ``origin``: the path given; ``refused``: files of the copy's tree
    that were not copied (a link, a FIFO, too large) and why; ``warnings``: for the grader."""

    root: Path
    target: Path
    origin: Path
    refused: dict[Path, str] = field(default_factory=dict)  # why, without the name ("is a ...")
    warnings: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)  # the limits that left files out, said once
    unreadable: list[Path] = field(default_factory=list)  # what the grading account may not read
    # of every name and byte copied, in the order copied: two runs that graded one submission
    # (the visible and the held-back phase) compare theirs (red team 22, 15)
    hashed: Any = field(default_factory=lambda: hashlib.sha256())

    def digest(self) -> str:
        """The copy's fingerprint: its files' paths and bytes, and the names refused."""
        tail = hashlib.sha256(self.hashed.digest())
        for path in sorted(self.refused):
            tail.update(os.fsencode(path.relative_to(self.root)) + b"\0")
        return tail.hexdigest()

    def original(self, path: Path) -> Path:
        """The submitted path a file of the copy came from (for messages)."""
        try:
            return self.origin / path.relative_to(self.target)
        except ValueError:
            return self.origin.parent / path.relative_to(self.root)


def _trusted(folder: os.stat_result) -> bool:
    """Whether no one but root or the grader may change names in a folder."""
    mine = folder.st_uid in (0, os.geteuid())
    return mine and not folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _link_trusted(folder: os.stat_result, link: os.stat_result) -> bool:
    """Whether a link found in ``folder`` was put there by root or the grader and stays so."""
    if link.st_uid not in (0, os.geteuid()):
        return False
    sticky = bool(folder.st_mode & stat.S_ISVTX)
    return _trusted(folder) or (sticky and folder.st_uid in (0, os.geteuid()))


def open_path(path: str | Path) -> tuple[int, str | None, list[str]]:
    """``(fd, name, warnings)``: a descriptor of the folder ``path`` names (``name`` None) or of
    the folder holding the file it names (``name`` the file's), reached one component at a time
    without following a link anyone but root or the grader could have made.  Raises
    SnapshotError for such a link, OSError for a path that does not exist."""
    parts = [p for p in os.path.abspath(path).split("/") if p]
    fd = os.open("/", _DIR)
    warnings: list[str] = []
    hops = 0
    walked = Path("/")
    try:
        while parts:
            name = parts.pop(0)
            here = os.fstat(fd)
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode) and not parts:
                return fd, name, warnings  # the file or folder given: a link is refused
            if stat.S_ISLNK(info.st_mode):
                hops += 1
                if hops > _HOPS or not _link_trusted(here, info):
                    raise SnapshotError(
                        f"{walked / name} is a symbolic link its owner (uid {info.st_uid}) or "
                        "another user could change: give the real folder, not a link"
                    )
                target = os.readlink(name, dir_fd=fd)
                if target.startswith("/"):
                    os.close(fd)
                    fd, walked = os.open("/", _DIR), Path("/")
                parts = [p for p in target.split("/") if p and p != "."] + parts
                continue
            if not _trusted(here) and not here.st_mode & stat.S_ISVTX:
                warnings.append(
                    f"warning: {walked} may be changed by users other than root while it is "
                    "graded: the submission is graded from a private copy taken before any of "
                    "its code runs"
                )
            if not stat.S_ISDIR(info.st_mode):
                if parts:
                    raise NotADirectoryError(f"{walked / name} is not a folder")
                return fd, name, warnings
            sub = os.open(name, _DIR, dir_fd=fd)
            os.close(fd)
            fd, walked = sub, (walked.parent if name == ".." else walked / name)
        if not _trusted(os.fstat(fd)):
            warnings.append(
                f"warning: {walked} may be changed by users other than root while it is graded: "
                "the submission is graded from a private copy taken before any of its code runs"
            )
        return fd, None, warnings
    except BaseException:
        os.close(fd)
        raise


class _Copier:
    """Copies regular files by descriptors into a fresh folder, within the caps."""

    def __init__(self, snap: Snapshot, owner: int | None = None, links: bool = False):
        self.snap = snap
        self.owner = owner  # the submission folder's: every file copied must be its own
        self.links = links  # refuse hard links even without an owner to compare with
        self.files = 0
        self.folders = 0  # folders made in the copy (FOLDERS)
        self.scanned = 0  # folders read, by the name-only walk too (NAME_FOLDERS)
        self.bytes = 0

    def cut(self, why: str) -> None:
        if why not in self.snap.cut:
            self.snap.cut.append(why)

    def unreadable(self, dest: Path) -> None:
        """A file or folder the grading account may not read: the copy is not the hand-in,
        and the notes say which (the row's status is then not "graded")."""
        self.snap.unreadable.append(dest)

    def _over_total(self, size: int, name: str, dest: Path) -> bool:
        """Whether ``size`` more bytes pass the copy's total (the file is then refused)."""
        if self.bytes + size <= TOTAL_BYTES:
            return False
        self.snap.refused[dest] = "was not read: the submission exceeds its size cap"
        self.cut(f"the copy stopped at its {TOTAL_BYTES >> 20} MB: some files were not read")
        return True

    def file(
        self, src_dir: int, name: str, dest_dir: int | None, dest: Path, beyond: str = ""
    ) -> None:
        """Copy one file; ``beyond``: the limit passed above it (only exercise files, then)."""
        exercise = name.endswith(".ipynb") or (name.endswith(".py") and name[:-3] in SETS)
        if beyond and not exercise:
            self.cut(beyond)
            return
        if self.files >= FILES and not exercise:
            self.cut(f"the copy stopped at {FILES:,} files: later files were not read")
            return
        cap = NOTEBOOK_CAP if name.endswith(".ipynb") else FILE_CAP
        try:
            # the size first, from the file's entry: sparse 20 MB notebooks were each read
            # whole before the total was checked, and notebooks have no count cap (red team
            # 30, 11); read_regular checks the file it opens again
            if self._over_total(
                os.stat(name, dir_fd=src_dir, follow_symlinks=False).st_size, name, dest
            ):
                return
            data = read_regular(name, cap, dir_fd=src_dir, owner=self.owner, one_name=self.links)
        except NotRegularFile as error:
            self.snap.refused[dest] = error.reason  # without the name: notes name it their way
            return
        except PermissionError:  # said, never taken for a missing file (red team 59, 16)
            self.unreadable(dest)
            self.snap.refused[dest] = _UNREADABLE_REASON
            return
        except OSError:
            return
        if self._over_total(len(data), name, dest):  # the file grew since
            return
        foreign = foreign_encoding(data) if name.endswith(".py") else None
        if foreign is not None:  # its decoder would run in the grader's process (red team 57)
            self.snap.refused[dest] = foreign
            return
        self.files += 1
        self.bytes += len(data)
        where = os.fsencode(dest.relative_to(self.snap.root))
        self.snap.hashed.update(b"%d\0%s\0%d\0" % (len(where), where, len(data)) + data)
        made = None
        if dest_dir is None:  # found by the name-only walk: its folders are made now
            dest.parent.mkdir(0o700, parents=True, exist_ok=True)  # in the copy, the grader's
            dest_dir = made = os.open(dest.parent, _DIR)
        try:
            fd = os.open(name, _WRITE, 0o600, dir_fd=dest_dir)
            try:
                sandbox.write_all(fd, data)
            finally:
                os.close(fd)
        finally:
            if made is not None:
                os.close(made)

    def folder(
        self, src_dir: int, dest_dir: int | None, dest: Path, level: int, beyond: str = ""
    ) -> None:
        """Copy a folder's files; ``dest_dir`` None (with ``beyond``, the limit passed): the
        name-only walk, which makes a folder of the copy only for an exercise file found."""
        try:
            names = sorted(os.listdir(src_dir))
        except PermissionError:
            self.unreadable(dest)
            return
        except OSError:
            return
        for name in names:
            if name.startswith((".", "__")):
                continue  # as the search for exercise files does
            try:
                info = os.stat(name, dir_fd=src_dir, follow_symlinks=False)
            except PermissionError:  # a folder its account may list but not enter (mode 600)
                if name.endswith((".py", ".ipynb")):
                    self.snap.refused[dest / name] = _UNREADABLE_REASON
                self.unreadable(dest / name)
                continue
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                below = beyond
                if level >= DEPTH and not below:
                    below = f"the copy read only exercise files below {DEPTH} levels of folders"
                if self.folders >= FOLDERS and not below:
                    below = f"the copy read only exercise files after {FOLDERS} folders"
                if level >= NAME_DEPTH or self.scanned >= NAME_FOLDERS:
                    self.cut(f"the copy stopped at {NAME_DEPTH} levels or {NAME_FOLDERS} folders")
                    continue  # 50,000 empty folders would cost the batch minutes of copying
                self.scanned += 1
                try:
                    sub = os.open(name, _DIR, dir_fd=src_dir)
                except PermissionError:
                    self.unreadable(dest / name)
                    continue
                except OSError:
                    continue
                try:
                    if below:
                        self.folder(sub, None, dest / name, level + 1, below)
                        continue
                    self.folders += 1
                    os.mkdir(name, 0o700, dir_fd=dest_dir)
                    new = os.open(name, _DIR, dir_fd=dest_dir)
                    try:
                        self.folder(sub, new, dest / name, level + 1, below)
                    finally:
                        os.close(new)
                finally:
                    os.close(sub)
            else:  # a regular file, or one to refuse by name (a link, a FIFO...)
                self.file(src_dir, name, dest_dir, dest / name, beyond)


_TAKEN: list[Path] = []


def _cleanup() -> None:
    from mcts_course.grading import leftovers

    for folder in _TAKEN:
        leftovers.remove(folder)  # and its lock, if it holds one


atexit.register(_cleanup)


def take(submission: str | Path) -> Snapshot:
    """Copy ``submission`` (a folder, or one file alone) into a new private
    folder.  Raises SnapshotError (a link planted on the path) or OSError (no such path)."""
    origin = Path(os.path.abspath(submission))
    fd, name, warnings = open_path(origin)
    # In a batch, inside its root-only folder of sandboxes, which the batch removes at its end
    # even when this run was killed before its own clean-up.
    if os.environ.get(sandbox.BASE_ENV):
        root = Path(tempfile.mkdtemp(prefix="mcts-snapshot-", dir=sandbox._base()))  # 0700
    else:  # in the temporary folder: held, so that a sweep finds it if this run is killed
        from mcts_course.grading import leftovers

        held = leftovers.make("mcts-snapshot-")  # its mark beside the copy, not in it
        root = held / "copy"
        os.mkdir(root, 0o700)
    _TAKEN.append(root if os.environ.get(sandbox.BASE_ENV) else root.parent)
    try:
        top = os.open(root, _DIR)
        try:
            if name is None:  # a folder: the whole tree
                snap = Snapshot(root, root, origin, warnings=warnings)
                _Copier(snap, os.fstat(fd).st_uid).folder(fd, top, root, 0)
            else:  # one file: that file alone (each exercise file is checked on its own), never
                # the files beside it, which may be other students' files in a flat export
                snap = Snapshot(root, root / name, origin, warnings=warnings)
                # a hard link is refused here too; its folder's owner may not be the file's
                # (a flat export of every student's file, made by the instructor)
                _Copier(snap, None, links=True).file(fd, name, top, root / name)
        finally:
            os.close(top)
    finally:
        os.close(fd)
    return snap


def submission_sources(
    submission: str | Path, cut: list[str] | None = None, digest: list[str] | None = None
) -> dict[str, Any]:
    """The exercise files of ``submission`` (see :func:`~mcts_course.grading.sources.
    find_sources`), read from a snapshot: each Source's ``path`` lies in the private copy (its
    folder is what the sandboxes copy sibling modules from), ``origin`` is the submitted path.
    A path that cannot be read safely gives no file, with the reason on standard error."""
    from mcts_course.grading.sources import find_sources

    try:
        snap = take(submission)
    except SnapshotError as error:
        print(f"refused: {error}", file=sys.stderr)
        return {}
    except PermissionError:  # the hand-in's own folder: said, as a file inside it is
        why = (
            f"the submission {UNREADABLE} (uid {os.geteuid()}, permission denied): {UNREADABLE_FIX}"
        )
        print(f"note: {why}", file=sys.stderr)
        if cut is not None:
            cut.append(why)
        return {}
    except OSError:
        return {}
    for line in snap.warnings:
        print(line, file=sys.stderr)
    if snap.unreadable:  # a note, and the copy's limits' status: not a grade of the hand-in
        base = snap.target if snap.target.is_dir() else snap.root
        shown = [
            shown_name(str(p.relative_to(base)) if p != base else ".") for p in snap.unreadable
        ]
        more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
        snap.cut.append(
            f"{', '.join(shown[:5])}{more} {UNREADABLE} (uid {os.geteuid()}, permission "
            f"denied): nothing in "
            f"{'them' if len(shown) > 1 else 'it'} was graded; {UNREADABLE_FIX}"
        )
    for line in snap.cut:  # in pytest.log too
        print(f"note: {line}", file=sys.stderr)
    if cut is not None:
        cut.extend(snap.cut)
    if digest is not None:
        digest.append(snap.digest())
    later: list[str] = []  # limits met while finding the exercises and their helper files
    found = find_sources(snap.target, refused=snap.refused, cut=later)
    for source in found.values():
        source.origin = snap.original(source.path)
    exercises = {source.path for source in found.values()}
    for folder in sorted({path.parent for path in exercises}):
        later.append(sandbox.siblings_left_out(folder))  # the student's imports of them fail
        for path, why in sorted(snap.refused.items()):  # so do those of a refused helper:
            # not a grade either (a link, a second name, another owner's file: red team 42, 06)
            if path.parent == folder and path.suffix == ".py" and path not in exercises:
                # the reason holds no name: the note shows it once, quoted (red team 52, 00)
                later.append(
                    f"{shown_name(path.name)} beside the exercise files was not copied beside "
                    f"the code (it {why}): importing it fails"
                )
    for why in later:
        if why and why not in snap.cut:
            print(f"note: {why}", file=sys.stderr)
            snap.cut.append(why)
            if cut is not None:
                cut.append(why)
    return found
