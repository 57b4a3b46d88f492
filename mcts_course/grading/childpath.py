"""The ``sys.path`` a student's process gets: the interpreter's and the installed packages'
folders only.

The grader's own ``sys.path`` holds folders pytest put there: the run's scratch folder (its
working folder), the instructor's hidden-tests folder (once per test root), the grader's checkout
(the parent of ``mcts_grader`` when its tests are collected).  Those do not exist inside the
sandbox, but a submission printing ``sys.path`` learned where to aim (red-team attacks 02 and
05).  Only folders under the interpreter's prefixes and ``site-packages`` / ``dist-packages``
folders (numpy and the other dependencies) are handed on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

PACKAGE_FOLDERS = ("site-packages", "dist-packages")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def neutral_paths(paths: Iterable[str]) -> list[str]:
    """The entries of ``paths`` a student's process needs (the standard library, installed
    packages), in order, without the grader's other folders."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    kept: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        installed = os.path.basename(real) in PACKAGE_FOLDERS
        if (installed or any(_under(real, p) for p in prefixes)) and path not in kept:
            kept.append(path)
    return kept
