"""A test's time limit holds over all its questions: each question was given at least 0.05 s,
even when the test had none left, so a ``select_child`` that returned its own node kept the
grader's loop of the reference's steps asking it again for 521 s in a test of 8 s, until the
whole set's CPU limit killed the process ("died", not "timed out").  (Such an answer is now
refused at once; the limit holds for any answer asked again and again.)"""

from __future__ import annotations

import pytest

from mcts_course.grading.clock import TIMED_OUT
from mcts_course.grading.process import StudentGone
from mcts_course.grading.proxies import Connection


class Quick:
    """A transport whose every answer takes 0.3 s of the student's time."""

    def __init__(self) -> None:
        self.asked = 0

    def alive(self) -> bool:
        return True

    def exchange(self, message, budget, callback, function):
        self.asked += 1
        return {"ok": None}, 0.3


def test_a_test_asks_no_more_once_its_time_is_used_up():
    transport = Quick()
    connection = Connection(transport)
    connection.begin_test(1.0)
    for _ in range(4):  # 1.2 s: the fourth answer overran the limit
        connection.request({"op": "call"}, "select_child")
    with pytest.raises(StudentGone) as stopped:
        connection.request({"op": "call"}, "select_child")
    assert stopped.value.kind == TIMED_OUT and transport.asked == 4
    assert stopped.value.function == "select_child" and "4 questions" in stopped.value.why
    assert stopped.value.questions == 4  # what the message says (runner.verdict)
    connection.begin_test(1.0)  # the next test has its own time
    connection.request({"op": "call"}, "select_child")
    assert transport.asked == 5
