"""Autograding of the exercises: the referee owns the truth, the student's code only answers.

The tests (``mcts_course/grading/tests_*.py``) run in the grader's process with the reference
solutions; the student's code runs in its own process (:mod:`~mcts_course.grading.server`),
started from a copy of the package without the solutions and the tests, and answers plain-data
questions (:mod:`~mcts_course.grading.protocol`, :mod:`~mcts_course.grading.proxies`).  As
root (Gradescope) that process is a user id of its own, who cannot read the private files
(:mod:`~mcts_course.grading.sandbox`).  The
referee loop, time limits and "not run" reports: :mod:`~mcts_course.grading.runner`.

Three ways to run the same tests:

* a student at the terminal: ``mcts-course check exercises/``;
* a student in a notebook: ``check("ttt_mcts")`` after the cells that define the functions (the
  same questions, asked in the notebook's own process: feedback, not a grade);
* an instructor: ``mcts-course grade SUBMISSION... --out DIR`` (grades.csv, results.json), or
  Gradescope (:mod:`~mcts_course.grading.gradescope`).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from mcts_course.grading.framework import collect_tests, points
from mcts_course.grading.sets import EXERCISES, SETS, exercise_set

__all__ = ["EXERCISES", "SETS", "Report", "check", "points"]


class Report:
    """The result of :func:`check`: ``score``, ``max_score``, ``by_exercise``."""

    def __init__(self, grade_):
        self.grade = grade_
        self.score = grade_.score
        self.max_score = grade_.max_score
        self.by_exercise = grade_.by_exercise()

    def __repr__(self) -> str:
        return f"Report(score={self.score:g}, max_score={self.max_score:g})"


def check(
    set_name: str,
    namespace: dict | None = None,
    exercise: str | None = None,
    show_failures: bool = True,
) -> Report:
    """Run the grading tests of ``set_name`` on the functions defined in ``namespace``.

    ``namespace`` defaults to the caller's globals (the notebook's).  The tests ask the
    functions the same questions as ``mcts-course check`` does, but in this process (no
    isolation; each test's time limit uses SIGALRM); the table of points is printed and a
    Report returned.
    ``exercise`` runs the tests of one exercise only (e.g. ``"ttt_backprop"``).
    """
    from mcts_course.grading.grader import SubmissionGrade, TestOutcome
    from mcts_course.grading.report import full_report

    exercise_set(set_name)  # a clear error for an unknown set
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    tests = [t for t in collect_tests(set_name) if exercise in (None, t.exercise)]
    if not tests:
        raise ValueError(f"no tests for exercise {exercise!r} in {set_name}")
    from mcts_course.grading.runner import run_local

    grade_ = SubmissionGrade("notebook", Path("."))
    for test, result in zip(tests, run_local(namespace, set_name, tests), strict=True):
        grade_.outcomes.append(
            TestOutcome(test, result.passed, result.score, result.output, result.seconds)
        )
    print(full_report(grade_, show_failures))
    return Report(grade_)
