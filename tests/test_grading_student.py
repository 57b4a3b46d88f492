"""The grading tests as plain pytest tests, run on YOUR exercise files when you ask:

    MCTS_CHECK=exercises pytest tests/test_grading_student.py        # every set found there
    MCTS_CHECK=exercises/ttt_mcts.py pytest tests/test_grading_student.py -k backprop

Each grading test becomes one pytest test (named after its exercise and function), asking the
functions your file defines, loaded in this process, the same questions as the grader does.
Without MCTS_CHECK nothing runs: the untouched stubs would fail every test, which is expected.
`mcts-course check` runs your code in a separate process with time and memory limits and prints
points per exercise.
"""

from __future__ import annotations

import os
import types

import pytest

from mcts_course.grading.framework import collect_tests
from mcts_course.grading.runner import run_local
from mcts_course.grading.sources import find_sources

TARGET = os.environ.get("MCTS_CHECK")


def _cases():
    if not TARGET:
        return [pytest.param(None, None, marks=pytest.mark.skip("set MCTS_CHECK=exercises"))]
    cases = []
    for set_name, source in find_sources(TARGET).items():
        for test in collect_tests(set_name):
            cases.append(pytest.param(source, test, id=f"{test.exercise}-{test.func.__name__}"))
    return cases


_loaded: dict[str, dict] = {}


def _namespace(source) -> dict:
    key = str(source.path)
    if key not in _loaded:
        module = types.ModuleType(f"student_{source.path.stem}")
        module.__file__ = key
        exec(compile(source.code, key, "exec"), module.__dict__)
        _loaded[key] = module.__dict__
    return _loaded[key]


@pytest.mark.parametrize(("source", "test"), _cases())
def test_exercise(source, test):
    (result,) = run_local(_namespace(source), test.set_name, [test])
    if not result.passed:
        pytest.fail(f"[{test.exercise}] {test.name}\n{result.output}", pytrace=False)
