"""Public checks of exercise 8: training targets from a search, and PUCT's selection.

Answers recorded for fixed questions (a check that works a contract out would hold the
exercise's answer, and a student's install holds none: red team 32, 07).  The policy and value
targets and PUCT's selection are checked by the grader (``mcts_grader.tests.test_learning``).

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import math

import pytest

# puct_score(wins, visits, parent_visits, prior, c, fpu): its value, recorded
UNVISITED = {
    (0.0, 0, 9, 0.25, 1.0, 0.5): 1.25,
    (0.0, 0, 16, 0.5, 2.0, 1.0): 5.0,
    (0.0, 0, 1, 0.1, 1.5, 0.3): 0.45,
    # visited children beside them: a score that is always fpu's earns nothing
    (3.0, 4, 9, 0.25, 1.0, 0.5): 0.9,
    (1.5, 6, 16, 0.5, 2.0, 1.0): 0.8214285714285714,
    (0.0, 2, 5, 0.1, 1.5, 0.3): 0.11180339887498951,
}


@pytest.mark.points(
    1,
    exercise="learning",
    hint="a child never visited has Q = fpu (not 0, not infinity) and the bonus "
    "c * prior * sqrt(parent_visits) / 1",
)
def test_puct_score_unvisited(student):
    """an unvisited child scores fpu plus its prior's bonus"""
    cases = list(UNVISITED)
    for args, got in zip(cases, student.puct_score.many(cases), strict=True):
        want = UNVISITED[args]
        assert isinstance(got, int | float) and math.isclose(got, want, rel_tol=1e-9), (
            "puct_score(wins={}, visits={}, parent_visits={}, prior={}, c={}, fpu={}) = {!r}, "
            "expected {:g}".format(*args, got, want)
        )
