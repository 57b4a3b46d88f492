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
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import importlib.util
import io
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mcts_course.grading.sets import SET_OF, SETS

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
OUTPUT_CAP = 2000  # characters of a test's printed output kept in its report


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


def points(
    value: float,
    exercise: str,
    *,
    name: str | None = None,
    timeout: float = 30.0,
    hint: str = "",
    visibility: str = "visible",
    exercise_set: str | None = None,
) -> Callable[[Callable], Callable]:
    """Mark a function as a grading test worth ``value`` points for ``exercise``.

    ``exercise`` is one of :data:`mcts_course.grading.sets.EXERCISES`, or a new name together
    with ``exercise_set`` (the file it grades).  ``timeout`` is in seconds of wall-clock time;
    ``hint`` is shown when the test fails; ``visibility`` follows Gradescope.
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


def tests_in_module(module) -> list[GradingTest]:
    """The grading tests of a module, in the order they are written."""
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


# -- the student's namespace ---------------------------------------------------------------
class MissingDefinition(AttributeError):
    pass


class Student:
    """The names a submission defines; a missing one fails the test with a clear message."""

    def __init__(self, namespace: dict):
        self._namespace = namespace

    def __getattr__(self, name: str):
        try:
            return self._namespace[name]
        except KeyError:
            raise MissingDefinition(f"`{name}` is not defined in your code") from None

    def has(self, name: str) -> bool:
        return name in self._namespace


# -- running one test ------------------------------------------------------------------------
class CappedWriter(io.TextIOBase):
    """A text stream that keeps the first ``cap`` characters and counts the rest."""

    def __init__(self, cap: int = OUTPUT_CAP):
        self.cap, self.parts, self.kept, self.dropped = cap, [], 0, 0

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        room = self.cap - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n... ({self.dropped} more characters of output cut)"
        return text


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


def describe_error(error: BaseException, test: GradingTest) -> str:
    """A readable message for an exception raised by a test or the student's code."""
    if isinstance(error, AssertionError):
        return str(error) or "assertion failed"
    if isinstance(error, MissingDefinition):
        return str(error)
    if isinstance(error, NotImplementedError):
        return "not implemented yet (your function raises NotImplementedError)"
    if isinstance(error, TestTimeout):
        return f"took longer than the time limit of {test.timeout:g} s (an infinite loop?)"
    if isinstance(error, SystemExit):
        return f"your code called sys.exit({error.code!r})"
    if isinstance(error, MemoryError):
        return "ran out of memory (the grader caps memory; a huge allocation?)"
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return "your code wrote too much output (the grader caps the size of its output)"
    here = str(Path(__file__).parent)
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not (f.filename.startswith(here) and f.filename.endswith(("framework.py", "child.py")))
    ]
    where = "".join(traceback.format_list(frames[-4:]))[-1500:]
    return f"{type(error).__name__}: {error}" + (
        f"\nTraceback (last calls):\n{where}" if where else ""
    )


def run_test(test: GradingTest, student: Student, *, use_alarm: bool = False) -> dict:
    """Run one test in this process; its printed output is captured and capped."""
    out = CappedWriter()
    started = time.perf_counter()
    passed, message = False, ""
    old = sys.stdout, sys.stderr
    try:
        sys.stdout = sys.stderr = out
        with alarm(test.timeout) if use_alarm else contextlib.nullcontext():
            test.func(student)
        passed = True
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - anything the student's code throws
        message = describe_error(error, test)
    finally:
        sys.stdout, sys.stderr = old
    if not passed and test.hint:
        message += f"\nHint: {test.hint}"
    printed = out.getvalue()
    if printed:
        message += ("\n" if message else "") + "Your code printed:\n" + printed
    return {
        "passed": passed,
        "score": test.points if passed else 0.0,
        "output": message.strip(),
        "seconds": round(time.perf_counter() - started, 3),
    }
