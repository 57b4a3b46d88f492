"""The points the shipped grading tests are worth, read from their ``points`` markers (what a
complete submission should score), for the grader's tests."""

from __future__ import annotations

import importlib

from mcts_course.grading.sets import SET_OF, SETS


def marks(set_name: str) -> list[tuple[str, float, str]]:
    """``(test function, points, exercise)`` of each test of a set, in the file's order."""
    module = importlib.import_module(SETS[set_name].tests_module)
    found = []
    for name, value in vars(module).items():
        for mark in getattr(value, "pytestmark", []) if name.startswith("test_") else []:
            if mark.name == "points":
                found.append((name, float(mark.args[0]), mark.kwargs["exercise"]))
    return found


def most(set_name: str | None = None, exercise: str | None = None) -> float:
    """The points of a set, or of one exercise."""
    set_name = set_name or SET_OF[exercise]
    return sum(p for _, p, e in marks(set_name) if exercise in (None, e))
