"""Grading many submissions: one pytest run each, several at once, then grades.csv.

``grade(submissions, out_dir)`` runs ``python -m pytest --pyargs mcts_course.grading
--submission S --results-json OUT/S/results.json`` for every submission (``n_jobs`` at a time,
each in its own process, its output kept in OUT/S/pytest.log), then writes OUT/grades.csv from
the results.json files.  The tests, the points and the messages are those of any other pytest
run of the plugin (:mod:`mcts_course.grading.plugin`); this module only starts runs and reads
their results.  A run that ends without writing its results.json (pytest itself failed) still
gets one, with a score of 0 and the end of its output, so that every other grade is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mcts_course.grading.report import (
    Outcome,
    atomic_write,
    by_exercise,
    grades_csv,
    outcomes_of,
)

GRADING = Path(__file__).resolve().parent  # --pyargs mcts_course.grading, as a folder
RUN_CAP = 3600  # seconds of one submission's pytest run, whatever its tests allow
LOG_TAIL = 3000  # characters of a failed run's output quoted in its results.json


@dataclass
class Graded:
    """One submission's grade: its outcomes, read back from its results.json."""

    name: str
    path: Path
    outcomes: list[Outcome] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # set -> the file graded
    log: str = ""  # pytest's output

    @property
    def score(self) -> float:
        return sum(o.score for o in self.outcomes)

    @property
    def max_score(self) -> float:
        return sum(o.max_score for o in self.outcomes)

    def by_exercise(self) -> dict[str, tuple[float, float]]:
        return by_exercise(self.outcomes)


def pytest_command(
    submission: Path,
    results: Path,
    tests: Iterable[str | Path] = (),
    options: Iterable[str] = (),
) -> list[str]:
    """The pytest run that grades ``submission`` into ``results`` (absolute paths: the run's
    folder is not the caller's)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--pyargs",
        str(GRADING),
        *(str(Path(t).resolve()) for t in tests),
        # one token each: pytest would look for its configuration in a loose path argument
        f"--submission={submission.resolve()}",
        f"--results-json={results.resolve()}",
        *options,
    ]


def run_one(
    submission: Path,
    results: Path,
    log: Path,
    tests: Iterable[str | Path] = (),
    options: Iterable[str] = (),
) -> dict:
    """Grade one submission in its own pytest process; its results.json data."""
    results.unlink(missing_ok=True)
    command = pytest_command(submission, results, tests, options)
    with open(log, "w", encoding="utf-8") as out:
        try:
            done = subprocess.run(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=log.parent,
                timeout=RUN_CAP,
            )
            ended = f"exit status {done.returncode}"
        except subprocess.TimeoutExpired:
            ended = f"stopped after {RUN_CAP} s"
    try:
        return json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tail = log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL:]
        data = {
            "score": 0.0,
            "output": f"the grader could not grade this submission ({ended}):\n{tail}",
            "stdout_visibility": "hidden",
            "tests": [],
        }
        atomic_write(results, json.dumps(data, indent=2))
        return data


def grade(
    submissions: Iterable[str | Path],
    out_dir: str | Path | None = None,
    extra_tests: Iterable[str | Path] = (),
    n_jobs: int | None = None,
    memory_mb: int = 1024,
    sets: Iterable[str] | None = None,
    timeout_scale: float = 1.0,
    exercises: Iterable[str] | None = None,
    pytest_args: Iterable[str] = (),
    progress: Callable[[str], None] | None = None,
) -> list[Graded]:
    """Grade each submission (a folder, a .py file or a notebook); with ``out_dir`` keep
    ``OUT/<name>/results.json`` and ``pytest.log`` and write ``OUT/grades.csv``.

    ``extra_tests`` are the instructor's test files or folders; ``sets`` and ``exercises`` keep
    the tests of those exercise sets or exercises; ``pytest_args`` go to every pytest run.
    """
    options = ["-q", "--timeout-scale", str(timeout_scale), "--memory-mb", str(memory_mb)]
    for s in sets or ():
        options += ["--exercise-set", s]
    for e in exercises or ():
        options += ["--exercise", e]
    options += list(pytest_args)
    tests = list(extra_tests)
    graded: list[Graded] = []
    for path in map(Path, submissions):
        graded.append(Graded(_unique_name(path, graded), path))
    scratch = tempfile.TemporaryDirectory(prefix="mcts-grades-") if out_dir is None else None
    out = Path(out_dir if out_dir is not None else scratch.name)

    def work(g: Graded) -> Graded:
        folder = out / g.name
        folder.mkdir(parents=True, exist_ok=True)
        data = run_one(g.path, folder / "results.json", folder / "pytest.log", tests, options)
        g.outcomes = outcomes_of(data)
        g.files = dict((data.get("extra_data") or {}).get("files", {}))
        g.log = (folder / "pytest.log").read_text(encoding="utf-8", errors="replace")
        if progress is not None:
            progress(f"{g.name}: {g.score:g} / {g.max_score:g}")
        return g

    workers = max(1, n_jobs or os.cpu_count() or 1)
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(work, graded))
        if out_dir is not None:
            atomic_write(out / "grades.csv", grades_csv([(g.name, g.outcomes) for g in graded]))
    finally:
        if scratch is not None:
            scratch.cleanup()
    return graded


def _unique_name(path: Path, earlier: list[Graded]) -> str:
    name = path.name or str(path)
    taken = {g.name for g in earlier}
    candidate, k = name, 2
    while candidate in taken:
        candidate, k = f"{name}-{k}", k + 1
    return candidate
