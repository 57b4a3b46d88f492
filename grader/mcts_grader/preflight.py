"""Before any submission is graded: do the pytest runs' options and the instructor's tests load?

``grade`` passes the options it does not know to every pytest run.  A typo (``--bogus-flag``,
``check``'s ``--set`` for ``grade``'s ``--exercise-set``) made each run end with pytest's usage
error, which the batch recorded as every student's 0 / 0, with exit status 0.  One run of the
same command with ``--collect-only`` and no submission (no student code) finds that in a few
seconds; its error becomes ``grade``'s, in one line, and nothing is graded.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from mcts_course.errors import UsageError
from mcts_course.grading import invocation

PREFLIGHT_CAP = 600  # seconds: collecting never takes this long; a hang is an error too
# pytest's exit statuses meaning "could not run": interrupted (a collection error), internal
# error, usage error (https://docs.pytest.org/en/stable/reference/exit-codes.html)
NOT_RUN = {
    2: "a test file does not import (could not be collected)",
    3: "pytest failed",
    4: "usage error",
}


def first_error(output: str) -> str:
    """The line of pytest's output that says what went wrong."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for marks in (("error:",), ("E   ",), ("ERROR",)):
        for line in reversed(lines) if marks == ("error:",) else lines:
            if any(m in line for m in marks):
                return line[:300]
    return lines[-1][:300] if lines else "no output"


def check_runs(tests: Iterable[str | Path], options: Iterable[str]) -> None:
    """Raise UsageError (one line) unless pytest accepts ``options`` and collects the grading
    tests with ``tests``."""
    args = invocation.pytest_args(
        None, reference=True, tests=tests, options=[*options, "--collect-only", "-q"]
    )
    with tempfile.TemporaryDirectory(prefix="mcts-preflight-") as cwd:
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", *args],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=PREFLIGHT_CAP,
            )
        except subprocess.TimeoutExpired:
            raise UsageError("the grading tests did not load within 10 minutes") from None
    if proc.returncode in NOT_RUN:
        why = NOT_RUN[proc.returncode]
        raise UsageError(
            f"pytest cannot run with these options and tests ({why}, nothing graded): "
            + first_error(proc.stdout + "\n" + proc.stderr)
        )
