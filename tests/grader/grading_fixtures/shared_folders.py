"""Folders and submissions the red-team rounds 5 and 6 grade in: a temporary folder in
``/tmp`` with a mode of the test's choosing (world-writable and sticky like ``/tmp`` itself, or
one every user may enter), and an honest submission of the bandits exercise."""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parents[3] / "grader" / "mcts_grader" / "solutions"


@contextmanager
def folder_in_tmp(prefix: str, mode: int) -> Iterator[Path]:
    """A new folder in ``/tmp`` (not pytest's own, which only root may enter) with ``mode``;
    removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    os.chmod(base, mode)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def honest(folder: Path, mode: int = 0o700) -> Path:
    """A submission holding the reference bandits.py, its folder at ``mode``."""
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    os.chmod(folder, mode)
    return folder


def _closed_ancestor(path: Path) -> Path | None:
    """The outermost folder above ``path`` that other accounts may not pass through (none: None)."""
    for folder in reversed(path.parents):
        if folder != Path("/") and not os.stat(folder).st_mode & 0o001:
            return folder
    return None


_SCRATCH: list[Path] = []


def as_account(user: int) -> list[str]:
    """The command prefix that runs what follows as the account ``user``, able to start this
    interpreter.

    The interpreter may lie in a folder only root may enter (pyenv under ``/root``, mode 700, as on
    this project's machines); the teaching-assistant tests then skipped everywhere they ran.  Here a
    private mount namespace shows that folder to the account as one it may pass through (711)
    holding only the interpreter's tree: the machine's own folders and modes are unchanged, and the
    account still cannot list or read anything else of the closed folder."""
    drop = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]
    interpreter = Path(sys.base_prefix).resolve()
    closed = _closed_ancestor(interpreter)
    if closed is None or os.geteuid() != 0:
        return drop
    inside = interpreter.relative_to(closed).parts[0]
    # a root-owned stand-in for the closed folder; its own parents do not matter once mounted
    stand_in = Path(tempfile.mkdtemp(prefix="ta-view-"))
    stand_in.chmod(0o711)
    (stand_in / inside).mkdir()
    if not _SCRATCH:
        atexit.register(lambda: [shutil.rmtree(p, ignore_errors=True) for p in _SCRATCH])
    _SCRATCH.append(stand_in)
    mounts = (
        f"mount --rbind {shlex.quote(str(closed / inside))} {shlex.quote(str(stand_in / inside))}"
        f" && mount --rbind {shlex.quote(str(stand_in))} {shlex.quote(str(closed))}"
        ' && exec "$@"'
    )
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", mounts, "sh", *drop]


def userns_usable_by(user: int) -> bool:
    """Whether the account ``user``, started by :func:`as_account`, can make a user namespace and
    start this interpreter again (the grader does both in the teaching-assistant mode).  A started
    interpreter must be able to start itself, which fails when it lies under a folder only root
    may enter (the first exec can succeed where the second is refused)."""
    import subprocess

    probe = as_account(user)
    again = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    checks = [["unshare", "--user", "--map-root-user", "true"], [sys.executable, "-c", again]]
    try:
        return all(
            subprocess.run(probe + c, capture_output=True, timeout=20).returncode == 0
            for c in checks
        )
    except OSError:
        return False
