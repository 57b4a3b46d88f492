"""`mcts-course check [PATH] [pytest options]`: grade your own exercise files and show what to fix.

A thin front end over the grading run (:mod:`mcts_course.grading.plugin`, its arguments from
:func:`~mcts_course.grading.invocation.pytest_args`): ``python -m pytest --pyargs
mcts_course.grading --submission=PATH --exercise-set=SET...``, with the exercise sets found in
PATH, and any further option passed on to pytest.  It runs the public checks shipped with the
package (the grader adds its tests that need the reference solutions).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from mcts_course.grading.invocation import PACKAGE, pytest_args
from mcts_course.grading.sets import SETS


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run the grading tests on your exercise files (pytest, points and hints)",
        description="Run the grading tests on the exercise files in PATH (a folder such as "
        "exercises/, or one .py file or notebook): pytest's report, a hint for every failed "
        "test and the points per exercise. Your code runs in a separate process with time and "
        "memory limits and answers the tests' questions, exactly as in the instructor's grader. "
        "Only the exercise sets found in PATH are graded. Options after PATH that are not "
        "listed here go to pytest (e.g. -x, -v, -k backprop, --exercise ttt_backprop). Exit "
        "status 1 when a test fails.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        default="exercises",
        metavar="PATH",
        help="folder or file to check (default: exercises)",
    )
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        choices=list(SETS),
        metavar="SET",
        help=f"only this exercise set ({', '.join(SETS)})",
    )
    parser.add_argument("--quiet", action="store_true", help="the points only, no messages")
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="where this account can confine nothing (not root, no user namespaces): run the "
        "code as your own user, unconfined (it can read and change whatever you can: use it "
        "for your own code only)",
    )
    parser.set_defaults(func=run, pytest_args=[], passes_options_on=True)


# Options that would make pytest read another configuration, load a module as a plugin, or walk
# folders of the caller's choosing: the check chooses these itself (a submission's pytest.ini
# or conftest.py named here would run as whoever runs the check, outside the sandbox).
CONFIGURING = ("-c", "--config-file", "--rootdir", "--confcutdir", "-p", "-o", "--override-ini")


def _configuring(option: str) -> bool:
    for name in CONFIGURING:
        glued = name + "=" if name.startswith("--") else name
        if option == name or option.startswith(glued):
            return True
    return False


class OnlyThePublicChecks:
    """A pytest plugin that stops a check whose passed-on words name something else to collect.

    ``check alice/ bob/`` would hand ``bob/`` to pytest as a test path: pytest would import
    bob's ``__init__.py`` and ``test_*.py`` in this process, as whoever runs the check and
    outside the sandbox (red team 11's 16).  pytest knows its positional arguments once it has
    parsed them, before it collects (or imports) anything: the check's own are the package."""

    def pytest_configure(self, config: Any) -> None:
        import pytest

        other = [word for word in config.args if word != PACKAGE]
        if other:
            raise pytest.UsageError(
                f"check takes one PATH; {' '.join(other)!r} would be collected as tests "
                "(check each folder with its own command)"
            )


def run(args: argparse.Namespace) -> int:
    """Grade the exercise files in PATH; pytest's exit status (1 when a test fails)."""
    from mcts_course.errors import UsageError, needs

    pytest = needs("pytest", "check")  # an extra: the checks are pytest tests
    from mcts_course.grading.sources import find_sources

    configuring = [option for option in args.pytest_args if _configuring(option)]
    if configuring:
        raise UsageError(
            f"{' '.join(configuring)}: check chooses pytest's configuration itself (a file or "
            "plugin named here would run outside the sandbox)"
        )
    path = Path(args.path).resolve()
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    present = find_sources(path)
    sets = [s for s in (args.sets or SETS) if s in present]
    if not sets:
        raise UsageError(
            f"no exercise file found in {path} (expected {', '.join(f'{s}.py' for s in SETS)})"
        )
    # each failure is printed once, with its hint; pytest's short summary would list them again
    # (a -r of the student's own, given after this one, wins)
    options = ["-rN", *(["--tb=no"] if args.quiet else []), *args.pytest_args]
    options += ["--unconfined"] if args.unconfined else []
    # Run from an empty folder of our own with no configuration: pytest would otherwise load
    # the current folder's conftest.py and the -p plugins of its pytest.ini/tox.ini/
    # setup.cfg/pyproject.toml before the grading plugin starts (as root, in a submission).
    with tempfile.TemporaryDirectory(prefix="mcts-check-") as empty:
        here = os.getcwd()
        os.chdir(empty)
        try:
            arguments = pytest_args(path, sets=sets, options=options, rootdir=empty)
            return int(pytest.main(arguments, plugins=[OnlyThePublicChecks()]))
        finally:
            os.chdir(here)
