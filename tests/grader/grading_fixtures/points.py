"""The points the course's grading tests are worth, read from their ``points`` markers (what a
complete submission should score), for the grader's tests: the public checks shipped with the
library, and the grader's tests that need the reference solution."""

from __future__ import annotations

import importlib
import importlib.util

from mcts_course.grading.sets import SET_OF, SETS


def modules(set_name: str, public_only: bool = False) -> list:
    """The test modules of a set: its public checks, then (unless ``public_only``) the
    grader's module of the set, when it has one."""
    spec = SETS[set_name]
    names = [spec.public_tests_module]
    if not public_only and importlib.util.find_spec(spec.reference_tests_module) is not None:
        names.append(spec.reference_tests_module)
    return [importlib.import_module(name) for name in names]


def marks(set_name: str, public_only: bool = False) -> list[tuple[str, float, str]]:
    """``(test function, points, exercise)`` of each test of a set, in the files' order."""
    found = []
    for module in modules(set_name, public_only):
        for name, value in vars(module).items():
            for mark in getattr(value, "pytestmark", []) if name.startswith("test_") else []:
                if mark.name == "points":
                    found.append((name, float(mark.args[0]), mark.kwargs["exercise"]))
    return found


def most(
    set_name: str | None = None, exercise: str | None = None, public_only: bool = False
) -> float:
    """The points of a set, or of one exercise (``public_only``: of a student's check)."""
    set_name = set_name or SET_OF[exercise]
    return sum(p for _, p, e in marks(set_name, public_only) if exercise in (None, e))
