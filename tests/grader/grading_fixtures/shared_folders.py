"""Folders and submissions the red-team rounds 5 and 6 grade in: a temporary folder in
``/tmp`` with a mode of the test's choosing (world-writable and sticky like ``/tmp`` itself, or
one every user may enter), and an honest submission of the bandits exercise."""

from __future__ import annotations

import os
import shutil
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


def userns_usable_by(user: int) -> bool:
    """Whether the account ``user`` can make a user namespace and start this interpreter again
    (the grader does both in the teaching-assistant mode).  A started interpreter must be able
    to start itself, which fails when it lies under a folder only root may enter (the first
    exec can succeed where the second is refused)."""
    import subprocess
    import sys

    probe = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]
    again = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    checks = [["unshare", "--user", "--map-root-user", "true"], [sys.executable, "-c", again]]
    try:
        return all(
            subprocess.run(probe + c, capture_output=True, timeout=20).returncode == 0
            for c in checks
        )
    except OSError:
        return False
