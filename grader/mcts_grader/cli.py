"""`mcts-course grade SUBMISSION... --out DIR`: grade many submissions (or one on Gradescope).

A thin front end over the grader's pytest runs (:mod:`mcts_grader.batch`:
``python -m pytest --pyargs mcts_course.grading --submission=S --phase=visible`` per submission,
``--jobs`` at a time, then ``--phase=held-back`` for those with held-back tests, merged into one
result); options it does not know go to every pytest run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from mcts_course.grading import sandbox
from mcts_course.grading.report import json_text
from mcts_course.grading.sandbox import MEMORY_MB
from mcts_grader import observers

# Gradescope's autograder layout; each path can be moved with an environment variable (tests).
GRADESCOPE_SUBMISSION = "/autograder/submission"
GRADESCOPE_RESULTS = "/autograder/results/results.json"
GRADESCOPE_TESTS = "/autograder/source/tests"


class _GradeParser(argparse.ArgumentParser):
    """``grade``'s parser, which keeps what it parsed: a shell pattern (``grade *``) turns the
    names of students' folders into arguments, and only the words themselves tell a folder
    named ``--tests=x`` from an option.  Everything after ``--`` is a SUBMISSION, whatever it
    starts with; before it, :func:`refused_word` judges each word."""

    # The public entry point: the parent parser's subcommand action calls it with the words
    # after "grade" (argparse's private _parse_known_args changes between Python versions).
    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def,override]
        arg_strings = list(sys.argv[1:] if args is None else args)
        head, tail = arg_strings, []
        if "--" in arg_strings:
            cut = arg_strings.index("--")
            head, tail = arg_strings[:cut], arg_strings[cut + 1 :]
        namespace, extras = super().parse_known_args(head, namespace)
        namespace.words = list(head)  # the words before "--", as the shell gave them
        # a student's folder named "--", first in `grade --out DIR *`, was taken for the end of
        # options and left out with exit 0 (red team 30, 16): "--" given once, and such a
        # folder here, is a word no one can read for sure
        namespace.dashes = "--" in arg_strings and "--" not in tail and os.path.lexists("--")
        namespace.submissions = [*(namespace.submissions or []), *tail]
        return namespace, extras


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grade",
        # no abbreviations: a folder named --jo=3 must not be taken for --jobs=3
        allow_abbrev=False,
        help="grade submissions: grades.csv and Gradescope results.json files",
        description="Grade each SUBMISSION (a folder with a student's exercise files or "
        "notebooks, or one such file): its visible tests in one pytest run, its held-back "
        "tests in a second, every visible run before any held-back one. Writes DIR/grades.csv "
        "(submission, status, score, max_score, then the points of each exercise), and "
        "DIR/<submission>/results.json (Gradescope's format) and pytest.log; grading again "
        "into DIR replaces the rows of the submissions graded again and keeps the others. "
        "A row's name is its folder's, with invisible and control characters escaped "
        "(\\x01, \\u200b), long names cut with a hash, and a number when two submissions "
        "share it (NAME\\#2); its source column is the path graded. "
        "Student code runs in separate processes with time and memory limits. Hidden tests "
        "(--tests) are first checked against the reference solutions. The exit status is 1 "
        "when a submission's run crashed, was killed, timed out or graded no test (its row's "
        "status says so). Options not listed here go to pytest (e.g. --exercise ttt_backprop). "
        "Every word after -- is a SUBMISSION (grade --out DIR -- *: a folder a student named "
        "like an option stays a submission); before --, a SUBMISSION may not start with '-', "
        "and an option that is also the name of a file or folder here is refused.",
    )
    parser.__class__ = type("GradeParser", (_GradeParser, type(parser)), {})
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
        help="the due date, with its time zone (ISO 8601, e.g. 2026-12-01T23:59+01:00): "
        "before it, what a student sees of each results.json names none of the after_due_date "
        "tests (their points count); default: never shown; with --gradescope, the "
        "assignment's due date in Gradescope's submission_metadata.json, whose zone also "
        "completes a --due given without one",
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
        "--replace",
        action="store_true",
        help="with --force: let a submission replace the row of the same name that was graded "
        "from another path (a student's new export); without it such a batch is refused, so "
        "that one student's grade never silently replaces another's",
    )
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="as an ordinary user where user namespaces are not available: run the students' "
        "code as your own user, unconfined (it can read and change whatever you can)",
    )
    parser.set_defaults(func=run, pytest_args=[], passes_options_on=True, words=None)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # what `kill`, `timeout`, a closed terminal send


@contextlib.contextmanager
def _stopped_like_ctrl_c() -> Iterator[None]:
    """SIGTERM and SIGHUP stop the grading as Ctrl-C does (:class:`~mcts_grader.batch.Stopped`,
    a KeyboardInterrupt): the students' processes killed, a row for every submission, the
    summary printed, the temporary folders removed (by default Python dies at once, and leaves
    them).  The main thread only: Python handles signals there."""
    from mcts_grader.batch import Stopped

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Stopped(signum)

    before = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def run(args: argparse.Namespace) -> int:
    with _stopped_like_ctrl_c():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from mcts_course.errors import UsageError
    from mcts_grader.batch import (
        GRADED,
        Interrupted,
        clear_beside,
        could_not_grade,
        grade,
        grade_one,
        refuse_stopping_early,
        write_beside,
    )
    from mcts_grader.table import labelled, one_line

    # first: a word the shell made of a student's folder decides nothing, reads nothing
    refused = next((w for w in args.words or () if refused_word(w, args.submissions)), None)
    if getattr(args, "dashes", False):
        raise UsageError(
            "a file or folder named '--' is here, and the command line cannot tell it from the "
            "'--' that ends the options: give the submissions after -- (grade --out DIR -- *), "
            "where it is read as a name, or as DIR/* (or rename that folder)"
        )
    if refused is not None:
        what = (
            "is an option and also a file or folder here"
            if os.path.lexists(refused)
            else "is a SUBMISSION that starts with '-', like an option"
        )
        raise UsageError(
            f"{one_line(refused)!r} {what}: a shell pattern (*) may have turned a submission's "
            "name into an option; give the submissions after -- (grade --out DIR -- *) or as "
            "DIR/* (or rename that folder)"
        )
    if args.unconfined:
        os.environ[sandbox.UNCONFINED_ENV] = "1"  # read by every run's sandboxes
        if sandbox.confinement_mode() == "none":
            print(f"warning: confinement: {sandbox.UNCONFINED_WARNING}", file=sys.stderr)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    problem = sandbox.limits_problem(args.timeout_scale, args.memory_mb)
    if problem is not None:
        raise UsageError(problem)
    refuse_stopping_early(args.pytest_args)  # -x, --maxfail: quiet partial grades
    if args.timeout_scale < 1:  # not quiet: the reference lost 20 of 39 at 0.5 (red team 56, 07)
        print(
            f"warning: --timeout-scale {args.timeout_scale:g} tightens every test's time limit: "
            "on a busy machine even the reference solutions lose points at it (the scale is "
            "meant for slow machines, above 1)",
            file=sys.stderr,
        )
    unsafe = untrusted_tmp()
    if unsafe:
        raise UsageError(f"{one_line(unsafe)}; give grade a TMPDIR of its own")
    uid_only = sandbox.confinement_mode() == sandbox.UID_ONLY
    for folder in args.tests:
        if not Path(folder).exists():
            raise UsageError(f"--tests {one_line(folder)}: no such file or folder")
        untrusted = untrusted_file(Path(folder))
        if untrusted:  # hidden tests run as the grader, unconfined: a student must not write them
            raise UsageError(
                f"--tests {one_line(folder)}: {one_line(untrusted)}; "
                "refusing to run it as the grader"
            )
        if uid_only and sandbox.readable_by_others(Path(folder)):
            # without namespaces a student's code runs as another user, who could read them
            raise UsageError(
                f"--tests {one_line(folder)}: other users can read it, and without namespaces "
                "a student's code runs as another user: chmod -R go-rwx it"
            )
    due = due_date(args)
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
        from mcts_grader.feedback import close_metadata, metadata_path

        close_metadata(metadata_path())  # read (the due date): no student may read it now
        clear_beside(results)  # a run that writes nothing leaves nothing of an earlier one
        # SandboxError (student code not confinable) goes up: no results.json, exit status 3
        try:
            data, log = grade_one(submission, tests, options, due)
        except UsageError as error:  # the pre-run: the options or the hidden tests are broken
            print(f"mcts-course grade: error: {one_line(str(error))}", file=sys.stderr)
            data, log = could_not_grade("the grading's own tests or options are broken"), str(error)
        write_beside(results, json_text(data))
        write_beside(results.parent / "pytest.log", log)
        most = sum(t.get("max_score", 0) for t in data["tests"])
        status = data["extra_data"]["status"]
        print(f"score {data['score']:g} / {most:g} ({status}) -> {results}")
        return 0 if status == GRADED else 1
    if not args.submissions:
        raise UsageError("give at least one SUBMISSION (or --gradescope)")
    if not args.out:
        raise UsageError("--out DIR is required")
    unsafe = untrusted_way(Path(args.out))
    if unsafe:  # they could swap the folder for one of theirs, with a grades.csv of theirs
        raise UsageError(
            f"--out {one_line(args.out)}: {one_line(unsafe)}; another user could put a folder of "
            "theirs in its place: choose an output folder under folders of your own"
        )
    if (Path(args.out) / "grades.csv").exists() and not args.force:
        raise UsageError(
            f"{args.out} already holds grades: give --force to grade into it again (the "
            "submissions graded now replace their rows), or a new --out"
        )
    missing = [s for s in args.submissions if not Path(s).exists()]
    if missing:
        # an option grade does not know, given its value as the next word, leaves the value
        # among the submissions (red team 55, 02 and 11): say how to give it
        bare = [a for a in args.pytest_args if a.startswith("-") and "=" not in a]
        hint = ""
        if bare:
            joined = bare[-1] + ("=" if bare[-1].startswith("--") else "") + missing[0]
            hint = (
                f" (if it is the value of {one_line(bare[-1])}, give the option and its value "
                f"as one word: {one_line(joined)})"
            )
        raise UsageError(f"no such submission: {one_line(missing[0])}{hint}")
    if uid_only and len(args.submissions) == 1:  # several are refused without namespaces
        sub = Path(os.path.abspath(args.submissions[0]))
        open_ = [p for p in sub.parent.iterdir() if p != sub and sandbox.readable_by_others(p)]
        if open_:
            raise UsageError(
                f"other users can read {one_line(str(open_[0]))}, beside the submission: without "
                "namespaces its code runs as another user and could read it; chmod go-rwx it "
                "(or the folder holding both)"
            )
    watched_before = observers.warning()  # before the batch, while it can still be moved
    if watched_before:
        print(f"warning: {watched_before}", file=sys.stderr)
    started = time.perf_counter()
    stopped_by = None
    try:
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
            replace=args.replace,
        )
    except Interrupted as stop:  # Ctrl-C, SIGTERM: the rows are written, say so
        grades, stopped_by = stop.graded, stop.signum
    seconds = time.perf_counter() - started
    # each submission's score was printed (stderr) as it finished, and is in grades.csv
    count = f"{len(grades)} submission{'' if len(grades) == 1 else 's'}"
    if stopped_by is not None:
        name = signal.Signals(stopped_by).name
        print(f"mcts-course grade: stopped by {name} after {seconds:.1f} s", file=sys.stderr)
    print(f"graded {count} in {seconds:.1f} s -> {Path(args.out) / 'grades.csv'}")
    watched = observers.warning()  # after the batch too: who came while it ran
    if watched and watched != watched_before:
        print(f"warning: {watched}", file=sys.stderr)
    failed = [g for g in grades if g.status != GRADED]
    if failed:  # never quietly: a failed run's row is a zero no student earned
        names = ", ".join(f"{labelled(g.name)} ({g.status})" for g in failed)
        print(
            f"mcts-course grade: {len(failed)} of {count} not graded: {names}; "
            "see their pytest.log",
            file=sys.stderr,
        )
    if stopped_by is not None:
        return 128 + stopped_by  # the shell's status of a command a signal stopped
    return 1 if failed else 0


def _not_ours(item: Path, way: bool) -> str | None:
    """Why ``item`` may be changed by someone other than the grader: a link, another user's,
    or writable by group or others (a world-writable folder with the sticky bit, like
    ``/tmp``, is allowed ``way``: on the way to something, since there nobody renames what is
    not theirs)."""
    info = item.lstat()
    if stat.S_ISLNK(info.st_mode):
        return f"{item} is a link"
    if info.st_uid not in (0, os.geteuid()):
        return f"{item} belongs to user id {info.st_uid}"
    sticky = way and stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
    if info.st_mode & 0o022 and not sticky:
        return f"{item} may be written by others (mode {info.st_mode & 0o777:o})"
    return None


def untrusted_file(path: Path) -> str | None:
    """Why ``path`` (a test file or a folder of them) may have been written by someone other
    than the grader, None if nothing: a link anywhere in it, or a file or folder in it or on the
    way to it from ``/`` that is not the grader's (:func:`_not_ours`).  Hidden tests run as the
    grader, unconfined: every folder on their way must be the grader's, or someone could swap
    them mid-batch."""
    absolute = Path(os.path.abspath(path))
    if not os.path.lexists(absolute):
        return None  # nothing to run: the caller says "no such file or folder"
    why = untrusted_way(absolute)
    if why:
        return why
    found = [absolute, *sorted(absolute.rglob("*"))] if absolute.is_dir() else [absolute]
    for item in found:
        why = _not_ours(item, way=False)
        if why:
            return why
    return None


def untrusted_tmp() -> str | None:
    """Why the temporary folder (``TMPDIR``), where the grader makes its own folders, may not
    be safe for them, None if it is: it and every folder above it must be the grader's or
    sticky (``/tmp``), or another user could rename the grader's folder away and put theirs in
    its place between two runs."""
    folder = Path(os.path.abspath(tempfile.gettempdir()))
    why = untrusted_way(folder) or _not_ours(folder, way=True)
    return f"the temporary folder (TMPDIR): {why}" if why else None


def untrusted_way(path: Path) -> str | None:
    """Why someone other than the grader could rename a folder on the way from ``/`` to
    ``path`` (not ``path`` itself), and so put a folder of theirs in its place: the one rule
    (:func:`_not_ours`, sticky folders allowed) for the hidden tests, the temporary folder and
    the output folder.  Folders not made yet are the grader's to make."""
    for parent in reversed(Path(os.path.abspath(path)).parents):  # from / down
        if not os.path.lexists(parent):
            break
        why = _not_ours(parent, way=True)
        if why:
            return why
    return None


def refused_word(word: str, submissions: list[str]) -> bool:
    """Whether ``word``, given before ``--``, may be a student's folder taken for something it
    is not: an option (``--tests=x``, pytest's ``-kx``, or ``--tests`` followed by ``x``) that
    is also the name of a file or folder here, or a SUBMISSION that starts with ``-`` (argparse
    takes ``-5`` for one), which belongs after ``--``."""
    if not word.startswith("-") or word == "-":
        return False
    return os.path.lexists(word) or word in submissions


def due_date(args: argparse.Namespace) -> datetime | None:
    """The due date of ``--due``, or with ``--gradescope`` of Gradescope's metadata (whose
    zone completes a ``--due`` given without one); None: no date, nothing held back is shown."""
    from mcts_grader.feedback import due_date_of, metadata_path, parse_date

    metadata = None
    if args.gradescope:
        metadata = due_date_of(metadata_path())
    if args.due is None:
        return metadata
    return parse_date(args.due, zone=metadata.tzinfo if metadata is not None else None)


def main(argv: list[str] | None = None) -> int:
    """``mcts-course-grade ...``: the same as ``mcts-course grade ...``."""
    from mcts_course.cli import main as course_main

    return course_main(["grade", *(sys.argv[1:] if argv is None else argv)])
