"""Running one exercise set's tests on one submission file: the referee loop.

The tests run here, in the grader's process; the student's code runs in a
:class:`~mcts_course.grading.remote.StudentProcess` and only answers.  Each test gets a budget
of the student's time (its ``timeout``).  When a function overruns it or kills its process, the
process is replaced for the next test, and every later test that calls that function (directly
or through the functions the contract says it uses, :data:`~mcts_course.grading.sets.DEPENDS`)
is reported at once as not run, instead of waiting again.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcts_course.grading.framework import GradingTest
from mcts_course.grading.remote import (
    Connection,
    ImportFailed,
    LocalTransport,
    MissingDefinition,
    StudentError,
    StudentGone,
    StudentProcess,
    describe_student_error,
    public_package,
    unprivileged_ids,
)
from mcts_course.grading.sets import DEPENDS, SETS
from mcts_course.grading.sources import Source

PRINT_CAP = 2000  # characters of the student's printing quoted per test


@dataclass
class Result:
    passed: bool
    score: float
    output: str
    seconds: float = 0.0
    status: str = "passed"  # passed, failed, not run, timed out, crashed
    student_seconds: float = 0.0  # the part of ``seconds`` the student's process took


def closure(names: frozenset[str] | set[str], set_name: str) -> set[str]:
    """``names`` and every function they use by the contract of ``set_name``."""
    depends = DEPENDS.get(set_name, {})
    found, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(depends.get(name, ()))
    return found


def describe(error: BaseException, test: GradingTest) -> str:
    """The message of a failed test, from what went wrong."""
    if isinstance(error, AssertionError):
        return str(error) or "assertion failed"
    if isinstance(error, MissingDefinition):
        return str(error)
    if isinstance(error, StudentError):
        return describe_student_error(error)
    # the grader choked on the student's answer (e.g. None where a Node was due)
    return f"your answer could not be used: {type(error).__name__}: {error}"


class SetRunner:
    """Runs a set's tests against one source, starting (and restarting) the student's process.

    ``start()`` returns a fresh ``(transport, names, printed)``; it raises ImportFailed.
    """

    def __init__(self, set_name: str, tests: list[GradingTest], start: Callable):
        self.set_name, self.tests, self.start = set_name, tests, start
        self.transport = None
        self.names: set[str] = set()
        self.printed_at_import = ""
        self.broken: dict[str, str] = {}  # function -> "timed out" / "crashed"
        self.failed: set[str] = set()  # functions whose own test failed

    def run(self, on_result: Callable[[GradingTest, Result], None] | None = None) -> list[Result]:
        results = []
        for test in self.tests:
            started = time.perf_counter()
            result = self.run_one(test)
            result.seconds = round(time.perf_counter() - started, 3)
            results.append(result)
            if on_result:
                on_result(test, result)
        if self.transport is not None:
            self.transport.kill()
        return results

    def run_one(self, test: GradingTest) -> Result:
        hint = f"\nHint: {test.hint}" if test.hint else ""
        needed = closure(test.uses, self.set_name)
        for function, what in self.broken.items():
            if function in needed:
                return Result(
                    False,
                    0.0,
                    f"not run: `{function}` {what} in a test above{hint}",
                    0.0,
                    "not run",
                )
        if self.transport is None or not self.transport.alive():
            try:
                self.transport, self.names, self.printed_at_import = self.start()
            except ImportFailed as error:
                self.transport = _Dead(str(error))
                self.names = set()
        if isinstance(self.transport, _Dead):
            return Result(False, 0.0, f"{self.transport.why}{hint}", 0.0, "failed")
        connection = Connection(self.transport)
        from mcts_course.grading.remote import Student

        student = Student(connection, self.names)
        try:
            connection.begin_test(test.timeout)
            test.func(student)
            passed, message, status = True, "", "passed"
        except StudentGone as gone:
            passed, status = False, gone.kind
            self.broken.setdefault(gone.function, gone.kind)
            if gone.kind == "timed out":
                message = (
                    f"stopped: your `{gone.function}` did not return within this test's time "
                    f"limit of {test.timeout:g} s (an infinite loop? e.g. `state.play(a)` "
                    "without `state = ...`)"
                )
            else:
                message = f"the process running your code died in `{gone.function}`: {gone.why}"
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - the test's verdict, whatever happened
            passed, message, status = False, describe(error, test), "failed"
        if not passed:
            direct = [n for n in dict.fromkeys(connection.direct)]
            # The function the test is about is the first it calls; the others it calls to
            # find out why (a diagnosis: mcts_search's test re-runs the steps) are not blamed.
            if direct:
                self.failed.add(direct[0])
            culprits = sorted((connection.called - set(direct)) & self.failed)
            if culprits and direct:
                names = ", ".join(f"`{c}`" for c in culprits)
                message += (
                    f"\nNote: `{direct[0]}` calls your {names}, which failed in a test above: "
                    "fix that first"
                )
        printed = "".join(connection.out)
        if printed.strip():
            if len(printed) > PRINT_CAP:
                printed = printed[:PRINT_CAP] + f"\n... ({len(printed) - PRINT_CAP} characters cut)"
            message += ("\n" if message else "") + "Your code printed:\n" + printed.rstrip()
        if not passed:
            message += hint  # last, so that no cut output hides it
        return Result(
            passed, test.points if passed else 0.0, message.strip(), 0.0, status, connection.spent
        )


class _Dead:
    """Stands for a submission file that could not be loaded."""

    def __init__(self, why: str):
        self.why = why

    def alive(self) -> bool:
        return True

    def kill(self) -> None:
        pass


def run_set(
    source: Source,
    set_name: str,
    tests: list[GradingTest],
    memory_mb: int = 1024,
    public_root: Path | None = None,
    on_result: Callable[[GradingTest, Result], None] | None = None,
) -> list[Result]:
    """Run ``tests`` on ``source``, the student's code in a separate process."""
    with tempfile.TemporaryDirectory(prefix="mcts-grade-") as tmp:
        tmp = Path(tmp)
        tmp.chmod(0o755)  # the unprivileged student process reads its code here
        if public_root is None:
            public_root = public_package(tmp / "public")
        work = tmp / "work"
        work.mkdir()
        ids = unprivileged_ids()
        if ids is not None:
            import os

            os.chown(work, *ids)
        code_path = work / f"submission_{set_name}.py"
        code_path.write_text(source.code, encoding="utf-8")
        code_path.chmod(0o644)
        cpu = int(sum(t.timeout for t in tests) + 60)

        def start():
            process = StudentProcess(
                code_path,
                source.path.name,
                str(source.path.parent.resolve()),
                list(SETS[set_name].functions) if set_name in SETS else [],
                public_root,
                memory_mb,
                cpu,
            )
            printed = process.start()
            return process, process.names, printed

        results = SetRunner(set_name, tests, start).run(on_result)
    notes = "\n".join(source.notes)
    if notes:
        for result in results:
            result.output = (result.output + "\nNote: " + notes).strip()
    return results


def run_local(
    namespace: dict,
    set_name: str,
    tests: list[GradingTest],
    on_result: Callable[[GradingTest, Result], None] | None = None,
) -> list[Result]:
    """Run ``tests`` on functions defined in this process (a notebook): same questions, no
    isolation (the time limits use SIGALRM in the main thread)."""
    functions = list(SETS[set_name].functions) if set_name in SETS else []

    def start():
        transport = LocalTransport(namespace, functions)
        return transport, transport.names, ""

    return SetRunner(set_name, tests, start).run(on_result)
