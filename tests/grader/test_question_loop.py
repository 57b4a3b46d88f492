"""A test's time limit holds over all its questions: each question was given at least 0.05 s,
even when the test had none left, so a ``select_child`` that returns its own node kept the
grader's loop of the reference's steps asking it again for 521 s in a test of 8 s, until the
whole set's CPU limit killed the process ("died", not "timed out")."""

from __future__ import annotations

import json

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main

STUCK = """

def select_child(node, c):
    return node  # the grader's loop of the reference's steps never reaches a leaf
"""


def test_a_loop_of_quick_questions_ends_with_the_test_time(tmp_path):
    code = (SOLUTIONS / "ttt_mcts.py").read_text()
    # mcts_search keeps a select of its own and grows one iteration too many: its tree differs
    # from the reference's, so the grader tries each of its steps in the reference's loop
    code = code.replace("def select_child(", "def _select(", 1)
    code = code.replace("node = select_child(node, c)", "node = _select(node, c)")
    code = code.replace("for _ in range(iterations):", "for _ in range(iterations + 1):", 1)
    sub = tmp_path / "stuck"
    sub.mkdir()
    (sub / "ttt_mcts.py").write_text(code + STUCK)
    out = tmp_path / "o"
    args = ["grade", str(sub), "--out", str(out), "--exercise-set=ttt_mcts", "-k", "same_tree"]
    main([*args, "--timeout-scale", "0.25"])
    data = json.loads((out / "stuck" / "results.json").read_text())
    (test,) = data["tests"]
    assert test["score"] == 0 and "used up this test's time limit of 2 s" in test["output"], test
    assert "the last to your `select_child`" in test["output"], test["output"]
    assert data["extra_data"]["status"] == "graded"
