"""The one home of the grading run's pytest arguments, used by every front end: the student's
``mcts-course check``, the notebook's ``check(...)`` and the grader's batch (``grade``).

Students' runs collect the public checks shipped in this package (``--pyargs
mcts_course.grading``: ``mcts_course/grading/tests``); the grader's runs add the test packages
another distribution declares in the entry point group :data:`TESTS_ENTRY_POINTS` (the
grader's tests that need the reference solutions), found without naming that distribution:
the library never imports the grader.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

PACKAGE = "mcts_course.grading"  # --pyargs PACKAGE collects its tests/ folder: the public checks
TESTS_ENTRY_POINTS = "mcts_course.grading_tests"  # the grader's test packages, by entry point
CONTRACTS_ENTRY_POINTS = "mcts_course.grading_contracts"  # the grader's loops of the contracts
# In a process that imported mcts_course before pytest started (check, a notebook), pytest's
# assertion rewriting of its plugin's package warns; the grading tests are not rewritten anyway.
REWRITE_WARNING = "ignore::pytest.PytestAssertRewriteWarning"


def reference_test_packages() -> tuple[str, ...]:
    """The importable test packages declared by entry point (the grader's), in a stable
    order; none when the grader is not installed (a student's environment)."""
    names = sorted({entry.value for entry in entry_points(group=TESTS_ENTRY_POINTS)})
    return tuple(name for name in names if importlib.util.find_spec(name) is not None)


def contract(name: str) -> Callable[..., Any] | None:
    """The grader's working of the contract ``name`` (the loop of ``mcts_search``), which the
    public checks run with a student's own steps; None in a student's environment (no grader).
    A grader without it is an install older than its tests: RuntimeError, not a check that
    quietly does less."""
    for entry in entry_points(group=CONTRACTS_ENTRY_POINTS, name=name):
        loaded = entry.load()
        if callable(loaded):
            return cast("Callable[..., Any]", loaded)
    if reference_test_packages():
        raise RuntimeError(
            f"the grader declares no {name!r} in {CONTRACTS_ENTRY_POINTS!r}: reinstall it "
            "(pip install ./grader)"
        )
    return None


def test_folders(reference: bool = True) -> tuple[Path, ...]:
    """The folders of the course's own grading tests: the public checks, and (``reference``)
    the grader's test packages."""
    folders = [Path(__file__).resolve().parent / "tests"]
    for name in reference_test_packages() if reference else ():
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p).resolve() for p in spec.submodule_search_locations)
    return tuple(folders)


def grader_packages() -> tuple[Path, ...]:
    """The folders of the top-level packages that declare reference tests (the grader's
    ``mcts_grader``: reference solutions and tests), which the student's process must not read;
    none without the grader.  The checkouts they came from are
    :mod:`~mcts_course.grading.checkouts`' to cover."""
    folders: list[Path] = []
    for name in reference_test_packages():
        spec = importlib.util.find_spec(name.split(".")[0])
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p).resolve() for p in spec.submodule_search_locations)
    return tuple(folders)


def pytest_args(
    submission: str | Path | None = None,
    *,
    reference: bool = False,
    tests: Iterable[str | Path] = (),
    sets: Iterable[str] = (),
    exercises: Iterable[str] = (),
    results_json: str | Path | None = None,
    options: Iterable[str] = (),
    rootdir: str | Path | None = None,
) -> list[str]:
    """pytest's arguments for a grading run of ``submission`` (None: a notebook's check, whose
    plugin object supplies the code).

    ``reference`` adds the grader's test packages (a grade; a student's check runs the public
    checks only), ``tests`` the instructor's test files or folders, ``sets`` and ``exercises``
    keep the tests of those, ``results_json`` writes Gradescope's file; ``options`` go last,
    so that a caller's own (``-x``, ``-k``, ``-r``) win.  ``rootdir`` (a folder of the caller's
    own) makes the run read no configuration file at all: pytest would otherwise look for a
    pytest.ini, tox.ini, setup.cfg or pyproject.toml in the current folder and every folder above
    it, and import the plugins it names, before the grading plugin starts (a stranger's
    ``/tmp/pytest.ini`` above a run's folder in ``/tmp``).  The grading plugin itself turns
    off every conftest.py of a run with a submission (:func:`plugin.pytest_load_initial_conftests`).
    """
    args = ["-p", "no:cacheprovider", "-W", REWRITE_WARNING, "--pyargs", PACKAGE]
    test_paths = [Path(t).resolve() for t in tests]
    if rootdir is not None:
        args += ["-c", os.devnull, f"--rootdir={Path(rootdir).resolve()}"]
        if test_paths:
            # pytest builds a collector for every entry of every folder from the confcutdir
            # (else from the top) down to a test path: in a shared TMPDIR a stranger's entry
            # (a 700 folder, an __init__.py link with a too-long name) stops the collection,
            # and 300,000 of them slow every run (red team 9's 03 and 12).  The walk starts at
            # the tests' own folder (the grader's copy), so nothing above it is listed.
            common = os.path.commonpath([str(t.parent) for t in test_paths])
            args.append(f"--confcutdir={common}")
    if reference:
        args += reference_test_packages()
    args += [str(t) for t in test_paths]
    # one token each: pytest would look for its configuration in a loose path argument
    if submission is not None:
        # absolute, not resolved: a link on the way is judged by the snapshot (grading.snapshot)
        args.append(f"--submission={os.path.abspath(submission)}")
    if results_json is not None:
        args.append(f"--results-json={Path(results_json).resolve()}")
    args += [f"--exercise-set={s}" for s in sets]
    args += [f"--exercise={e}" for e in exercises]
    return [*args, *options]
