"""`mcts-course grade SUBMISSION... --out DIR`: grade many submissions (or one on Gradescope)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# Gradescope's autograder layout; each path can be moved with an environment variable (tests).
GRADESCOPE_SUBMISSION = "/autograder/submission"
GRADESCOPE_RESULTS = "/autograder/results/results.json"
GRADESCOPE_TESTS = "/autograder/source/tests"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grade",
        help="grade submissions: grades.csv and Gradescope results.json files",
        description="Grade each SUBMISSION (a folder with a student's exercise files or "
        "notebooks, or one such file). Writes DIR/grades.csv (submission, score, max_score, "
        "then the points of each exercise) and DIR/<submission>/results.json in Gradescope's "
        "format. Student code runs in separate processes with time and memory limits.",
    )
    parser.add_argument("submissions", nargs="*", metavar="SUBMISSION")
    parser.add_argument("--out", metavar="DIR", help="output folder (required unless --gradescope)")
    parser.add_argument(
        "--tests",
        action="append",
        metavar="DIR",
        default=[],
        help="extra (hidden) tests: a folder of .py files whose functions carry "
        "@mcts_course.grading.points(...); may be repeated",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="child processes at once (default: the number of cores)",
    )
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=1024,
        metavar="MB",
        help="memory cap of each child process (default 1024)",
    )
    parser.add_argument(
        "--timeout-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every test's time limit by X (a slow machine; default 1)",
    )
    parser.add_argument(
        "--gradescope",
        action="store_true",
        help="run inside Gradescope's autograder: grade $MCTS_GRADESCOPE_SUBMISSION "
        f"(default {GRADESCOPE_SUBMISSION}) and write $MCTS_GRADESCOPE_RESULTS "
        f"(default {GRADESCOPE_RESULTS}); hidden tests from "
        f"$MCTS_GRADESCOPE_TESTS (default {GRADESCOPE_TESTS}) if it exists",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mcts_course.errors import UsageError
    from mcts_course.grading.grader import atomic_write, grade, results_json

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout_scale <= 0:
        raise UsageError("--timeout-scale must be positive")
    for folder in args.tests:
        if not Path(folder).exists():
            raise UsageError(f"--tests {folder}: no such file or folder")
    if args.gradescope:
        import json

        submission = os.environ.get("MCTS_GRADESCOPE_SUBMISSION", GRADESCOPE_SUBMISSION)
        results = Path(os.environ.get("MCTS_GRADESCOPE_RESULTS", GRADESCOPE_RESULTS))
        tests = list(args.tests)
        hidden = os.environ.get("MCTS_GRADESCOPE_TESTS", GRADESCOPE_TESTS)
        if Path(hidden).is_dir():
            tests.append(hidden)
        if not Path(submission).exists():
            raise UsageError(f"no submission at {submission}")
        (result,) = grade(
            [submission],
            extra_tests=tests,
            n_jobs=args.jobs,
            memory_mb=args.memory_mb,
            timeout_scale=args.timeout_scale,
        )
        atomic_write(results, json.dumps(results_json(result), indent=2))
        print(f"score {result.score:g} / {result.max_score:g} -> {results}")
        return 0
    if not args.submissions:
        raise UsageError("give at least one SUBMISSION (or --gradescope)")
    if not args.out:
        raise UsageError("--out DIR is required")
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
        progress=lambda line: print(line, file=sys.stderr),
    )
    seconds = time.perf_counter() - started
    for g in grades:
        print(f"{g.name}: {g.score:g} / {g.max_score:g}")
    print(f"graded {len(grades)} submissions in {seconds:.1f} s -> {Path(args.out) / 'grades.csv'}")
    return 0
