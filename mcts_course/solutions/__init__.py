"""Moved: the reference solutions belong to the grader (``grader/`` in the repository).

A student's install holds no answer; instructors install the grader distribution
(``pip install ./grader``), whose ``mcts_grader.solutions`` they are.
"""

raise ImportError(
    "the reference solutions are not part of the student package: they live in the grader "
    "distribution (grader/ in the course repository, package mcts_grader.solutions)"
)
