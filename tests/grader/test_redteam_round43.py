"""Red team round 43: the grader's work answering a submission's calls to the functions a test
lends it (decoding what they carry, the function's own work) is set aside from the question's
wall-clock backstop, and was bounded only by what the calls carried (8 M values a test).  Calls
that each carried 60 Connect Four states, 830 us of the grader's CPU apiece, held one question
of a 6 s test 75 s, and the row was still "graded" (01, 04).  The calls to objects the test never
lent are refused before decoding (``test_question_loop``); the calls to a lent one stop at the
test's share of the grader's CPU, and the test fails saying why."""

from __future__ import annotations

import json

FLOOD = """

_reference_move = monte_carlo_move
_STATE = {"$s": "connect4", "v": [{"$t": [0, 0]}, 0, None, None]}


def monte_carlo_move(state, playouts, policy, rng):
    # the test lends its policy: call it with 60 states, again and again, already encoded (the
    # grader decodes them, the student's process does not encode them), and ignore the errors
    server, handle = object.__getattribute__(policy, "_server"), policy._id
    message = {"op": "cb", "obj": handle, "method": None, "args": [_STATE] * 60, "nodes": []}
    for _ in range(200_000):
        if "took the grader" in str(server.ask_grader(message).get("error")):
            break
    return _reference_move(state, playouts, policy, rng)
"""


def test_01_calls_to_a_lent_function_stop_at_the_tests_share_of_the_graders_cpu(tmp_path):
    from grading_fixtures.shared_folders import SOLUTIONS

    from mcts_course.cli import main

    sub = tmp_path / "flood"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + FLOOD)
    out = tmp_path / "o"
    args = ["grade", str(sub), "--out", str(out), "--exercise-set=bandits"]
    main([*args, "-k", "test_monte_carlo_move and not best_mean", "--timeout-scale", "0.5"])
    data = json.loads((out / "flood" / "results.json").read_text())
    (test,) = data["tests"]
    assert test["score"] == 0, test
    # the time limit is 8 s x 0.5: the grader gives the calls 4 s + 1 s of its CPU
    assert "took the grader" in test["output"] and "this test allows 5.0 s" in test["output"], test
