"""Autograding of the exercises: the referee owns the truth, the student's code only answers.

The grading tests are pytest modules (``grader/mcts_grader/tests/test_*.py``, one per exercise
set); the package's pytest plugin (:mod:`~mcts_course.grading.plugin`, enabled by installing the
package) gives them the ``student`` fixture, the ``points`` marker, the points table and the
results files.  The tests run in pytest's process with the reference solutions; the student's
code runs in its own process (:mod:`~mcts_course.grading.server`), started from a copy of the
package without the solutions and the tests, and answers plain-data questions
(:mod:`~mcts_course.grading.protocol`, :mod:`~mcts_course.grading.remote`).  As root
(Gradescope) that process is the user ``nobody``, who cannot read the private files.

One pytest run, several front ends:

* anyone: ``python -m pytest --pyargs mcts_course.grading --submission exercises/``;
* a student at the terminal: ``mcts-course check exercises/`` (the sets found there);
* a student in a notebook: ``check("ttt_mcts")`` after the cells that define the functions (the
  same tests, in the notebook's own process: feedback, not a grade; :mod:`.notebook`);
* an instructor: ``mcts-course grade SUBMISSION... --out DIR [--tests hidden/]`` (one pytest
  run per submission; grades.csv, results.json), or Gradescope
  (:mod:`~mcts_grader.gradescope`).
"""

from __future__ import annotations

from mcts_course.grading.notebook import Report, check
from mcts_course.grading.sets import EXERCISES, SETS

__all__ = ["EXERCISES", "SETS", "Report", "check"]
