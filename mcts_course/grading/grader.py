"""Grading submissions: scores per test and per exercise, grades.csv and results.json.

``grade(submissions, out_dir)`` grades every submission (a folder of exercise files or
notebooks, or one such file) against every exercise set, several sets at once (a thread per
set being graded, each with the student's code in its own process).  Nothing one submission
does can stop the others from being graded: see :mod:`mcts_course.grading.runner`.

As root (Gradescope, an instructor's batch) each student process runs as a user id of its own
(:mod:`mcts_course.grading.sandbox`); the output folder is made, checked and held open before
any student code runs; the grader changes no permission of the package it runs from.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import secrets
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcts_course.grading import process
from mcts_course.grading.framework import GradingTest, collect_tests
from mcts_course.grading.runner import run_set
from mcts_course.grading.sandbox import SandboxError, is_root, public_package, readable_by_others
from mcts_course.grading.sets import EXERCISES, SETS
from mcts_course.grading.sources import find_sources, solutions_import


@dataclass
class TestOutcome:
    test: GradingTest
    passed: bool
    score: float
    output: str
    seconds: float = 0.0
    status: str = ""


@dataclass
class SubmissionGrade:
    name: str
    path: Path
    outcomes: list[TestOutcome] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # set -> file used
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return sum(o.score for o in self.outcomes)

    @property
    def max_score(self) -> float:
        return sum(o.test.points for o in self.outcomes)

    def by_exercise(self) -> dict[str, tuple[float, float]]:
        table: dict[str, tuple[float, float]] = {}
        for o in self.outcomes:
            got, most = table.get(o.test.exercise, (0.0, 0.0))
            table[o.test.exercise] = (got + o.score, most + o.test.points)
        return table


def grade_set(
    source,
    set_name: str,
    tests: list[GradingTest],
    memory_mb: int = 1024,
    public_root: Path | None = None,
    on_result: Callable | None = None,
):
    """Outcomes of one set's tests for one source file (None: the file is missing)."""
    if source is None:
        why = (
            f"no file for {set_name} was found (expected {set_name}.py or a notebook "
            f"with its functions)"
        )
        return [TestOutcome(t, False, 0.0, why) for t in tests]
    if source.refused:
        return [TestOutcome(t, False, 0.0, source.refused) for t in tests]
    where = solutions_import(source.everything or source.code)
    if where is not None:
        why = (
            f"no points for this exercise: {source.path.name} imports the reference "
            f"solutions (mcts_course.solutions, {where})"
        )
        return [TestOutcome(t, False, 0.0, why) for t in tests]
    results = run_set(source, set_name, tests, memory_mb, public_root, on_result)
    return [
        TestOutcome(t, r.passed, r.score, _cap(r.output), r.seconds, r.status)
        for t, r in zip(tests, results, strict=True)
    ]


OUTPUT_CAP = 20_000  # characters of one test's feedback (a message may quote student data)


def _cap(text: str) -> str:
    text = str(text)
    if len(text) <= OUTPUT_CAP:
        return text
    return text[:OUTPUT_CAP] + f"\n... ({len(text) - OUTPUT_CAP} characters cut)"


def grade(
    submissions: Iterable[str | Path],
    out_dir: str | Path | None = None,
    extra_tests: list[str] | None = None,
    n_jobs: int | None = None,
    memory_mb: int = 1024,
    sets: Iterable[str] | None = None,
    only_present: bool = False,
    progress: Callable[[str], None] | None = None,
    timeout_scale: float = 1.0,
    on_result: Callable | None = None,
    exercises: Iterable[str] | None = None,
) -> list[SubmissionGrade]:
    """Grade each submission; with ``out_dir`` also write grades.csv and results.json files.

    ``only_present`` skips the sets a submission has no file for (for ``mcts-course check``);
    ``timeout_scale`` multiplies every test's time limit (a slow machine, or tests);
    ``on_result(test, result)`` is called as each test finishes (``mcts-course check``);
    ``exercises`` keeps only the tests of those exercises.
    When the grader runs as root, each student process runs as a user id of its own, with the
    private files (reference solutions, tests) hidden from it; the grader refuses (SandboxError)
    rather than run student code unconfined.  A submission that breaks the grader's side of a
    set gets 0 on that set; every other grade is still written.
    """
    process.EXTRA_PRIVATE[:] = [str(p) for p in extra_tests or []]
    submissions = [Path(p) for p in submissions]
    if is_root() and len(submissions) > 1:
        _check_batch_private(submissions)
    set_names = list(sets or SETS)
    keep = set(exercises) if exercises is not None else None
    tests = {
        s: [
            replace(t, timeout=t.timeout * timeout_scale)
            for t in collect_tests(s, extra_tests)
            if keep is None or t.exercise in keep
        ]
        for s in set_names
    }
    grades, jobs = [], []
    for path in submissions:
        grade_ = SubmissionGrade(_unique_name(path, grades), path)
        grades.append(grade_)
        sources = find_sources(path)
        for s in set_names:
            if only_present and s not in sources:
                continue
            if s in sources:
                grade_.files[s] = str(sources[s].path)
            jobs.append((grade_, s, sources.get(s)))

    # Before any student code runs: the output folders, made (or checked) and held open.
    outputs = Outputs(Path(out_dir), [g.name for g in grades]) if out_dir is not None else None
    public_dir = tempfile.TemporaryDirectory(prefix="mcts-public-")
    public_root = public_package(Path(public_dir.name))
    Path(public_dir.name).chmod(0o755)

    def work(job) -> list[TestOutcome]:
        grade_, s, source = job
        try:
            return grade_set(source, s, tests[s], memory_mb, public_root, on_result)
        except SandboxError:
            raise  # the grader cannot confine student code: no grade at all
        except Exception as error:  # noqa: BLE001 - this submission broke the grader's side
            return _zero(tests[s], f"the grader could not grade this file ({type(error).__name__})")

    def finished(job, outcomes: list[TestOutcome], seconds: float) -> None:
        grade_, s, _ = job
        done[(id(grade_), s)] = outcomes
        grade_.seconds += seconds
        if progress:
            got = sum(o.score for o in outcomes)
            progress(f"{grade_.name}: {s} {got:g}/{sum(t.points for t in tests[s]):g}")

    workers = max(1, n_jobs or os.cpu_count() or 1)
    done: dict[tuple[int, str], list[TestOutcome]] = {}
    with public_dir, _private_tempdir():
        if len(grades) > 1 and on_result is None and hasattr(os, "fork"):
            # One process per submission's set: what a submission's answers change in the
            # grader's memory (a cached input its reply was synced into...) dies with it, and a
            # grader-side failure costs that set alone.
            for job, outcomes, seconds in _forked(jobs, work, workers, tests):
                finished(job, outcomes, seconds)
        else:

            def timed(job):
                started = time.perf_counter()
                return job, work(job), time.perf_counter() - started

            with ThreadPoolExecutor(max_workers=workers) as pool:
                for job, outcomes, seconds in pool.map(timed, jobs):
                    finished(job, outcomes, seconds)
    for grade_ in grades:  # the sets in a fixed order, whatever order they finished in
        for s in set_names:
            grade_.outcomes += done.get((id(grade_), s), [])
    if outputs is not None:
        outputs.write(grades)
    return grades


def _zero(tests: list[GradingTest], why: str) -> list[TestOutcome]:
    return [TestOutcome(t, False, 0.0, f"{why}: 0 points", status="crashed") for t in tests]


JOB_GRACE = 300.0  # seconds of the grader's own work allowed per set, beyond the tests' limits


def _forked(jobs: list, work: Callable, workers: int, tests: dict) -> Iterator[tuple]:
    """``(job, outcomes, seconds)`` for each job, as they finish, each graded by ``work`` in a
    process forked from this one (at most ``workers`` at once), its outcomes sent back as JSON.
    A process that dies or exceeds its tests' time limits plus :data:`JOB_GRACE` gives 0 on that
    set; a SandboxError in one is raised here."""
    import select
    import signal

    from mcts_course.grading import sandbox

    if sandbox.is_root():
        sandbox._base()  # before forking: the forks share it (and its registry of user ids)
    pending, running = list(enumerate(jobs)), {}
    while pending or running:
        while pending and len(running) < workers:
            i, job = pending.pop(0)
            read, write = os.pipe()
            started = time.perf_counter()
            pid = os.fork()
            if pid == 0:  # the child: grade, report, and leave without any cleanup of ours
                try:
                    os.close(read)
                    outcomes = work(job)
                    payload = [
                        "ok",
                        [[o.passed, o.score, o.output, o.seconds, o.status] for o in outcomes],
                    ]
                except SandboxError as error:
                    payload = ["sandbox", str(error)]
                except BaseException as error:  # noqa: BLE001 - reported, 0 for the set
                    payload = ["error", type(error).__name__]
                try:
                    with os.fdopen(write, "w", encoding="utf-8") as f:
                        f.write(json.dumps(payload))
                finally:
                    os._exit(0)
            os.close(write)
            limit = sum(t.timeout for t in tests[job[1]]) + JOB_GRACE
            running[read] = (i, pid, [], started, started + limit)
        now = time.perf_counter()
        wait = max(0.0, min(r[4] for r in running.values()) - now)
        ready = select.select(list(running), [], [], wait)[0]
        for fd in list(running):
            i, pid, chunks, started, deadline = running[fd]
            chunk = os.read(fd, 1 << 20) if fd in ready else None
            if chunk:
                chunks.append(chunk)
                continue
            if chunk is None and time.perf_counter() < deadline:
                continue
            del running[fd]
            os.close(fd)
            if chunk is None:  # past its deadline
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            job = jobs[i]
            try:
                outcomes = _outcomes(chunks if chunk is not None else None, tests[job[1]])
            except SandboxError:
                for _, other, *_ in running.values():
                    os.kill(other, signal.SIGKILL)
                    os.waitpid(other, 0)
                raise
            yield job, outcomes, time.perf_counter() - started


def _outcomes(chunks: list[bytes] | None, tests: list[GradingTest]) -> list[TestOutcome]:
    """A forked grading's outcomes from what it sent back (None: it ran out of time)."""
    if chunks is None:
        return _zero(tests, "the grader took too long on this file")
    try:
        kind, data = json.loads(b"".join(chunks))
    except ValueError:
        kind, data = "error", "its process died"
    if kind == "sandbox":
        raise SandboxError(data)
    if kind != "ok":
        return _zero(tests, f"the grader could not grade this file ({data})")
    return [
        TestOutcome(t, bool(p), float(score), str(out), float(sec), str(status))
        for t, (p, score, out, sec, status) in zip(tests, data, strict=True)
    ]


def _check_batch_private(submissions: list[Path]) -> None:
    """As root with several submissions: refuse if other users can read one of them (every
    sandbox is such a user, and could read another student's code)."""
    open_ = [str(p) for p in submissions if readable_by_others(p)]
    if open_:
        more = f" and {len(open_) - 1} more" if open_[1:] else ""
        raise SandboxError(
            f"other users can read {open_[0]}{more}: one student's code could read another's.  "
            "Keep the submissions in a folder only root can enter (chmod 700 on it) and grade again"
        )


@contextlib.contextmanager
def _private_tempdir():
    """As root: the temporary files of the grading (a set's copy of the code...) go into a
    folder only root can enter, while the sandboxes' folders stay where they were planned."""
    if not is_root():
        yield
        return
    with tempfile.TemporaryDirectory(prefix="mcts-grader-") as private:
        os.chmod(private, 0o700)
        old, tempfile.tempdir = tempfile.tempdir, private
        try:
            yield
        finally:
            tempfile.tempdir = old


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW


class Outputs:
    """The output folder and one folder per submission in it, made or checked before any
    student code runs and held open: results are written through these handles, so a folder
    swapped later for a link (or made in advance by someone else) gets nothing."""

    def __init__(self, out_dir: Path, names: list[str]):
        out_dir.mkdir(parents=True, exist_ok=True)
        self.fd = self._open(str(out_dir), None, str(out_dir))
        self.subs: dict[str, int] = {}
        for name in names:
            try:
                os.mkdir(name, 0o755, dir_fd=self.fd)
            except FileExistsError:
                pass
            self.subs[name] = self._open(name, self.fd, str(out_dir / name))

    @staticmethod
    def _open(path: str, dir_fd: int | None, shown: str) -> int:
        try:
            fd = os.open(path, _DIR_FLAGS, dir_fd=dir_fd)
        except OSError as error:
            raise SandboxError(f"{shown}: not a folder of its own ({error.strerror})") from None
        info = os.fstat(fd)
        if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            os.close(fd)
            raise SandboxError(f"{shown}: the output folder must be yours, writable by you alone")
        return fd

    def write(self, grades: list[SubmissionGrade]) -> None:
        try:
            for g in grades:
                _write_at(self.subs[g.name], "results.json", json.dumps(results_json(g), indent=2))
            _write_at(self.fd, "grades.csv", grades_csv(grades))
        finally:
            for fd in [self.fd, *self.subs.values()]:
                os.close(fd)


def _write_at(dir_fd: int, name: str, text: str) -> None:
    """Write ``name`` in the folder ``dir_fd`` atomically (a temporary file, then a rename)."""
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(tmp, flags, 0o644, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def _unique_name(path: Path, earlier: list[SubmissionGrade]) -> str:
    name = path.name or str(path)
    taken = {g.name for g in earlier}
    candidate, k = name, 2
    while candidate in taken:
        candidate, k = f"{name}-{k}", k + 1
    return candidate


# -- outputs ---------------------------------------------------------------------------------
def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def exercise_columns(grades: list[SubmissionGrade]) -> list[str]:
    """The shipped exercises, then any new exercise of the instructor's tests."""
    extra = []
    for g in grades:
        for o in g.outcomes:
            if o.test.exercise not in EXERCISES and o.test.exercise not in extra:
                extra.append(o.test.exercise)
    return list(EXERCISES) + extra


def grades_csv(grades: list[SubmissionGrade]) -> str:
    columns = exercise_columns(grades)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", *columns])
    for g in grades:
        table = g.by_exercise()
        writer.writerow(
            [g.name, _num(g.score), _num(g.max_score)]
            + [_num(table[e][0]) if e in table else "" for e in columns]
        )
    return out.getvalue()


def _num(x: float) -> str:
    return f"{x:g}"


def results_json(grade_: SubmissionGrade) -> dict:
    """Gradescope's results.json: one entry per test; the score is their sum."""
    from mcts_course.grading.report import summary_table

    tests = []
    for number, o in enumerate(grade_.outcomes, 1):
        tests.append(
            {
                "name": f"[{o.test.exercise}] {o.test.name}",
                "number": str(number),
                "score": o.score,
                "max_score": o.test.points,
                "status": "passed" if o.passed else "failed",
                "output": o.output,
                "output_format": "text",
                "visibility": o.test.visibility,
                "tags": [o.test.exercise],
            }
        )
    return {
        "score": sum(t["score"] for t in tests),
        "execution_time": round(grade_.seconds, 1),
        "output": summary_table(grade_),
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def write_outputs(grades: list[SubmissionGrade], out_dir: Path) -> None:
    Outputs(Path(out_dir), [g.name for g in grades]).write(grades)
