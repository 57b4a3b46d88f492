"""``check(...)`` in a notebook: the grading tests, run by pytest in the notebook's own process,
on the functions the notebook's cells defined.

Why plain ``pytest.main`` and not ipytest: ipytest runs tests *written in the notebook* (it
collects the notebook's own ``test_*`` functions), while here the tests live in the package and
the notebook supplies the code under test.  ipytest ends in ``pytest.main`` in the kernel's
process too; calling it directly, with a small plugin object that hands the notebook's
namespace to :mod:`mcts_course.grading.plugin`, runs exactly the tests and points of
``mcts-course check`` (same modules, same plugin) and needs nothing beyond pytest.

There is no isolation here (feedback, not a grade): the tests call the functions in this
process, through the same plain-data questions as the grader
(:class:`~mcts_course.grading.server.Server`).  A time limit is an alarm (SIGALRM, main thread,
which is where a kernel runs its cells): its handler names the innermost function of the
notebook on the stack, the test reports "your `simulate` did not return within ..." and the
tests using that function are not run, so one infinite loop costs one time limit.  A loop that
swallows every exception (``except BaseException``) cannot be stopped from inside the process:
interrupt the kernel (``mcts-course check`` in a terminal runs the code in a process it kills).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from mcts_course.grading.invocation import pytest_args
from mcts_course.grading.sets import exercise_set

if TYPE_CHECKING:
    from mcts_course.grading.runner import SetRun


class TestTimeout(BaseException):  # BaseException: the student's `except Exception` misses it
    pass


@contextlib.contextmanager
def alarm(seconds: float, fire: Callable[..., Any]) -> Iterator[None]:
    """Call ``fire(signum, frame)`` after ``seconds`` (main thread on Unix only; else no limit)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def notebook_code(namespace: dict[Any, Any]) -> dict[types.CodeType, str]:
    """The code objects of the functions and methods the notebook defined, by name (a method by
    its class's name, the name the tests and the contract's dependencies use)."""
    module = namespace.get("__name__")
    codes: dict[types.CodeType, str] = {}
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == module:
            codes[value.__code__] = name
        elif isinstance(value, type) and value.__module__ == module:
            for member in vars(value).values():
                function = getattr(member, "__func__", member)
                if isinstance(function, types.FunctionType):
                    codes[function.__code__] = name
    return codes


class NotebookTransport:
    """The student's code in this very process; answers like the student's process does."""

    def __init__(self, namespace: dict[Any, Any]):
        from mcts_course.grading.server import Server

        self._callback: Callable[[dict[Any, Any]], dict[Any, Any]] | None = None
        self.server = Server(namespace, "<notebook>", self._ask_grader)
        self.names = {n for n, v in namespace.items() if callable(v)}
        self.codes = notebook_code(namespace)

    def _ask_grader(self, message: dict[Any, Any]) -> dict[Any, Any]:
        assert self._callback is not None  # set by exchange() before the student's code runs
        answer: dict[Any, Any] = json.loads(
            json.dumps(self._callback(json.loads(json.dumps(message))))
        )
        return answer

    def _innermost(self, frame: types.FrameType | None) -> str | None:
        while frame is not None:
            if frame.f_code in self.codes:
                return self.codes[frame.f_code]
            frame = frame.f_back
        return None

    def exchange(
        self,
        message: dict[Any, Any],
        budget: float,
        callback: Callable[[dict[Any, Any]], dict[Any, Any]],
        function: str,
    ) -> tuple[dict[Any, Any], float]:
        from mcts_course.grading.remote import StudentGone

        self._callback = callback
        stopped: list[str] = []

        def fire(signum: int, frame: types.FrameType | None) -> None:
            stopped.append(self._innermost(frame) or function)
            raise TestTimeout

        started = time.monotonic()
        try:
            with alarm(max(budget, 0.001), fire):
                reply = self.server.handle(json.loads(json.dumps(message)))
        except TestTimeout:  # the alarm rang between the answer and its cancelling
            pass
        if stopped:  # even if the student's code caught TestTimeout and went on
            raise StudentGone(stopped[0], "timed out", "timed out")
        return json.loads(json.dumps(reply)), time.monotonic() - started

    def alive(self) -> bool:
        return True

    def kill(self) -> None:
        pass


def local_run(namespace: dict[Any, Any], set_name: str) -> SetRun:
    """A SetRun whose student is ``namespace`` (for the plugin, while check() runs it)."""
    from mcts_course.grading.runner import SetRun

    def start() -> tuple[NotebookTransport, set[str]]:
        transport = NotebookTransport(namespace)
        return transport, transport.names

    return SetRun(set_name, start)


class _Notebook:
    """The plugin object check() gives pytest: the namespace in, the outcomes out."""

    def __init__(self, namespace: dict[Any, Any]):
        self.namespace = namespace
        self.outcomes: list[Any] = []

    def pytest_configure(self, config: Any) -> None:
        from mcts_course.grading.plugin import IN_PROCESS

        config.stash[IN_PROCESS] = lambda set_name: local_run(self.namespace, set_name)

    def pytest_sessionfinish(self, session: Any) -> None:
        from mcts_course.grading.plugin import GRADING

        self.outcomes = list(session.config.stash[GRADING].outcomes.values())


class WholeLines(io.TextIOBase):
    """pytest's output in a kernel, passed on a whole line at a time: pytest writes and flushes
    its progress ("F", ".") one test at a time, which a notebook (and the book made from it)
    would otherwise keep as one output per character, shown one under the other."""

    def __init__(self, out: Any):
        self.out, self.pending = out, ""

    def write(self, text: str) -> int:
        self.pending += text
        if "\n" in self.pending:
            lines, _, self.pending = self.pending.rpartition("\n")
            self.out.write(lines + "\n")
            self.out.flush()
        return len(text)

    def flush(self) -> None:  # a line is passed on when it is complete
        pass

    def finish(self) -> None:
        if self.pending:
            self.out.write(self.pending)
            self.pending = ""
        self.out.flush()

    def isatty(self) -> bool:  # pytest colours its report when the kernel's stream says so
        return bool(getattr(self.out, "isatty", lambda: False)())


class Report:
    """The result of :func:`check`: ``score``, ``max_score``, ``by_exercise``, ``outcomes``."""

    def __init__(self, outcomes: list[Any]):
        from mcts_course.grading.report import by_exercise

        self.outcomes = outcomes
        self.score = sum(o.score for o in outcomes)
        self.max_score = sum(o.max_score for o in outcomes)
        self.by_exercise = by_exercise(outcomes)

    def __repr__(self) -> str:
        return f"Report(score={self.score:g}, max_score={self.max_score:g})"


def check(
    set_name: str,
    namespace: dict[Any, Any] | None = None,
    exercise: str | None = None,
    show_failures: bool = True,
) -> Report:
    """Run the grading tests of ``set_name`` on the functions defined in ``namespace``.

    ``namespace`` defaults to the caller's globals (the notebook's); ``exercise`` keeps the
    tests of one exercise (e.g. ``"ttt_backprop"``).  pytest prints each failure with its hint
    (``show_failures=False``: the points only) and the points table; a Report is returned.
    """
    import pytest

    spec = exercise_set(set_name)  # a clear error for an unknown set
    if exercise is not None and exercise not in spec.exercises:
        raise ValueError(f"no exercise {exercise!r} in {set_name}: {', '.join(spec.exercises)}")
    if namespace is None:
        caller = inspect.currentframe()
        caller = caller.f_back if caller is not None else None
        if caller is None:  # an interpreter without frames: the caller must say
            raise ValueError("check() could not find the caller's globals: pass namespace=")
        namespace = caller.f_globals
    # sys-level capture: a kernel's own capture of file descriptors 1 and 2 stays untouched;
    # each failure once, with its hint: no short summary (-rN) listing them again by file path
    options = ["-q", "--capture=sys", "--tb=short" if show_failures else "--tb=no", "-rN"]
    args = pytest_args(
        sets=[set_name], exercises=[] if exercise is None else [exercise], options=options
    )
    notebook = _Notebook(namespace)
    lines = WholeLines(sys.stdout)
    try:
        with contextlib.redirect_stdout(lines):
            pytest.main(args, plugins=[notebook])
    finally:
        lines.finish()
    return Report(notebook.outcomes)
