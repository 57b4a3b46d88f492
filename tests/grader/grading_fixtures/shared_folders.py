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
