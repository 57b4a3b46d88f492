"""Autograding of the exercises: the referee owns the truth, the student's code only answers.

The grading tests are pytest modules, one per exercise set, in two homes: the public checks,
shipped here (``mcts_course/grading/tests/test_*.py``: expectations that are public facts, so
that a student's install holds no reference solution), and the grader's tests that need the
reference solutions (``grader/mcts_grader/tests``, in the ``mcts-course-grader``
distribution).  The package's pytest plugin (:mod:`~mcts_course.grading.plugin`, enabled by
installing the package) gives them the ``student`` fixture, the ``points`` marker, the points
table and the results files; :func:`~mcts_course.grading.invocation.pytest_args` is the one
home of the run's arguments.  The tests run in pytest's process; the student's code runs in its
own process (:mod:`~mcts_course.grading.server`), started from a copy of the package, and
answers plain-data questions (:mod:`~mcts_course.grading.protocol`,
:mod:`~mcts_course.grading.remote`).  As root (Gradescope) that process is a user id of its
own, who cannot read the grader's files.

One pytest run, several front ends:

* anyone: ``python -m pytest -c /dev/null --pyargs mcts_course.grading --submission
  exercises/`` (the public checks; a run that read a configuration file is refused);
* a student at the terminal: ``mcts-course check exercises/`` (the public checks of the sets
  found there);
* a student in a notebook: ``check("ttt_mcts")`` after the cells that define the functions (the
  same checks, in the notebook's own process: feedback, not a grade; :mod:`.notebook`);
* an instructor (with the grader installed): ``mcts-course grade SUBMISSION... --out DIR
  [--tests hidden/]`` (the public checks and the grader's tests, one pytest run per
  submission; grades.csv, results.json), or Gradescope (``mcts_grader.gradescope``).
"""

from __future__ import annotations

from mcts_course.grading.notebook import Report, check
from mcts_course.grading.sets import EXERCISES, SETS

__all__ = ["EXERCISES", "SETS", "Report", "check"]
