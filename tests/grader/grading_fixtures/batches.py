"""Small batches for the name tests: a closed folder of submissions, an honest and an empty
submission of the bandits set, and the rows of a grades.csv."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path

from grading_fixtures.mutants import build, stub


def private(base: Path) -> Path:
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(base, 0o700)  # a batch's submissions, closed to the sandboxes' users
    return base


def honest(folder: Path) -> Path:
    return build("reference", folder, files=("bandits",))


def impostor(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bandits.py").write_text(stub("bandits"))  # 0 points
    return folder


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def graded_file(
    base: Path,
    name: str,
    file: str,
    code: str,
    *options: str,
    beside: Callable[[Path], object] | None = None,
) -> dict:
    """results.json of a submission ``name`` holding one ``file`` of ``code`` (and what
    ``beside`` puts in its folder), graded by the command line's ``grade`` with ``options``
    (e.g. ``--exercise-set=bandits``, ``-k``); its pytest.log is ``out-NAME/NAME/``."""
    from mcts_course.cli import main

    sub = base / name
    sub.mkdir()
    (sub / file).write_text(code)
    if beside is not None:
        beside(sub)
    out = base / f"out-{name}"
    main(["grade", str(sub), "--out", str(out), *options])
    return json.loads((out / name / "results.json").read_text())
