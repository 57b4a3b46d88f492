"""Grading tests: the ``points`` decorator, the student namespace, and running one test.

A grading test is a plain function that takes the student's namespace and raises
``AssertionError`` (with a readable message) when the student's code is wrong::

    from mcts_course.grading import points
    from mcts_course.solutions import ttt_mcts as ref   # import the reference at the top

    @points(2, exercise="ttt_backprop", hint="flip the reward at every level")
    def test_my_extra_check(student):
        assert student.backpropagate is not None

The instructor's hidden tests (``mcts-course grade --tests DIR``) are files ``DIR/*.py`` of such
functions; every function carrying ``@points`` is a test, in the order of the file.

``student.NAME(...)`` asks the student's process (see :mod:`mcts_course.grading.remote`);
``student.NAME.many([...])`` asks many questions in one round trip, ``student.NAME.repeat(n,
...)`` the same question n times.  The arguments and results are plain data (numbers, lists,
game states, trees of :class:`mcts_course.grading.public.Node`, random generators); a grader
object passed as an argument (a scripted player, a fake ``input``) is called back.

Time limits: ``timeout`` counts the student's code only (the grader's own work is free): 3 s by
default, 3-6 s for the searches and statistical tests, 12-20 s for whole games and tournaments.
On an idle machine the reference solution needs 0.01-0.3 s for most tests and at most about
3 s (2000-iteration MCTS against perfect play), so every limit leaves it a margin of 5 or more
on a loaded grader, while a loop is stopped within seconds.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import inspect
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mcts_course.grading.pyparse import parse
from mcts_course.grading.sets import SET_OF, SETS

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


@dataclass
class GradingTest:
    func: Callable
    name: str
    exercise: str
    set_name: str
    points: float
    timeout: float
    hint: str
    visibility: str
    order: tuple = field(default=(), repr=False)

    @property
    def id(self) -> str:
        return f"{self.func.__module__}.{self.func.__name__}"

    @property
    def uses(self) -> frozenset[str]:
        """The student's names this test calls (``student.NAME`` in it or its helpers)."""
        return student_names(self.func)


def points(
    value: float,
    exercise: str,
    *,
    name: str | None = None,
    timeout: float = 3.0,
    hint: str = "",
    visibility: str = "visible",
    exercise_set: str | None = None,
) -> Callable[[Callable], Callable]:
    """Mark a function as a grading test worth ``value`` points for ``exercise``.

    ``exercise`` is one of :data:`mcts_course.grading.sets.EXERCISES`, or a new name together
    with ``exercise_set`` (the file it grades).  ``timeout`` is in seconds of wall-clock time;
    ``timeout`` is the time the student's code may take in this test, in seconds (the grader's own
    work is not counted); ``hint`` is shown when the test fails; ``visibility`` follows
    Gradescope.
    """
    set_name = exercise_set or SET_OF.get(exercise)
    if set_name not in SETS:
        raise ValueError(f"exercise {exercise!r}: unknown; give exercise_set= one of {list(SETS)}")
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}")

    def decorate(func: Callable) -> Callable:
        doc = (func.__doc__ or "").strip().splitlines()
        func.__grading__ = GradingTest(
            func=func,
            name=name or (doc[0] if doc else func.__name__),
            exercise=exercise,
            set_name=set_name,
            points=value,
            timeout=timeout,
            hint=hint,
            visibility=visibility,
        )
        return func

    return decorate


def _from_marker(func: Callable) -> None:
    """Give a function marked ``@pytest.mark.points(value, exercise=...)`` its GradingTest."""
    for mark in getattr(func, "pytestmark", []):
        if mark.name == "points" and not hasattr(func, "__grading__"):
            points(*mark.args, **mark.kwargs)(func)


def tests_in_module(module) -> list[GradingTest]:
    """The grading tests of a module, in the order they are written."""
    for f in vars(module).values():
        if callable(f):
            _from_marker(f)
    found = [f.__grading__ for f in vars(module).values() if hasattr(f, "__grading__")]
    return sorted(found, key=lambda t: t.func.__code__.co_firstlineno)


def load_test_file(path: str | Path):
    """Import an instructor's test file (trusted code) as a module."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"hidden_tests_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_files(extra: list[str] | None) -> list[Path]:
    """The hidden test files: each path is a .py file or a folder of them."""
    files: list[Path] = []
    for item in extra or []:
        p = Path(item)
        files.extend(sorted(p.glob("*.py")) if p.is_dir() else [p])
    return files


def collect_tests(set_name: str, extra: list[str] | None = None) -> list[GradingTest]:
    """The shipped tests of a set, then the instructor's tests for it (same order everywhere)."""
    tests = tests_in_module(importlib.import_module(SETS[set_name].tests_module))
    for path in test_files(extra):
        tests += [t for t in tests_in_module(load_test_file(path)) if t.set_name == set_name]
    return tests


class TestTimeout(BaseException):  # BaseException: student code's `except Exception` misses it
    pass


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Raise TestTimeout after ``seconds`` (main thread on Unix only; else no limit)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def fire(signum, frame):
        raise TestTimeout

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def student_names(func: Callable, seen: set | None = None) -> frozenset[str]:
    """``NAME`` of every ``student.NAME`` in ``func`` and in the module's functions it calls."""
    seen = seen if seen is not None else set()
    if func in seen:
        return frozenset()
    seen.add(func)
    try:
        tree = parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return frozenset()
    names: set[str] = set()
    module_globals = getattr(func, "__globals__", {})
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "student"
            and node.attr != "has"
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = module_globals.get(node.func.id)
            if inspect.isfunction(helper) and helper.__module__ == func.__module__:
                names |= student_names(helper, seen)
    return frozenset(names)
