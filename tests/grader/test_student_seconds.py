"""results.json tells each test's student time and its limit (``extra_data.student_seconds``
and ``limit``): how close a submission, the reference too, came to being stopped.  The CI's
busy machine once stopped the reference in "MCTS finds the winning move" after 3 s of its
3 s limit, and the rest of the set was not run: these numbers are how a limit is chosen (the
grading tests allow the reference's seconds four times and more)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")

SPINS = """

def ucb1_choice(*args, **kwargs):  # loops: CPU, no answer
    while True:
        pass
"""


@pytest.fixture(params=["namespaces", "no-namespaces"])
def namespaces(request, monkeypatch) -> str:
    if request.param == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    return str(request.param)


def _graded(tmp_path: Path, tail: str, *options: str) -> dict[str, dict]:
    from mcts_course.cli import main

    sub = tmp_path / "subs" / "student"
    sub.mkdir(parents=True)
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + tail)
    out = tmp_path / "out"
    code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", *options])
    assert code == 0
    tests = json.loads((out / "student" / "results.json").read_text())["tests"]
    return {t["name"].removeprefix("[bandits] "): t for t in tests}


def test_each_test_tells_its_student_seconds_and_its_limit(tmp_path, capsys, namespaces):
    tests = _graded(tmp_path, "", "-k", "ucb1 or softmax", "--timeout-scale=2")
    assert tests and all(t["score"] == t["max_score"] for t in tests.values()), tests
    for name, t in tests.items():
        extra = t["extra_data"]
        # the marker's limit times the scale: 3 s for most, 4 s for softmax's frequencies
        assert extra["limit"] in (6.0, 8.0), (name, extra)
        assert 0 < extra["student_seconds"] < extra["limit"], (name, extra)
    capsys.readouterr()


def test_a_stopped_test_used_its_whole_limit(tmp_path, capsys, namespaces):
    tests = _graded(tmp_path, SPINS, "-k", "ucb1_choice")
    stopped = [t for t in tests.values() if t["extra_data"]["status"] == "timed out"]
    assert stopped, tests
    extra = stopped[0]["extra_data"]
    assert extra["limit"] == 3.0 and extra["student_seconds"] >= 3.0, extra
    capsys.readouterr()
