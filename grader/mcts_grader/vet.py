"""The one pre-run of a grading: before any student code runs, one pytest run on a copy of the
reference solutions checks that pytest accepts the grading's options and collects its tests,
and runs the instructor's hidden tests (``grade --tests``, ``grade --gradescope``'s hidden
folder, the Gradescope builder's ``--tests``) on the reference.

``grade`` passes the options it does not know to every pytest run: a typo (``--bogus-flag``,
``check``'s ``--set`` for ``grade``'s ``--exercise-set``) made each run end with pytest's usage
error, recorded as every student's 0 / 0.  A hidden test with a bug would be every student's
failure: one that fails on the reference, a file that does not import (a syntax error), a test
without a ``points`` marker (or with a bad one) would cost every submission its points, or
grade nothing, quietly.  :func:`vet` runs the command a submission's run gets (the same
arguments, plugin, confinement and options) on the reference, with this module loaded as a
second plugin (``-p mcts_grader.vet``) that keeps the hidden tests only (all of them, whatever
``-k`` or ``--exercise`` select: each must grade fairly) and records what the grading plugin
does not: collection errors and tests without a marker.  A fault of the tests raises
:class:`BadTests` naming them, one of the options a :class:`UsageError` quoting pytest, before
anything is written.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest

from mcts_course.errors import UsageError
from mcts_course.grading import invocation
from mcts_course.grading.report import one_line

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
REPORT_OPTION = "--vet-report"
VET_CAP = 1800  # seconds of the whole check (the reference passes each test well within its own)
# pytest's exit statuses meaning "could not run": interrupted (a collection error), internal
# error, usage error (https://docs.pytest.org/en/stable/reference/exit-codes.html)
NOT_RUN = {
    2: "a test file does not import (could not be collected)",
    3: "pytest failed",
    4: "usage error",
}


class BadTests(UsageError):
    """A hidden test that cannot grade fairly; the message names it (exit status 2)."""


def require(tests: Iterable[str | Path]) -> list[Path]:
    """The ``--tests`` paths, each of which must exist (BadTests names the first that does not,
    on one printable line: the name may hold anything)."""
    paths = [Path(t) for t in tests]
    missing = [str(t) for t in paths if not t.exists()]
    if missing:
        raise BadTests(f"--tests {one_line(missing[0])}: no such file or folder")
    return paths


def hidden_copy(tests: Iterable[str | Path], folder: Path) -> list[Path]:
    """The instructor's hidden ``tests`` copied into ``folder`` (the grader's own, made here),
    one subfolder each: what the pre-run checks is then what every run grades with, byte for
    byte, and pytest imports them from there.  From their own place pytest would walk up
    through folders that hold an ``__init__.py`` to name their package, and import whatever
    ``__init__.py`` a stranger put above them (``/tmp/__init__.py`` over hidden tests in
    ``/tmp/tests``); a single file is copied alone (what lies beside it is not the tests)."""
    from mcts_grader.packing import refuse_submissions

    tests = require(tests)
    for test in tests:  # a student's files in a course folder given whole (red team 9's 01)
        refuse_submissions(test)
    folder.mkdir(mode=0o700)
    copies = []
    for number, test in enumerate(tests):
        place = folder / str(number)
        place.mkdir(mode=0o700)
        name = Path(os.path.abspath(test)).name
        if test.is_dir():
            shutil.copytree(test, place / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(test, place / name)
        _private(place / name)
        copies.append(place / name)
    return copies


def _private(path: Path) -> None:
    """The copy for the grader's id alone, whatever modes the instructor's files had: copytree
    keeps them, and a copy readable by others (or what pytest writes into it later) would be
    readable by a sandbox's id where no namespace hides it (red team 20, 08)."""
    for folder, _, files in os.walk(path) if path.is_dir() else []:
        os.chmod(folder, 0o700)
        for file in files:
            os.chmod(os.path.join(folder, file), 0o600)  # copytree followed any symlink
    if not path.is_dir():
        os.chmod(path, 0o600)


def reference_copy(folder: Path) -> Path:
    """The reference solutions as a submission folder (their exercise files only)."""
    folder.mkdir(mode=0o755)
    for path in sorted(SOLUTIONS.glob("*.py")):
        if path.name != "__init__.py":
            shutil.copy(path, folder / path.name)
    return folder


def first_error(output: str) -> str:
    """The line of pytest's output that says what went wrong."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for marks in (("error:",), ("E   ",), ("ERROR",)):
        for line in reversed(lines) if marks == ("error:",) else lines:
            if any(m in line for m in marks):
                return line[:300]
    return lines[-1][:300] if lines else "no output"


def vet(
    tests: Iterable[str | Path],
    options: Iterable[str] = (),
    env: dict[str, str] | None = None,
    scratch: Path | None = None,
) -> int:
    """The pre-run: check that pytest runs with ``options`` and the hidden ``tests`` against
    the reference solutions; the number of hidden tests checked.  Raises BadTests (one message
    naming each faulty test) when a test file is missing or does not import, a test has no
    usable ``points`` marker or fails on the reference, or a given file holds no test; raises
    UsageError (pytest's own line) when pytest cannot run with ``options``."""
    paths = require(tests)
    # Without hidden tests nothing needs running: collecting checks the options.
    collect = [] if paths else ["--collect-only"]
    with tempfile.TemporaryDirectory(prefix="mcts-vet-", dir=scratch) as tmp:
        os.chmod(tmp, 0o700)
        work = Path(tmp)
        reference = reference_copy(work / "reference")
        report, results = work / "vet.json", work / "results.json"
        args = invocation.pytest_args(
            reference,
            reference=True,
            tests=paths,
            results_json=results,
            options=[f"{REPORT_OPTION}={report}", *options, *collect],
            rootdir=scratch or work,
        )
        # a class pytest refuses to collect (an __init__) only warns: here it stops the check
        strict = ["-W", "error::pytest.PytestCollectionWarning"]
        command = [sys.executable, "-m", "pytest", "-p", "mcts_grader.vet", *strict, *args]
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
                f"the grading tests took more than {VET_CAP} s on the reference solutions"
            ) from None
        found = _read(report)
        graded = _read(results)
    faults = faults_of(found, graded if paths else {"tests": []}, hidden=bool(paths))
    # a folder that could not be listed (a collection error that is no file's) keeps every
    # file under it from being collected: that error says why, not "holds tests pytest never
    # collects" about the hidden files (red team 9's 03)
    folder_error = found is not None and any(
        not where.split("::")[0].endswith(".py") for where, _ in found["errors"]
    )
    if found is not None and not folder_error:
        faults += [
            f"{f} holds tests pytest never collects (in a folder it does not enter: .*, build, "
            "dist, venv...; or not named test_*.py or *_test.py)"
            for f in uncollected(paths, found)
        ]
    if found is not None:
        faults += dropped(paths, found)
    if faults:
        raise BadTests(
            "the hidden tests cannot grade fairly, nothing was graded: " + "; ".join(faults)
        )
    if done.returncode in NOT_RUN or (paths and found is None):
        why = NOT_RUN.get(done.returncode, f"exit status {done.returncode}")
        raise UsageError(
            f"pytest cannot run with these options and tests ({why}, nothing graded): "
            + first_error(done.stdout + "\n" + done.stderr)
        )
    return len(found["items"]) if found else 0


TESTS_IN = re.compile(r"^\s*(async\s+)?def test|pytest\.mark\.points", re.MULTILINE)


def uncollected(paths: list[Path], found: dict[str, Any]) -> list[str]:
    """The .py files under ``paths`` that look like tests (a ``def test...`` or a ``points``
    marker: a helper module is neither) and that pytest collected nothing from: in a folder it
    does not enter (``.x/``, ``build/``, ``venv/``...) or named neither ``test_*.py`` nor
    ``*_test.py``.  Silently, they would grade nothing (the Gradescope zip packs them)."""
    seen = {nodeid.split("::")[0] for nodeid in found["items"]}
    seen |= {where.split("::")[0] for where, _ in found["errors"]}
    # node ids are relative to the run's root folder (or to where pytest ran, for files
    # outside it): a collected file's id is a tail of its path
    tails = {tuple(p for p in Path(s).parts if p not in ("..", ".")) for s in seen}
    missed = []
    for top in paths:
        files = sorted(top.rglob("*.py")) if top.is_dir() else [top]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            if any(t and file.parts[-len(t) :] == t for t in tails):
                continue
            if TESTS_IN.search(file.read_text(encoding="utf-8", errors="replace")):
                shown = Path(top.name) / file.relative_to(top) if top.is_dir() else file
                missed.append(shown.as_posix())
    return missed


def _marked(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a definition carries a ``points`` marker (``@pytest.mark.points(...)``)."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "points":
            return True
    return False


def _graded_defs(tree: ast.Module) -> list[tuple[str, str]]:
    """``(qualified name, why it may be dropped)`` of every test-like definition of a file: a
    function or a method named test_* or carrying a ``points`` marker.  ``why`` says what makes
    pytest skip it, or "" when pytest should collect it."""
    found: list[tuple[str, str]] = []

    def scan(body: list[ast.stmt], prefix: str, why_class: str) -> None:
        names = [n.name for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not (node.name.startswith("test") or _marked(node)):
                    continue
                why = why_class
                if names.count(node.name) > 1:
                    why = f"is defined {names.count(node.name)} times (only the last one runs)"
                elif not node.name.startswith("test"):
                    why = "has a points marker but pytest does not collect it: name it test_*"
                found.append((prefix + node.name, why))
            elif isinstance(node, ast.ClassDef) and not prefix:
                inner = [n.name for n in node.body if isinstance(n, ast.FunctionDef)]
                why = ""
                if not node.name.startswith("Test"):
                    why = f"its class {node.name} is not named Test* (pytest does not collect it)"
                elif "__init__" in inner:
                    why = f"its class {node.name} has __init__ (pytest does not collect it)"
                scan(node.body, f"{node.name}::", why)

    scan(tree.body, "", "")
    return found


def dropped(paths: list[Path], found: dict[str, Any]) -> list[str]:
    """The tests of collected hidden files that pytest did not collect, each with the reason
    (red team 8's attack 02): a method of a class with ``__init__``, a function defined twice,
    a function with a ``points`` marker not named ``test_*``.  Silently, their points would be
    nobody's."""
    items: dict[tuple[str, ...], set[str]] = {}
    for nodeid in found["items"]:
        file, _, rest = nodeid.partition("::")
        tail = tuple(p for p in Path(file).parts if p not in ("..", "."))
        items.setdefault(tail, set()).add(rest.split("[")[0])
    faults = []
    for top in paths:
        files = sorted(top.rglob("*.py")) if top.is_dir() else [top]
        for file in files:
            collected = [v for t, v in items.items() if t and file.parts[-len(t) :] == t]
            if not collected:
                continue  # a helper module, or a file :func:`uncollected` names
            try:
                tree = ast.parse(file.read_bytes())  # bytes: a BOM, a coding cookie
            except (SyntaxError, ValueError, RecursionError):
                continue  # its collection error is reported
            shown = Path(top.name) / file.relative_to(top) if top.is_dir() else file
            for name, why in _graded_defs(tree):
                if why or name not in collected[0]:
                    why = why or "was not collected"
                    faults.append(f"{shown.as_posix()}::{name} {why}")
    return faults


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def faults_of(
    found: dict[str, Any] | None, graded: dict[str, Any] | None, hidden: bool = True
) -> list[str]:
    """What is wrong with the hidden tests, one phrase per test, from this plugin's record
    (``found``) and the grading plugin's results (``graded``); ``hidden``: some were given."""
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
    if hidden and not found["items"] and not found["errors"]:
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


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, Any, None]:
    """Around every other plugin's selection (``-k``, ``--exercise``: an unknown name is their
    error, which this run must meet as the students' runs would): then keep every hidden test,
    whatever they selected, and none of the course's own."""
    from mcts_course.grading.plugin import POINTS, is_shipped
    from mcts_grader.table import COLUMNS

    collected = list(items)
    outcome = yield
    if outcome.excinfo is not None:
        return
    hidden = [i for i in collected if not is_shipped(Path(str(i.path)).resolve())]
    kept = set(map(id, hidden))
    dropped = [i for i in items if id(i) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = hidden
    for item in hidden:
        _RECORD["items"].append(item.nodeid)
        points = item.stash.get(POINTS, None)
        if points is None:
            _RECORD["unmarked"].append((item.nodeid, "has no @pytest.mark.points(...) marker"))
        elif isinstance(points, str):
            _RECORD["unmarked"].append((item.nodeid, f"has a bad marker ({points})"))
        elif points.exercise.strip().casefold() in COLUMNS:
            why = f"has a bad marker (exercise={points.exercise!r} is a column of grades.csv)"
            _RECORD["unmarked"].append((item.nodeid, why))


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption(REPORT_OPTION.lstrip("-").replace("-", "_"))
    if path:
        Path(path).write_text(json.dumps(_RECORD), encoding="utf-8")
