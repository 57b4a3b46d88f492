"""The instructor's hidden tests, checked against the reference solutions before they grade
anyone (``grade --tests``, the Gradescope builder's ``--tests``).

A hidden test with a bug would otherwise be every student's failure: one that fails on the
reference, a file that does not import (a syntax error), a test without a ``points`` marker
(or with a bad one) would cost every submission its points, or grade nothing, quietly.
:func:`vet` runs the hidden tests alone on a copy of the reference solutions, through the same
pytest run a student's submission gets (the same plugin, confinement and options), with this
module loaded as a second plugin (``-p mcts_grader.vet``) to record what the grading plugin
does not: collection errors and tests without a marker.  Any fault raises :class:`BadTests`
naming the tests, before anything is written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from mcts_course.errors import UsageError

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
REPORT_OPTION = "--vet-report"
VET_CAP = 1800  # seconds of the whole check (the reference passes each test well within its own)


class BadTests(UsageError):
    """A hidden test that cannot grade fairly; the message names it (exit status 2)."""


def reference_copy(folder: Path) -> Path:
    """The reference solutions as a submission folder (their exercise files only)."""
    folder.mkdir(mode=0o755)
    for path in sorted(SOLUTIONS.glob("*.py")):
        if path.name != "__init__.py":
            shutil.copy(path, folder / path.name)
    return folder


def vet(
    tests: Iterable[str | Path],
    options: Iterable[str] = (),
    env: dict[str, str] | None = None,
    scratch: Path | None = None,
) -> int:
    """Check the hidden ``tests`` against the reference solutions; the number of hidden tests
    checked.  Raises BadTests (one message naming each faulty test) when a test file is missing
    or does not import, a test has no usable ``points`` marker or fails on the reference, or
    there is no test at all."""
    paths = [Path(t) for t in tests]
    missing = [str(t) for t in paths if not t.exists()]
    if missing:
        raise BadTests(f"--tests {missing[0]}: no such file or folder")
    if not paths:
        return 0
    with tempfile.TemporaryDirectory(prefix="mcts-vet-", dir=scratch) as tmp:
        os.chmod(tmp, 0o700)
        work = Path(tmp)
        reference = reference_copy(work / "reference")
        report, results = work / "vet.json", work / "results.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "mcts_grader.vet",
            *[str(t.resolve()) for t in paths],
            f"--submission={reference}",
            f"--results-json={results}",
            f"{REPORT_OPTION}={report}",
            *options,
        ]
        try:
            done = subprocess.run(
                command,
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=VET_CAP,
            )
        except subprocess.TimeoutExpired:
            raise BadTests(
                f"the hidden tests took more than {VET_CAP} s on the reference solutions"
            ) from None
        found = _read(report)
        graded = _read(results)
    faults = faults_of(found, graded)
    if found is None and not faults:
        last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        faults = [f"pytest ended with status {done.returncode} ({last[0]})"]
    if faults:
        raise BadTests(
            "the hidden tests cannot grade fairly, nothing was graded: " + "; ".join(faults)
        )
    return len(found["items"]) if found else 0


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def faults_of(found: dict[str, Any] | None, graded: dict[str, Any] | None) -> list[str]:
    """What is wrong with the hidden tests, one phrase per test, from this plugin's record
    (``found``) and the grading plugin's results (``graded``)."""
    if found is None:
        return []
    faults = [f"{where} does not import ({why})" for where, why in found["errors"]]
    faults += [f"{nodeid} {why}" for nodeid, why in found["unmarked"]]
    outcomes = {t["extra_data"]["test"]: t for t in (graded or {}).get("tests", [])}
    unmarked = {nodeid for nodeid, _ in found["unmarked"]}
    for nodeid in found["items"]:
        if nodeid in unmarked:
            continue
        t = outcomes.get(nodeid)
        if t is None:
            faults.append(f"{nodeid} gave no result on the reference solutions")
        elif t["extra_data"]["status"] != "passed":
            first = (t.get("output") or "").strip().splitlines()[:1] or [""]
            faults.append(
                f"{nodeid} {t['extra_data']['status']} on the reference solutions ({first[0]})"
            )
    if not found["items"] and not found["errors"]:
        faults.append("no test found in --tests")
    return faults


# -- the plugin (loaded in the check's pytest run only) ------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(REPORT_OPTION, metavar="FILE", help="(mcts_grader.vet) write the record")


# One pytest run per process (the check's): its record is this module's.
_RECORD: dict[str, list[Any]] = {"errors": [], "unmarked": [], "items": []}


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        lines = str(report.longrepr).strip().splitlines()
        why = next((ln.strip("E ").strip() for ln in reversed(lines) if ln.startswith("E ")), "")
        _RECORD["errors"].append((report.nodeid, why or (lines[-1] if lines else "?")))


@pytest.hookimpl(trylast=True)  # after the grading plugin has read (and checked) the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from mcts_course.grading.plugin import POINTS, is_shipped

    record = _RECORD
    for item in items:
        if is_shipped(Path(str(item.path)).resolve()):
            continue
        record["items"].append(item.nodeid)
        points = item.stash.get(POINTS, None)
        if points is None:
            record["unmarked"].append((item.nodeid, "has no @pytest.mark.points(...) marker"))
        elif isinstance(points, str):
            record["unmarked"].append((item.nodeid, f"has a bad marker ({points})"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption(REPORT_OPTION.lstrip("-").replace("-", "_"))
    if path:
        Path(path).write_text(json.dumps(_RECORD), encoding="utf-8")
