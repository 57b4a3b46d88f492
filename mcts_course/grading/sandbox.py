"""What confines a student's code: files, users, processes, limits.

The student's process (:mod:`mcts_course.grading.process`) runs in a :class:`Sandbox`.  Where
the machine allows namespaces (root, or an ordinary user through user namespaces), the sandbox
is built by mechanism (:mod:`mcts_course.grading.confine`): a root of its own showing only the
interpreter, the student package's dependencies, the public copy of the package and private
size-capped tmpfs folders; its own IPC, network (empty), pid and UTS namespaces; a cgroup per
submission (memory, processes, CPU, freezer) when root may make one.  :func:`confinement` says
which one a run gets.  Without namespaces (a container that forbids them: Gradescope's runs one
submission per container) root falls back to what follows, one submission at a time
(:func:`check_batch` refuses a batch); an ordinary user without them is refused unless told
``--unconfined`` (:func:`check_unconfined`).  The fallback:

* **As root** (Gradescope, an instructor's batch) every sandbox gets a user id of its own, never
  used before by this grader and owned by no account or process (:func:`allocate_uid`): the
  student's processes cannot read, signal or change those of another submission, and
  ``RLIMIT_NPROC`` (a count per user id) caps that submission alone.  Its work folder is created
  by root, inside a root-owned folder, mode 0700 for that id alone.  When the sandbox closes,
  every process of that id is killed (also one that left its session) and its files are removed.
  The privileges are dropped inside the child by the server's first lines, before any student
  code exists in the process; if that fails, the grader refuses to grade
  (:class:`SandboxError`): student code never runs as root.
* **Private files** (reference solutions, grading tests, an instructor's hidden tests) that other
  users may read are hidden from the child with a mount namespace (an empty folder or
  ``/dev/null`` mounted over them): the grader never changes the permissions of a checkout.  An
  installed package made unreadable at install time (Gradescope's ``setup.sh``,
  :func:`protect_private_files`) needs no hiding.
* **Files root reads** from a submission are opened without following symbolic links and must be
  regular files (:func:`read_regular`); nothing root later opens lies in a folder the student's
  user can write (its output goes to an unnamed temporary file, its code through a pipe).

Without root (a student's ``check``) the code runs as the grader's own user: there is nothing to
protect from oneself, and the limits still stop loops, forks and memory hogs.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcts_course.grading import landlock
from mcts_course.grading.checkouts import grader_package

if TYPE_CHECKING:
    from mcts_course.grading import sweep

PACKAGE = Path(__file__).resolve().parents[1]  # .../mcts_course
PRIVATE = ("solutions", "grading/tests")  # what the student's process must not read
UIDS = (1_700_000_000, 1_799_999_999)  # default range of the sandboxes' user ids (env: below)
FILE_CAP = 2 << 20  # bytes of one submitted file
SIBLINGS = 200  # files of a submission folder copied beside the code (sibling imports)
SIBLINGS_BYTES = 4 << 20  # the grader's checks parse each of them in its own process
MEMORY_MB = 1024  # default memory cap of the process running a student's code (every front end)
# What the options may set (every front end): values outside gave every student, the reference
# too, a quiet 0 with status "graded" (--timeout-scale 1e-9, --memory-mb 20), or crashed every
# run (nan, inf), and the pre-run, which runs only the instructor's tests, did not see it (red
# team 55, 28 and 29).  The floor lets the interpreter and numpy load with room to spare.
MEMORY_MB_FLOOR = 256
MEMORY_MB_CEILING = 1 << 20  # a TiB: more overflowed the kernel's limits (red team 56, 11)
TIMEOUT_SCALES = (0.1, 100.0)


def limits_problem(timeout_scale: float | None, memory_mb: int | None) -> str | None:
    """Why ``--timeout-scale`` or ``--memory-mb`` cannot be used (None when they can)."""
    low, high = TIMEOUT_SCALES
    if timeout_scale is not None and not low <= timeout_scale <= high:  # nan fails both
        return f"--timeout-scale must be a number from {low:g} to {high:g}, not {timeout_scale!r}"
    if memory_mb is not None and not MEMORY_MB_FLOOR <= memory_mb <= MEMORY_MB_CEILING:
        return (
            f"--memory-mb must be from {MEMORY_MB_FLOOR} (the interpreter needs it) to "
            f"{MEMORY_MB_CEILING:,}"
        )
    return None


class SandboxError(RuntimeError):
    """The grader cannot confine the students' code: it refuses to grade (fails closed)."""


# How the reason of a file or folder the grading account may not read begins (a teaching
# assistant's `grade` reads what that account may: a hand-in kept `chmod 600` or `000` was taken
# for a missing file, 0 points and "graded", where root grades it whole: red team 59, 16).
UNREADABLE = "could not be read by the grading account"
UNREADABLE_FIX = "make it readable (chmod -R a+rX on the hand-in) and grade it again"


class NotRegularFile(OSError):
    """A submitted path that is a symbolic link, a folder, a device... (not a regular file).
    ``reason`` says why without the file's name ("is a symbolic link, not a file"), for a
    message that names the file its own way (quoted, escaped); ``str()`` is name and reason."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name} {reason}")
        self.reason = reason


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``: one ``os.write`` may write part of it (a nearly full disk) and
    say so only in its count, which would leave a copy cut short with no error (red team 29,
    08).  No room for the rest raises OSError."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# -- reading what a student submitted, as root -------------------------------------------------
def read_regular(
    path: str | Path,
    cap: int = FILE_CAP,
    dir_fd: int | None = None,
    owner: int | None = None,
    one_name: bool = False,
) -> bytes:
    """The bytes of ``path``, which must be a regular file (not a symbolic link, a FIFO, a
    device); at most ``cap`` bytes.  Raises NotRegularFile (an OSError) otherwise.  With
    ``owner`` (the submission folder's), also a file of another owner, and with ``one_name``
    or ``owner``, a file with more than one name: a hard link to ``/etc/shadow`` or to another
    course's hidden tests, which a copier running as root or as the instructor would otherwise
    read with its own rights (red team 8's attack 06; such links need
    ``fs.protected_hardlinks=0``, the kernel's default where systemd does not set it).

    ``O_NOFOLLOW`` refuses a link in the last component and ``fstat`` checks the file actually
    opened, so a path swapped between a check and the open gains nothing."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as error:
        if _is_loop(error):
            raise NotRegularFile(Path(path).name, "is a symbolic link, not a file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(Path(path).name, "is not a regular file")
        if (one_name or owner is not None) and info.st_nlink > 1:
            raise NotRegularFile(
                Path(path).name,
                f"is a hard link (a file with {info.st_nlink} names), not a "
                "file of the submission's own",
            )
        if owner is not None and info.st_uid != owner:
            raise NotRegularFile(
                Path(path).name,
                f"belongs to user {info.st_uid}, not to the submission folder's owner ({owner})",
            )
        if info.st_size > cap:
            raise NotRegularFile(Path(path).name, f"is larger than {cap >> 20} MB")
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            raise NotRegularFile(Path(path).name, f"is larger than {cap >> 20} MB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _is_loop(error: OSError) -> bool:
    import errno

    return error.errno in (errno.ELOOP, errno.EMLINK)


def regular_files(folder: str | Path, depth: int = 6, limit: int = 2000) -> list[Path]:
    """The regular files under ``folder`` (not following any symbolic link, to files or to
    folders; names starting with "." or "__" skipped), sorted; at most ``limit``."""
    found: list[Path] = []
    folder = Path(folder)

    def walk(fd: int, where: Path, level: int) -> None:
        try:
            names = sorted(os.listdir(fd))
        except OSError:
            return
        for name in names:
            if len(found) >= limit or name.startswith((".", "__")):
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.append(where / name)
            elif stat.S_ISDIR(info.st_mode) and level < depth:
                try:
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                try:
                    walk(sub, where / name, level + 1)
                finally:
                    os.close(sub)

    top = os.open(folder, _DIR_FLAGS)
    try:
        walk(top, folder, 0)
    finally:
        os.close(top)
    return found


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW


# -- the package copy the student's process imports ----------------------------------------------
def public_package(dest: Path) -> Path:
    """Write into ``dest`` the copies of ``mcts_course`` the student's processes import: the
    given code, the games and the grading server, without the reference solutions, the grading
    tests or any solver of the library (:mod:`mcts_course.grading.studentview`); one per
    exercise set (``dest/sets/NAME``), holding only what that set may use, and one for a run
    of no set (``dest`` itself).  Return ``dest``; :func:`set_view` finds a set's.

    ``dest`` is closed to other users (0700): a run reaches only its own set's copy, bound into
    its root (namespaces) or copied for its user id alone (:meth:`Sandbox.own_package`), never
    another set's, whose files hold what its own may not use (red team 10's attack 03)."""
    from mcts_course.grading import studentview
    from mcts_course.grading.sets import SETS

    studentview.write(PACKAGE, dest / "mcts_course")
    for name in SETS:
        (dest / "sets" / name).mkdir(parents=True)
        studentview.write(PACKAGE, dest / "sets" / name / "mcts_course", name)
    for path in dest.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o700)
    return dest


def set_view(public_root: Path, set_name: str | None) -> Path:
    """The folder to put first on the ``sys.path`` of a run of ``set_name`` (None or "": of no
    set), in copies written by :func:`public_package`."""
    if not set_name:
        return public_root
    folder = public_root / "sets" / set_name
    if not (folder / "mcts_course").is_dir():
        raise SandboxError(f"no copy of the package for the exercise set {set_name!r}")
    return folder


def private_files(extra: list[str] | None = None) -> list[Path]:
    """The files the student's process must not read: the installed package (its process
    imports its set's copy instead), the reference solutions, the grading tests (and their
    caches), the instructor's hidden tests (files or folders).  Only the fallback without
    namespaces (:data:`UID_ONLY`) hides them one by one; in namespaces the student's root shows
    none of them (:mod:`mcts_course.grading.confine`)."""
    # The whole installed package: a graded run imports its set's copy, never this one, whose
    # files hold what some sets may not use (the playouts of the games, Connect Four's rules,
    # the search of the skeleton: red team 10's attack 03 read such a file and ran it).  A
    # folder: its caches (__pycache__) are inside, so hiding the folder hides them too.
    paths = [PACKAGE]
    grader = grader_package()
    if grader is not None:
        paths += [grader / "solutions", grader / "tests"]
    paths += [Path(p).resolve() for p in extra or []]
    return [p for p in paths if p.exists()]


def protect_private_files(extra: list[str] | None = None) -> list[Path]:
    """As root: make the private files unreadable by other users; return them.  For an
    installed package, once (Gradescope's ``setup.sh``); ``grade`` never calls it, so that it
    does not change the permissions of a checkout (it hides them instead, see :func:`hidden`)."""
    if not is_root():
        return []
    paths = private_files(extra) + set_answer_modules()
    paths += compiled_twins(paths)
    for path in paths:
        path.chmod(0o700 if path.is_dir() else 0o600)
    return paths


def set_answer_modules() -> list[Path]:
    """The library's modules an exercise set must not hand its work to (the Connect Four
    rules, for the connect4 set: :data:`mcts_course.grading.delegation.SET_ANSWERS`).  The
    student's process imports the grader's copy of the package, where a set's copy has them
    stripped; the installed module itself need not be readable by the student's user."""
    from mcts_course.grading.delegation import SET_ANSWERS

    found = []
    for dotted in sorted({d for names in SET_ANSWERS.values() for d in names}):
        parts = dotted.split(".")[1:]  # below mcts_course; an attribute's name finds no file
        module = PACKAGE.joinpath(*parts).with_suffix(".py") if parts else None
        if module is not None and module.is_file():
            found.append(module)
    return found


def compiled_twins(paths: list[Path]) -> list[Path]:
    """The ``__pycache__/NAME.*.pyc`` beside each file of ``paths``: the same code, compiled
    (marshal and dis read it back), left 0644 by the installer.  A protected folder's caches are
    inside it already."""
    return [
        twin
        for path in paths
        if path.suffix == ".py"
        for twin in sorted((path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"))
    ]


READABLE_WALK = 50_000  # entries a readable_by_others walk looks at before it answers yes


def readable_by_others(path: Path) -> bool:
    """Whether a user with no relation to the file (a sandbox's id: no group) could read
    ``path`` or, for a folder, a file in it (ACLs aside).  Below ``path`` no link is followed
    (three links to ``.`` made the walk explore 3**40 paths, then crash: red team 23, 10); a
    folder too big to walk counts as readable (closing a parent answers at once)."""
    path = Path(os.path.abspath(path))
    for parent in reversed(path.parents):
        try:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    todo, seen = [(path, mode)], 0
    while todo:
        where, mode = todo.pop()
        if not stat.S_ISDIR(mode):
            if stat.S_ISREG(mode) and mode & stat.S_IROTH:
                return True
            continue
        if not mode & stat.S_IXOTH:
            continue
        try:
            names = os.listdir(where)
        except OSError:
            continue
        for name in names:
            seen += 1
            if seen > READABLE_WALK:
                return True
            try:
                info = os.lstat(where / name)
            except OSError:
                continue
            if not stat.S_ISLNK(info.st_mode):
                todo.append((where / name, info.st_mode))
    return False


# The batch's own folder (``grade`` names it for its runs): the copies of the hidden tests are
# in it, so nothing in it is ever on the student's path.
BATCH_ENV = "MCTS_GRADING_BATCH"


def hidden(
    extra: list[str] | None = None, expose: list[str] | None = None
) -> list[list[str | bool]]:
    """``[path, is_folder]`` of each private file or folder that other users can read, or that
    lies in a folder the child will expose (see :func:`exposed`: a package installed beside the
    interpreter under /root becomes reachable there): the child mounts an empty folder or
    /dev/null over them before dropping root."""
    inside = [Path(e) for e in expose or []]
    found = [
        p
        for p in dict.fromkeys(private_files(extra) + _checkouts_covered(expose or []))
        if readable_by_others(p) or any(e in Path(os.path.realpath(p)).parents for e in inside)
    ]
    # a file inside a hidden folder is gone once the folder is covered: mounting over it fails
    return [[str(p), p.is_dir()] for p in found if not any(f in p.parents for f in found)]


def _checkouts_covered(expose: list[str]) -> list[Path]:
    """The copies of this repository a namespace sandbox covers (:mod:`checkouts`: the
    checkout each installed distribution came from, ``.git`` and build folders included, and
    those found in the trees the namespace root shows whole), all but what the student's
    process needs of them (a virtual environment inside a checkout, the temporary folder).
    The fallback without namespaces showed the rest: it hid a checkout's ``mcts_course`` and
    ``grader`` folders and left its ``.git``, whose packs hold every version of the reference
    solutions (red team 55, 06)."""
    from mcts_course.grading import checkouts, confine

    needed = [sys.prefix, sys.base_prefix, *student_paths(), *expose, _BASE_PARENT]
    needed += [os.environ[n] for n in (BATCH_ENV, BASE_ENV) if os.environ.get(n)]
    keep = sorted({os.path.realpath(p) for p in needed})
    found: list[Path] = []
    for copy in checkouts.copies(confine.whole_trees()):
        found += [Path(p) for p in confine.cover(copy, keep, ["/"])]
    return found


def student_paths() -> list[str]:
    """The grader's library folders for the student's ``sys.path``: the interpreter's own (the
    standard library, site-packages under its prefixes) and any site-packages or dist-packages
    folder (numpy...), without a folder holding this package's sources (a checkout): the
    student's process imports the public copy.  Nothing else of the grader's ``sys.path``: an
    instructor's ``PYTHONPATH`` folder, or the folder pytest puts there for the hidden tests
    (their copy, in the batch's own folder, :data:`BATCH_ENV`), would be shown to the student
    where it lies, past closed parents (red team 20, 08 and 16).  An installed package in
    site-packages stays on the path; its private files are unreadable or hidden (see above)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    batch = os.environ.get(BATCH_ENV)
    paths = []
    for p in sys.path:
        if not p or not Path(p).is_dir():
            continue
        real = os.path.realpath(p)
        if batch and real.startswith(os.path.realpath(batch) + os.sep):
            continue
        named = Path(p).name in ("site-packages", "dist-packages")
        if not named and not any(real == x or real.startswith(x + os.sep) for x in prefixes):
            continue
        if (Path(p) / "mcts_course").is_dir() and not named:
            continue
        paths.append(p)
    return paths


def _closed_ancestor(path: Path) -> Path | None:
    """The topmost folder on the way to ``path`` that other users may not pass through."""
    for folder in [*reversed(path.parents), path]:
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return None
    return None


def exposed() -> list[str]:
    """The interpreter's folders that a sandbox's id could not reach (a Python installed under
    /root, as pyenv does): the child mounts them, in its own mount namespace, at the same place
    on an empty folder laid over the closed one, so the interpreter runs without any permission
    changed and nothing else of that folder is visible."""
    wanted = sorted({os.path.realpath(p) for p in [sys.base_prefix, sys.prefix, *student_paths()]})
    found: list[str] = []
    for path in wanted:
        if not os.path.isdir(path) or _closed_ancestor(Path(path)) is None:
            continue
        if not any(path == f or path.startswith(f + os.sep) for f in found):
            found.append(path)
    return found


def unprivileged_ids() -> None:
    """Kept for callers of the former shared user: there is none any more (each
    :class:`Sandbox` has its own id and prepares its own folder), so nothing should be chowned
    to it.  Always None."""
    return None


# -- user ids ----------------------------------------------------------------------------------
_USED: set[int] = set()
_LOCK = threading.Lock()


def uid_range() -> tuple[int, int]:
    """The sandboxes' ids: ``$MCTS_GRADING_UIDS`` ("FIRST-LAST") or :data:`UIDS`.  Choose a
    range no account uses (a container that maps few ids needs one below 65536)."""
    text = os.environ.get("MCTS_GRADING_UIDS", "")
    if text:
        try:
            first, last = (int(x) for x in text.split("-"))
        except ValueError:
            raise SandboxError(f"MCTS_GRADING_UIDS={text!r}: expected FIRST-LAST") from None
        if not 0 < first <= last < 2**32 - 1:
            raise SandboxError(f"MCTS_GRADING_UIDS={text!r}: not a range of user ids")
        return first, last
    return UIDS


def allocate_uid() -> int:
    """A user id for one sandbox: in :func:`uid_range`, never handed out before by this grader
    (nor by a process it forked: the ids go through a locked file in its root-only folder), with
    no account or group of that number and no process running as it."""
    import fcntl
    import grp
    import pwd

    first, last = uid_range()
    fd = os.open(_base() / "uids", os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    with _LOCK, os.fdopen(fd, "a+") as registry:
        fcntl.flock(registry, fcntl.LOCK_EX)
        registry.seek(0)
        used = _USED | {int(x) for x in registry.read().split()}
        for _ in range(1000):
            uid = random.randint(first, last)
            if uid in used:
                continue
            try:
                pwd.getpwuid(uid)
                continue
            except KeyError:
                pass
            try:
                grp.getgrgid(uid)
                continue
            except KeyError:
                pass
            if processes_of(uid):
                continue
            _USED.add(uid)
            registry.write(f"{uid}\n")
            return uid
    raise SandboxError(f"no free user id in {first}-{last} (MCTS_GRADING_UIDS)")


def processes_of(uid: int) -> list[int]:
    """Pids of the live processes whose real, effective or saved user id is ``uid``."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                status = f.read().decode(errors="replace")
        except OSError:
            continue
        ids, zombie = [], False
        for line in status.splitlines():
            if line.startswith("State:"):
                zombie = "Z" in line.split()[1:2]
            elif line.startswith("Uid:"):
                ids = [int(x) for x in line.split()[1:4]]
        if uid in ids and not zombie:
            pids.append(int(name))
    return pids


def kill_all(uid: int) -> None:
    """Kill every process of ``uid`` (also those that left their session or process group),
    until none is left: each round kills all that exist, and a killed process forks no more."""
    import signal

    from mcts_course.grading import confine

    rounds = 0
    while pids := processes_of(uid):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if rounds:  # still there after a SIGKILL: frozen by a grader that died
                confine.thaw_process(pid)
        rounds += 1
        os.sched_yield()


_BASE: dict[str, str] = {}
_BASE_LOCK = threading.Lock()
# Where the sandboxes' folder goes: the system's temporary folder, fixed now, because the grader
# later points ``tempfile`` at a folder only root may enter (its own files).
_BASE_PARENT = tempfile.gettempdir()


BASE_ENV = "MCTS_SANDBOX_BASE"  # a batch's folder of sandboxes, handed to its pytest runs


def _base() -> Path:
    """The root-owned folder of this grader's sandboxes (0711: a sandbox's id may enter its own
    folder, by name, but list nothing).  A batch (:func:`mcts_grader.batch.grade`) makes
    it once and hands it to each submission's pytest run in ``$MCTS_SANDBOX_BASE``: the runs
    share its locked registry of user ids, so no two sandboxes of a batch get the same id."""
    from mcts_course.grading import leftovers

    with _BASE_LOCK:
        given = os.environ.get(BASE_ENV)
        if given and "path" not in _BASE:
            _BASE["path"] = str(_checked_base(given))
            try:  # held while this run uses it: a sweep leaves it, even if the batch is killed
                leftovers.hold(given)
            except OSError as error:
                raise SandboxError(f"{BASE_ENV}={given}: {error.strerror}") from None
        if "path" not in _BASE or not os.path.isdir(_BASE["path"]):
            # a batch killed with SIGKILL leaves its folder: the next grader sweeps it (by lock)
            leftovers.sweep_once()
            path = str(leftovers.make("mcts-sandboxes-", _BASE_PARENT, mode=0o711))
            _BASE["path"] = path
            import atexit

            atexit.register(_remove_base, os.getpid(), path)
        return Path(_BASE["path"])


def _checked_base(path: str) -> Path:
    """``path`` if it is a real folder of this user that no one else may change (the
    environment of a pytest run is the grader's, but check it: root creates folders in it)."""
    try:
        info = os.lstat(path)
    except OSError as error:
        raise SandboxError(f"{BASE_ENV}={path}: {error.strerror}") from None
    if (
        not stat.S_ISDIR(info.st_mode)
        or info.st_uid != os.geteuid()
        or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    ):
        raise SandboxError(f"{BASE_ENV}={path}: not a folder of the grader's alone")
    return Path(path)


def registered_uids() -> set[int]:
    """The user ids handed out through this grader's registry (its forks' and runs' too)."""
    if "path" not in _BASE:
        return set(_USED)
    try:
        text = read_regular(Path(_BASE["path"]) / "uids").decode()
    except OSError:
        return set(_USED)
    return _USED | {int(x) for x in text.split() if x.isdigit()}


def kill_registered() -> None:
    """Kill every process of every sandbox id of the registry: the end of a batch, after a run
    that was killed (it could not close its sandboxes) left some of them behind."""
    uids = registered_uids()
    for uid in uids:
        kill_all(uid)
    if confinement_mode() == UID_ONLY:  # their files and IPC objects are the machine's
        from mcts_course.grading import sweep

        sweep.sweep(uids)
        return
    for uid in uids:
        for folder in SHARED_TMP:
            _remove_owned(Path(folder), uid)


def _remove_base(creator: int, path: str) -> None:
    from mcts_course.grading import leftovers

    if os.getpid() == creator:  # not in a fork (they leave through os._exit anyway)
        leftovers.remove(path)


SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")  # where any user may leave files


# -- which confinement a student's process gets --------------------------------------------------
UNCONFINED_ENV = "MCTS_GRADING_UNCONFINED"  # "1": the grader said --unconfined
UID_ONLY = "uid"  # root without namespaces: a user id of its own and file permissions


def confinement_mode() -> str:
    """How this process's sandboxes confine student code: ``namespaces`` (root: namespaces, a
    user id of its own, cgroups where allowed), ``userns`` (an ordinary user: the same
    namespaces through a user namespace), ``uid`` (root where namespaces are forbidden, as in
    Gradescope's container: a user id and permissions only) or ``none`` (an ordinary user
    without user namespaces: the code runs as that user)."""
    from mcts_course.grading import confine

    found = confine.mode()
    if found != "none":
        return found
    return UID_ONLY if is_root() else "none"


def confinement(swept: sweep.Counts | None = None) -> str:
    """One line for reports: what confines a student's process here (``swept``: the sweeps'
    :class:`~mcts_course.grading.sweep.Counts` to tell, by default all of this process's)."""
    from mcts_course.grading import confine, sweep

    found = confinement_mode()
    writes = landlock.summary(writes_abi(found), found != UID_ONLY)
    if found in ("namespaces", "userns"):
        cgroups = found == "namespaces" and confine.cgroups_allowed()
        return confine.describe(found, cgroups, None) + f"; {writes}; {LIBRARY_NAMESPACES}"
    if found == UID_ONLY:
        from mcts_course.grading.kernel import SUMMARY

        return (
            "user id and permissions only (no namespaces here: one submission at a time; "
            f"its processes killed by user id; no private /tmp; {SUMMARY}; {writes}; "
            f"{sweep.summary(swept)}); {LIBRARY_UID}"
        )
    if os.environ.get(UNCONFINED_ENV) == "1":
        return UNCONFINED_WARNING
    return "none: refused (pass --unconfined to run the code as your user)"


# What a graded run can reach of the library (see grading.studentview), by mode.
LIBRARY_NAMESPACES = "the library's solvers do not exist there (a copy without them)"
LIBRARY_UID = (
    "the library's solvers left out of the copy it imports (its set's, readable by its user id "
    "alone), the installed package and the checkout it came from hidden or unreadable (other "
    "copies on this machine are not)"
)


UNCONFINED_WARNING = (
    "none: --unconfined.  The students' code runs as your own user, with your files, your "
    "network and your other processes in reach: it can read and change whatever you can "
    "(other submissions, your ~/.bashrc, your keys).  Use it only for code you trust."
)


def writes_abi(mode: str) -> int:
    """The Landlock ABI the student's process of a ``mode`` sandbox restricts its writes with
    (0: none, the kernel offers none; see :mod:`mcts_course.grading.landlock`).  Every confined
    mode gets it: without namespaces it is what keeps the student's files out of the machine's
    other world-writable folders; in namespaces it is a second line around the private root.
    ``--unconfined`` means what it says."""
    return landlock.abi() if mode in (UID_ONLY, "namespaces", "userns") else 0


def unconfined_allowed() -> bool:
    """Whether code may run unconfined: only when told so (``--unconfined``).  Not even a
    student's check without the grader installed: ``check`` cannot know whose folder it is
    given (a teaching assistant checking a student's), so the person says so."""
    return os.environ.get(UNCONFINED_ENV) == "1"


def check_unconfined() -> None:
    """Refuse (SandboxError) when student code would run with no confinement and the grader
    did not say --unconfined."""
    if confinement_mode() == "none" and not unconfined_allowed():
        raise SandboxError(
            "this account cannot confine the code it is given (not root, and user namespaces "
            "are not available here), so it refuses to run it.  Grade as root, or on a machine "
            "with user namespaces, or (your own code, or code you trust) pass --unconfined: "
            + UNCONFINED_WARNING.removeprefix("none: --unconfined.  ")
        )


def check_batch(count: int) -> None:
    """Refuse a batch of several submissions when their processes cannot be isolated from one
    another (no namespaces: a shared /tmp, shared memory, the network, daemons)."""
    found = confinement_mode()
    if count > 1 and found not in ("namespaces", "userns"):
        if found == "none" and os.environ.get(UNCONFINED_ENV) == "1":
            return
        raise SandboxError(
            f"{count} submissions cannot be graded together here: this machine forbids the "
            "namespaces that keep one submission's processes, temporary files, shared memory "
            "and network away from the next (confinement: " + found + ").  Grade one "
            "submission per run (one container each, as Gradescope does), or on a machine "
            "that allows unshare"
        )


def sibling_sources(folder: Path) -> list[tuple[str, bytes]]:
    """``[(name, bytes)]`` of the .py files at the top of a submission's folder that its
    processes may import: what the sandbox copies beside the code, and what the submission's
    seed hashes (:func:`mcts_course.grading.plugin.submission_seed`).  Read as root without
    following links; source only (a notebook's code comes through the pipe): a .pyc, .so,
    .zip or .pth beside the stub would run code no reviewer reads (red team 8's attack 12)."""
    return _siblings(folder)[0]


def siblings_left_out(folder: Path) -> str:
    """Why some .py files of ``folder`` are not copied beside the code ("" when none is
    left out): the student's imports of them fail, so the row must not read ``graded``."""
    return _siblings(folder)[1]


def _siblings(folder: Path) -> tuple[list[tuple[str, bytes]], str]:
    try:
        paths = [p for p in regular_files(folder, depth=0) if p.suffix == ".py"]
    except OSError:
        return [], ""
    found: list[tuple[str, bytes]] = []
    total, left = 0, 0
    for path in paths:
        if len(found) >= SIBLINGS or total > SIBLINGS_BYTES:
            left += 1  # not read: counted only
            continue
        try:
            data = read_regular(path, cap=FILE_CAP)
        except OSError:
            continue  # not a regular file of the copy's: the snapshot says why (refused_files)
        total += len(data)
        if total > SIBLINGS_BYTES:
            left += 1
            continue
        found.append((path.name, data))
    if not left:
        return found, ""
    return found, (
        f"{left} of the .py files beside the exercise files were not copied beside the code "
        f"(at most {SIBLINGS} files, {SIBLINGS_BYTES >> 20} MB together): importing them fails"
    )


class Sandbox:
    """One student process's confinement: a user id of its own (as root), a work folder only
    that id can enter holding copies of the submission's files, and an end that leaves
    nothing of it behind (:meth:`close`)."""

    def __init__(
        self,
        siblings: str | Path | None = None,
        hide: list[str] | None = None,
        *,
        memory_mb: int = 1024,
    ):
        """``siblings``: the submission's folder (its top-level files are copied); ``hide``:
        private paths beyond the package's own (an instructor's hidden tests; only the
        fallback without namespaces needs them); ``memory_mb``: the cap of the whole
        submission (its cgroup)."""
        from mcts_course.grading import confine, leftovers

        check_unconfined()
        leftovers.sweep_once()  # what graders killed with SIGKILL left in the temporary folder
        self.mode = confinement_mode()
        self.closed = True  # until everything below exists
        self.cage: confine.Cage | None = None
        self.uid: int | None = allocate_uid() if is_root() else None
        self.folder: Path | None = None
        self.package: Path | None = None  # own_package's copy, without namespaces
        self.masked: list[str] = []
        if self.mode in ("namespaces", "userns"):
            self.expose, self.hide = [], []  # the new root shows only what it binds, and
            # covers what of ``hide`` lies in that (confine.visible's "mask")
            self.masked = [os.path.realpath(p) for p in hide or []]
            if self.uid is not None:  # in the batch's folder, removed with it
                self.folder = Path(tempfile.mkdtemp(prefix="box-", dir=_base()))  # 0700, root's
            else:  # in the temporary folder: held, so that a sweep finds it if this run is killed
                self.folder = leftovers.make("mcts-box-")
            self.work = self.folder / "work"
            os.mkdir(self.work, 0o700)
            os.mkdir(self.folder / "root", 0o700)
            name = f"{os.getpid()}-{self.folder.name.removeprefix('mcts-')}"  # the cgroups' kind
            try:
                self.cage = confine.Cage(self.folder / "root", self.work, self.uid, memory_mb, name)
            except confine.ConfineError as error:
                leftovers.remove(self.folder)
                raise SandboxError(f"the sandbox cannot be built: {error}") from None
        else:
            self.expose = exposed() if self.uid is not None else []
            self.hide = hidden(hide, self.expose) if self.uid is not None else []
            if self.uid is None:  # held, its mark beside the work folder, not in it
                self.folder = leftovers.make("mcts-work-")
                self.work = self.folder / "work"
                os.mkdir(self.work, 0o700)
            else:
                self.work = _base() / str(self.uid)
                os.mkdir(self.work, 0o700)  # fails if anything is there: root made the parent
        self.closed = False
        if siblings is not None:
            self._copy(Path(siblings))
        if self.uid is not None:
            os.chown(self.work, self.uid, self.uid)

    def _copy(self, folder: Path) -> None:
        """Copy the regular files at the top of the submission's folder (its sibling modules,
        :func:`sibling_sources`), so that the student's user needs no access to the folder
        itself (nor to another submission beside it).  Written by root in the new folder,
        which the student's id cannot enter yet."""
        work = os.open(self.work, _DIR_FLAGS)
        try:
            for name, data in sibling_sources(folder):
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                fd = os.open(name, flags, 0o600, dir_fd=work)
                try:
                    write_all(fd, data)
                    if self.uid is not None:
                        os.fchown(fd, self.uid, self.uid)
                finally:
                    os.close(fd)
        finally:
            os.close(work)

    def own_package(self, view: Path) -> Path:
        """Without namespaces, as root: a copy of ``view`` (a set's copy of the package) that
        this sandbox's user id alone may read; return the folder to put on its ``sys.path``.
        The folder is root's, of the sandbox's group (its id) and 0750: the code cannot open it
        to others, and another set's run (another id) cannot read it, as the copies of the
        batch (0700) are root's alone."""
        assert self.uid is not None and self.package is None
        folder = _base() / f"{self.uid}-package"
        os.mkdir(folder, 0o700)  # fails if anything is there: root made the parent
        self.package = folder
        shutil.copytree(view / "mcts_course", folder / "mcts_course", symlinks=True)
        os.chown(folder, 0, self.uid)
        os.chmod(folder, 0o750)
        return folder

    def job(self) -> dict[str, Any]:
        """What the child needs to confine itself (see :func:`mcts_course.grading.server.enter`)."""
        return {
            "uid": self.uid,
            "work": str(self.work),
            "hide": self.hide,
            "expose": self.expose,
            "landlock": writes_abi(self.mode),  # the child applies it or refuses to start
            "private_tmp": self.mode in ("namespaces", "userns"),
        }

    def describe(self) -> str:
        """One line: how this sandbox confines its process."""
        if self.cage is not None:
            writes = landlock.summary(writes_abi(self.mode), namespaces=True)
            return f"{self.cage.describe()}; {writes}"
        if self.mode == UID_ONLY:
            return confinement()
        return UNCONFINED_WARNING if self.mode == "none" else self.mode

    def close(self) -> None:
        """Kill every process of the sandbox's id, remove its work folder and the files it left
        in the shared temporary folders: the next sandbox finds nothing of it."""
        if self.closed:
            return
        self.closed = True
        if self.cage is not None:
            self.cage.close()  # every process of its cgroups; the pid namespace is gone already
        if self.uid is not None:
            kill_all(self.uid)
            if self.cage is None:
                # no private /tmp, /run/lock or IPC namespace: sweep what its id left there
                # (its work folder first: that one is the sandbox's own, not a leftover)
                from mcts_course.grading import sweep

                shutil.rmtree(self.work, ignore_errors=True)
                sweep.sweep({self.uid})
        # fd-based: does not follow its links; then its lock, if it holds one, goes
        from mcts_course.grading import leftovers

        leftovers.remove(self.folder or self.work)
        if self.package is not None:
            shutil.rmtree(self.package, ignore_errors=True)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # at interpreter exit, modules may be gone
            pass


def _remove_owned(folder: Path, uid: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
