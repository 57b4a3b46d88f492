"""`mcts-course grade SUBMISSION... --out DIR`: grade many submissions (or one on Gradescope).

A thin front end over the grader's pytest run (:mod:`mcts_grader.batch`: one
``python -m pytest --pyargs mcts_course.grading --submission S`` per submission, ``--jobs`` at
a time); options it does not know go to every pytest run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from mcts_course.grading.sandbox import MEMORY_MB

# Gradescope's autograder layout; each path can be moved with an environment variable (tests).
GRADESCOPE_SUBMISSION = "/autograder/submission"
GRADESCOPE_RESULTS = "/autograder/results/results.json"
GRADESCOPE_TESTS = "/autograder/source/tests"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grade",
        help="grade submissions: grades.csv and Gradescope results.json files",
        description="Grade each SUBMISSION (a folder with a student's exercise files or "
        "notebooks, or one such file), one pytest run each. Writes DIR/grades.csv "
        "(submission, status, score, max_score, then the points of each exercise), and "
        "DIR/<submission>/results.json (Gradescope's format) and pytest.log; grading again "
        "into DIR replaces the rows of the submissions graded again and keeps the others. "
        "Student code runs in separate processes with time and memory limits. Hidden tests "
        "(--tests) are first checked against the reference solutions. The exit status is 1 "
        "when a submission's run crashed, was killed, timed out or graded no test (its row's "
        "status says so). Options not listed here go to pytest (e.g. --exercise ttt_backprop).",
    )
    parser.add_argument("submissions", nargs="*", metavar="SUBMISSION")
    parser.add_argument("--out", metavar="DIR", help="output folder (required unless --gradescope)")
    parser.add_argument(
        "--tests",
        action="append",
        metavar="PATH",
        default=[],
        help="the instructor's (hidden) tests: a pytest file or folder whose tests carry "
        "@pytest.mark.points(value, exercise=...); students see them after the due date "
        "unless they say visibility=...; may be repeated",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="submissions graded at once (default: the number of cores)",
    )
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=MEMORY_MB,
        metavar="MB",
        help=f"memory cap of each child process (default {MEMORY_MB})",
    )
    parser.add_argument(
        "--timeout-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every test's time limit by X (a slow machine; default 1)",
    )
    parser.add_argument(
        "--due",
        metavar="DATE",
        help="the due date (ISO 8601, e.g. 2026-12-01T23:59+01:00): the top-level output of "
        "each results.json shows the after_due_date tests only when graded after it (default: "
        "never; with --gradescope, the assignment's due date in Gradescope's "
        "submission_metadata.json)",
    )
    parser.add_argument(
        "--gradescope",
        action="store_true",
        help="run inside Gradescope's autograder: grade $MCTS_GRADESCOPE_SUBMISSION "
        f"(default {GRADESCOPE_SUBMISSION}) and write $MCTS_GRADESCOPE_RESULTS "
        f"(default {GRADESCOPE_RESULTS}); hidden tests from "
        f"$MCTS_GRADESCOPE_TESTS (default {GRADESCOPE_TESTS}) if it exists",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="grade into a --out folder that already holds grades: the submissions graded now "
        "replace their folders and whole rows (a run narrowed by --exercise-set, -k or without "
        "--tests replaces a full row with a narrower one)",
    )
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="as an ordinary user where user namespaces are not available: run the students' "
        "code as your own user, unconfined (it can read and change whatever you can)",
    )
    parser.set_defaults(func=run, pytest_args=[], passes_options_on=True)


def run(args: argparse.Namespace) -> int:
    from mcts_course.errors import UsageError
    from mcts_grader.batch import GRADED, grade, grade_one, write_beside
    from mcts_grader.feedback import METADATA, due_date_of, parse_date

    if args.unconfined:
        from mcts_course.grading import sandbox

        os.environ[sandbox.UNCONFINED_ENV] = "1"  # read by every run's sandboxes
        if sandbox.confinement_mode() == "none":
            print(f"warning: confinement: {sandbox.UNCONFINED_WARNING}", file=sys.stderr)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout_scale <= 0:
        raise UsageError("--timeout-scale must be positive")
    for folder in args.tests:
        if not Path(folder).exists():
            raise UsageError(f"--tests {folder}: no such file or folder")
        untrusted = untrusted_file(Path(folder))
        if untrusted:  # hidden tests run as the grader, unconfined: a student must not write them
            raise UsageError(f"--tests {folder}: {untrusted}; refusing to run it as the grader")
    globbed = option_named_files(args)
    if globbed:
        raise UsageError(
            f"{globbed!r} is an option and also a file or folder here: a shell pattern (*) may "
            "have turned a submission's name into an option; give the submissions as DIR/* "
            "(or rename that folder)"
        )
    due = parse_date(args.due) if args.due else None
    from mcts_grader.preflight import check_runs

    if not args.gradescope:  # there a failed run is written to results.json, for all to see
        check_runs(args.tests, args.pytest_args)  # a typo in an option is an error, not 0 / 0
    options = [
        "-q",
        "--timeout-scale",
        str(args.timeout_scale),
        "--memory-mb",
        str(args.memory_mb),
        *args.pytest_args,
    ]
    if args.gradescope:
        submission = Path(os.environ.get("MCTS_GRADESCOPE_SUBMISSION", GRADESCOPE_SUBMISSION))
        results = Path(os.environ.get("MCTS_GRADESCOPE_RESULTS", GRADESCOPE_RESULTS))
        tests = list(args.tests)
        hidden = os.environ.get("MCTS_GRADESCOPE_TESTS", GRADESCOPE_TESTS)
        if Path(hidden).is_dir():
            tests.append(hidden)
        if not submission.exists():
            raise UsageError(f"no submission at {submission}")
        if due is None:
            due = due_date_of(os.environ.get("MCTS_GRADESCOPE_METADATA", METADATA))
        # SandboxError (student code not confinable) goes up: no results.json, exit status 3
        data, log = grade_one(submission, tests, options, due)
        write_beside(results, json.dumps(data, indent=2))
        write_beside(results.parent / "pytest.log", log)
        most = sum(t.get("max_score", 0) for t in data["tests"])
        status = data["extra_data"]["status"]
        print(f"score {data['score']:g} / {most:g} ({status}) -> {results}")
        return 0 if status == GRADED else 1
    if not args.submissions:
        raise UsageError("give at least one SUBMISSION (or --gradescope)")
    if not args.out:
        raise UsageError("--out DIR is required")
    if (Path(args.out) / "grades.csv").exists() and not args.force:
        raise UsageError(
            f"{args.out} already holds grades: give --force to grade into it again (the "
            "submissions graded now replace their rows), or a new --out"
        )
    missing = [s for s in args.submissions if not Path(s).exists()]
    if missing:
        raise UsageError(f"no such submission: {missing[0]}")
    started = time.perf_counter()
    grades = grade(
        args.submissions,
        args.out,
        extra_tests=args.tests,
        n_jobs=args.jobs,
        memory_mb=args.memory_mb,
        timeout_scale=args.timeout_scale,
        pytest_args=args.pytest_args,
        progress=lambda line: print(line, file=sys.stderr),
        due=due,
    )
    seconds = time.perf_counter() - started
    # each submission's score was printed (stderr) as it finished, and is in grades.csv
    count = f"{len(grades)} submission{'' if len(grades) == 1 else 's'}"
    print(f"graded {count} in {seconds:.1f} s -> {Path(args.out) / 'grades.csv'}")
    failed = [g for g in grades if g.status != GRADED]
    if failed:  # never quietly: a failed run's row is a zero no student earned
        from mcts_course.grading.report import printable

        names = ", ".join(f"{printable(g.name)} ({g.status})" for g in failed)
        print(
            f"mcts-course grade: {len(failed)} of {count} not graded: {names}; "
            "see their pytest.log",
            file=sys.stderr,
        )
        return 1
    return 0


def untrusted_file(path: Path) -> str | None:
    """Why ``path`` (a test file or a folder of them) may have been written by someone other
    than the grader: owned by another user, or writable by group or others; None if neither."""
    me = os.geteuid()
    found = [path, *sorted(path.rglob("*"))] if path.is_dir() else [path]
    for item in found:
        info = item.lstat()
        if info.st_uid not in (0, me):
            return f"{item} belongs to user id {info.st_uid}"
        if info.st_mode & 0o022 and not item.is_symlink():
            return f"{item} may be written by others (mode {info.st_mode & 0o777:o})"
    return None


def option_named_files(args: argparse.Namespace) -> str | None:
    """An option given to ``grade`` that is also the name of a file or folder in the current
    folder (``cd EXPORT && grade * --out O`` with a student's folder named ``--tests=x``)."""
    given = [*args.pytest_args, *(f"--tests={t}" for t in args.tests)]
    for name, value in (("--out", args.out), ("--due", args.due), ("--jobs", args.jobs)):
        if value is not None:
            given.append(f"{name}={value}")
    for flag in ("gradescope", "unconfined", "force"):
        if getattr(args, flag, False):
            given.append(f"--{flag}")
    return next((g for g in given if g.startswith("-") and os.path.lexists(g)), None)


def main(argv: list[str] | None = None) -> int:
    """``mcts-course-grade ...``: the same as ``mcts-course grade ...``."""
    from mcts_course.cli import main as course_main

    return course_main(["grade", *(sys.argv[1:] if argv is None else argv)])
