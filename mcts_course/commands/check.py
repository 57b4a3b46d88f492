"""`mcts-course check [PATH]`: grade your own exercise files and show what to fix."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mcts_course.grading.sets import SETS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run the grading tests on your exercise files (a table of points and hints)",
        description="Run the grading tests on the exercise files in PATH (a folder such as "
        "exercises/, or one .py file or notebook) and print the points per exercise, with a "
        "hint for every failed test. The tests run in separate processes with time and memory "
        "limits, exactly as the instructor's grader runs them.",
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
    parser.add_argument("--quiet", action="store_true", help="the table only, no hints")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mcts_course.errors import UsageError
    from mcts_course.grading.grader import grade
    from mcts_course.grading.report import full_report
    from mcts_course.grading.sources import find_sources

    path = Path(args.path)
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    present = find_sources(path)
    sets = [s for s in (args.sets or SETS) if s in present]
    if not sets:
        raise UsageError(
            f"no exercise file found in {path} (expected {', '.join(f'{s}.py' for s in SETS)})"
        )
    started = time.perf_counter()
    (result,) = grade([path], sets=sets, only_present=True)
    print(full_report(result, show_failures=not args.quiet))
    for s in sets:
        print(f"{s}: {present[s].path}")
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0
