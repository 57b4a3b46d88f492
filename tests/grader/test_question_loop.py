"""A test's time limit holds over all its questions: each question was given at least 0.05 s,
even when the test had none left, so a ``select_child`` that returned its own node kept the
grader's loop of the reference's steps asking it again for 521 s in a test of 8 s, until the
whole set's CPU limit killed the process ("died", not "timed out").  (Such an answer is now
refused at once; the limit holds for any answer asked again and again.)

A question's wall-clock backstop counted the grader's own work: reading the clock at each of a
flood's 100,000 lines (140 us each, two walks of ``/proc``) made 14 s of a student "waiting"
with no CPU used, and the backstop, not the line cap, stopped it: "timed out under load", not a
grade (CI, round 43)."""

from __future__ import annotations

import pytest

from mcts_course.grading import clock, proxies
from mcts_course.grading.clock import TIMED_OUT, UNDER_LOAD, QuestionClock
from mcts_course.grading.process import StudentGone
from mcts_course.grading.proxies import CALLBACK_FLOOR, CALLBACK_SHARE, Connection


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


class Ticking:
    """A stand-in for ``time``: a clock (monotonic, or the grader's CPU) that moves only when
    told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    thread_time = monotonic


def test_the_graders_own_work_is_not_a_wait_for_the_student(monkeypatch):
    ticking = Ticking()
    monkeypatch.setattr(clock, "time", ticking)
    question = QuestionClock(1.0, cpu=lambda: 0.0)  # a process that uses no CPU: backstop 6 s
    for _ in range(1000):  # the grader reads a flood's lines: 14 s of its own work
        with question.grader_work():
            ticking.now += 0.014
    assert question.over() is None and question.wall() == pytest.approx(0.0, abs=1e-6)
    ticking.now += 5.9  # the student's process answers nothing
    assert question.over() is None
    ticking.now += 0.2
    assert question.over() == UNDER_LOAD


def test_the_graders_parsing_of_the_students_lines_is_the_students_time(monkeypatch):
    ticking = Ticking()
    monkeypatch.setattr(clock, "time", ticking)
    counted = QuestionClock(0.5, cpu=lambda: 3.0)
    counted.charged += 0.6  # a reply padded with junk values: the grader parsed it for 0.6 s
    assert counted.used() == pytest.approx(0.6) and counted.over() == TIMED_OUT
    walled = QuestionClock(0.5)  # no CPU count: wall seconds, the parsing already among them
    walled.charged += 0.6
    ticking.now += 0.2
    assert walled.used() == pytest.approx(0.2) and walled.over() is None


def test_a_reading_of_the_cpu_time_is_kept_a_moment_but_the_last_is_fresh(monkeypatch):
    """Each reading walks /proc: a flood of lines took one at each line (red team 43, 01)."""
    ticking = Ticking()
    monkeypatch.setattr(clock, "time", ticking)
    readings: list[float] = []

    def cpu() -> float:
        readings.append(ticking.now)
        return ticking.now - 1000.0  # the student's code uses all the CPU it is given

    question = QuestionClock(5.0, cpu=cpu)
    for _ in range(100):
        question.used()
    assert len(readings) == 1  # the one taken as the question began
    kept = clock.READING_KEPT
    ticking.now += 1.5 * kept
    assert question.used() == pytest.approx(1.5 * kept) and len(readings) == 2
    ticking.now += kept / 2
    assert question.used() == pytest.approx(1.5 * kept)  # kept
    assert question.used(fresh=True) == pytest.approx(2 * kept)  # the answer's seconds


STATES = [{"$s": "connect4", "v": [{"$t": [0, 0]}, 0, None, None]}] * 60


def test_a_call_to_an_unknown_object_is_refused_before_its_arguments_are_decoded():
    """Red team 43, 01: 55,000 calls to no lent object, each with 60 Connect Four states,
    were decoded for 830 us each before the handle was looked at."""
    connection = Connection(Quick())
    connection.begin_test(5.0)
    lent = connection._lend(lambda *states: len(states))
    known = connection._callback({"op": "cb", "obj": lent["$c"], "args": STATES})
    assert known["ok"] == 60 and connection.callback_values >= 60
    counted = connection.callback_values
    unknown = connection._callback({"op": "cb", "obj": lent["$c"] + 1, "args": STATES})
    assert "unknown object" in unknown["error"] and connection.callback_values == counted


def test_the_graders_cpu_answering_lent_functions_is_capped_per_test(monkeypatch):
    """Red team 43, 01 and 04, on a lent function: calls carrying 60 Connect Four states each
    cost the grader 830 us apiece, set aside from the question's clock, bounded only by what
    they carried (8 M values a test: over 100 s)."""
    cpu = Ticking()
    monkeypatch.setattr(proxies, "time", cpu)
    connection = Connection(Quick())
    connection.begin_test(2.0)
    assert connection.callback_allowed == 2.0 * CALLBACK_SHARE + CALLBACK_FLOOR

    def costly(*states: object) -> int:  # each call costs the grader 0.25 s of its CPU
        cpu.now += 0.25
        return len(states)

    lent = connection._lend(costly)["$c"]
    answers = [connection._callback({"op": "cb", "obj": lent, "args": STATES}) for _ in range(40)]
    answered = int(connection.callback_allowed / 0.25) + 1  # the cap is checked before each call
    assert [a.get("ok") for a in answers[:answered]] == [60] * answered
    assert all("took the grader" in a["error"] for a in answers[answered:])
    assert cpu.now == pytest.approx(1000 + 0.25 * answered)  # a refused call costs no more
    assert "this test allows 3.0 s" in str(connection.callback_failure)
    connection.begin_test(2.0)  # the next test starts with nothing counted
    assert connection.callback_cpu == 0.0 and connection.callback_failure is None
    assert connection._callback({"op": "cb", "obj": lent, "args": STATES}).get("error")  # revoked
