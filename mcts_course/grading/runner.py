"""The referee's side of one exercise set of one submission, for the pytest plugin.

The tests run in pytest's process, with the reference solutions; the student's code runs in a
:class:`~mcts_course.grading.remote.StudentProcess` and only answers.  :class:`SetRun` starts
that process when a test first asks for it and again after it died, and remembers the functions
that overran a time limit or crashed: every later test calling one of them (directly or through
the functions the contract says it uses, :data:`~mcts_course.grading.sets.DEPENDS`) is not run,
instead of waiting out its limit again.  :func:`verdict` turns what a test raised into the
curated message a student reads (the hint last, so that no cut output hides it).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from mcts_course.grading.clock import UNDER_LOAD
from mcts_course.grading.delegation import library_delegation
from mcts_course.grading.pyparse import TooBig, TooDeep, once_per_text, parse, python_text
from mcts_course.grading.remote import (
    Connection,
    ImportFailed,
    MissingDefinition,
    Student,
    StudentError,
    StudentGone,
    StudentProcess,
    describe_student_error,
)
from mcts_course.grading.report import shown_name
from mcts_course.grading.sets import DEPENDS, SETS
from mcts_course.grading.sources import Source, solutions_import

PRINT_CAP = 2000  # characters of the student's printing quoted per test


class Unusable(Exception):
    """The submission cannot answer for this set (no file, a file that does not load...)."""


class DeadStudent:
    """Stands for a submission that cannot answer: every question fails with the reason, so that
    each test of the set fails (0 points) with the same message."""

    def __init__(self, why: str):
        self._why = why

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise Unusable(self._why)


def closure(names: frozenset[str] | set[str], set_name: str) -> set[str]:
    """``names`` and every function they use by the contract of ``set_name``."""
    depends: Mapping[str, tuple[str, ...]] = DEPENDS.get(set_name, {})
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(depends.get(name, ()))
    return found


def watched(set_name: str) -> list[str]:
    """The student's functions whose calls the grader follows (``student.ran``): the set's
    graded ones and those they use by contract (Connect Four's player uses mcts_search)."""
    spec = SETS.get(set_name)
    if spec is None:
        return []
    used = [n for names in spec.depends.values() for n in names if n not in spec.functions]
    return [*spec.functions, *dict.fromkeys(used)]


def student_names(func: Callable[..., Any], seen: set[Any] | None = None) -> frozenset[str]:
    """``NAME`` of every ``student.NAME`` in ``func`` and in the module's functions it calls
    (which of the student's functions a test needs, for "not run")."""
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
            and node.attr not in ("has", "ran")
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = module_globals.get(node.func.id)
            if inspect.isfunction(helper) and helper.__module__ == func.__module__:
                names |= student_names(helper, seen)
    return frozenset(names)


def missing_file(set_name: str) -> str:
    return (
        f"no file for {set_name} was found (expected {set_name}.py or a notebook with its "
        "functions)"
    )


class SetRun:
    """One set of one submission: the student's process (or an in-process transport) and what
    broke so far.  ``start()`` returns a fresh ``(transport, names)`` or raises ImportFailed."""

    def __init__(
        self,
        set_name: str,
        start: Callable[[], tuple[Any, set[str]]] | None,
        why: str = "",
        notes: list[str] | None = None,
    ):
        self.set_name, self.start, self.why = set_name, start, why
        self.notes = notes or []
        self.transport: Any = None
        self.names: set[str] = set()
        self.stage = 0  # of the tests asked so far: visible, later-shown, hidden
        self.outside = False  # a process was killed by a SIGKILL the grader did not send
        self.outside_visible = False  # ... one answering visible tests (the student is told)
        self.broken: dict[str, str] = {}  # function -> "timed out" / "crashed"
        self.failed: set[str] = set()  # functions whose own test failed
        self.reported = False  # why the set cannot answer was told in full in a test above
        self.load_under_load = False  # loading ran out of time on a busy machine: no grade

    @property
    def held_back(self) -> bool:
        """Whether a held-back test has asked: the process answering is then one whose death
        says nothing the student may read (killing itself can encode what it was asked)."""
        return self.stage > 0

    def unusable(self) -> str | None:
        """Why a test of a set that cannot answer (no file, a syntax error...) is not run, once
        a test above has told the reason in full; None otherwise.  One syntax error is one
        message with its line, not one per test with each test's unrelated hint."""
        if self.start is not None or not self.reported:
            return None
        headline = self.why.strip().splitlines()[0] if self.why.strip() else "unusable"
        return f"not run: {headline} (see the set's first test)"

    def not_run(self, needed: set[str]) -> str | None:
        """Why a test needing ``needed`` is not run (a function it uses broke above), or None."""
        for function, what in self.broken.items():
            if function in needed:
                return f"not run: `{function}` {what} in a test above"
        return None

    def student(
        self, budget: float, stage: int = 0
    ) -> tuple[Student | DeadStudent, Connection | None]:
        """The student as a test sees it, with ``budget`` seconds of the student's time;
        ``stage`` 1 for a later-shown test, 2 for a hidden one (:func:`plugin.stage`): each
        stage gets a process of its own, and from stage 1 on whether it is killed from outside
        is not told to the student (see :meth:`killed_outside`)."""
        if stage > self.stage:
            self.close()  # the earlier stage's process: it may remember what it was asked
            self.stage = stage
        if self.start is None:
            return DeadStudent(self.why), None
        if self.transport is None or not self.transport.alive():
            self._fold()  # a process that died
            try:
                self.transport, self.names = self.start()
            except ImportFailed as error:
                self.start, self.why = None, str(error)
                self.load_under_load = error.under_load
                self._killed(error.outside)  # while loading (red team 40, 02b)
                return DeadStudent(self.why), None
        connection = Connection(self.transport)
        connection.begin_test(budget)
        return Student(connection, self.names), connection

    def killed_outside(self, visible_only: bool = False) -> bool:
        """Whether a process of the set was killed by a SIGKILL the grader did not send (only
        one answering visible tests: a held-back tests' process may kill itself, as a bit of
        what it was asked, and the student is told only of the others)."""
        self._fold()
        return self.outside_visible if visible_only else self.outside

    def _fold(self) -> None:
        """Keep whether the current process was killed from outside, the visible tests' (told
        to the student) apart from the held-back ones'."""
        self._killed(bool(getattr(self.transport, "outside", False)))

    def _killed(self, outside: bool) -> None:
        """Keep whether a process was killed from outside, and whether the student is told."""
        self.outside |= outside
        if not self.held_back:
            self.outside_visible |= outside

    def close(self) -> None:
        """Kill the student's process (once: its pipes' descriptors are closed only once)."""
        if self.transport is not None:
            self._fold()
            self.transport.kill()
            self.transport = None


def _readable_files(source: Source) -> list[tuple[str, str]]:
    """``[(name, text)]``: the graded code and each .py file beside it that its process may
    import (:func:`~mcts_course.grading.sandbox.sibling_sources`, what the sandbox copies)."""
    from mcts_course.grading.sandbox import sibling_sources

    files = [(source.path.name, source.code)]
    for name, data in sibling_sources(source.path.parent):
        if name != source.path.name:
            files.append((name, python_text(data)))
    return files


def helper_files(source: Source | None, exercises: Iterable[Path] = ()) -> list[str]:
    """The .py files the sandbox copies beside ``source`` (which its code could import), but
    ``source`` and the other ``exercises`` (the files graded as exercises): for the instructor
    to read with the graded code.  The grader names them from the folder, not from the
    student's process, which could erase or forge a list of what it imported (red team 48)."""
    from mcts_course.grading.sandbox import sibling_sources

    if source is None:
        return []
    folder = source.path.parent
    graded = {source.path, *exercises}
    return [name for name, _ in sibling_sources(folder) if folder / name not in graded]


def unreadable(source: Source) -> str | None:
    """Why ``source`` gets no points because the graded code, or a .py file beside it, is
    nested deeper or is longer than the grader's static checks read (:class:`~.pyparse.TooDeep`,
    :class:`~.pyparse.TooBig`), or None.
    Such code would otherwise run unchecked (the checks skip a file they cannot parse: a real
    syntax error is reported when the file is loaded, but Python runs this one)."""
    for name, text in _readable_files(source):
        try:
            _parsed_once(text)
        except TooBig as error:
            return (
                f"no points for this exercise: {shown_name(name)} holds {error.msg} (no "
                "exercise needs that)"
            )
        except TooDeep as error:
            return (
                f"no points for this exercise: {shown_name(name)} is {error.msg}, deeper than the "
                "grader's "
                "checks read (no exercise needs that): write it flatter"
            )
        except SyntaxError:
            continue  # the student's own error, reported when the file is loaded
    return None


@once_per_text
def _parse_error(text: str) -> SyntaxError | None:
    """What :func:`parse` of ``text`` raised, if anything (the tree itself is not kept)."""
    try:
        parse(text)
    except SyntaxError as error:
        return error
    return None


def _parsed_once(text: str) -> None:
    """:func:`parse` of ``text``, its error (if any) remembered: every set of a submission
    checks the same files beside its code (red team 25, 05)."""
    found = _parse_error(text)
    if found is not None:
        raise found


def library_copies(source: Source, set_name: str) -> str | None:
    """Why ``source`` gets no points because a .py file its process could import (itself or a
    file beside it, which the sandbox copies) holds a copy of the library code ``set_name`` may
    not hand its work to (see :mod:`~mcts_course.grading.copies`), or None."""
    from mcts_course.grading.copies import library_copy

    for name, text in _readable_files(source):
        taken = library_copy(text, set_name)
        if taken is not None:
            return (
                f"no points for this exercise: {shown_name(name)} holds a copy of the library's "
                "own code "
                f"({taken}): the exercise is to write it, not to bring the library's along"
            )
    return None


def process_run(
    source: Source | None,
    set_name: str,
    public_root: Path,
    memory_mb: int,
    cpu_seconds: int,
) -> SetRun:
    """A SetRun whose student code is ``source``, run in a StudentProcess (its own sandbox)."""
    if source is None:
        return SetRun(set_name, None, missing_file(set_name))
    notes = list(source.notes)
    if source.refused:  # a symbolic link, a FIFO...: never followed, 0 points
        return SetRun(set_name, None, source.refused, notes)
    deep = unreadable(source)
    if deep is not None:
        return SetRun(set_name, None, deep, notes)
    where = solutions_import(source.everything or source.code)
    if where is not None:
        why = (
            f"no points for this exercise: {shown_name(source.path.name)} imports the reference "
            f"solutions (mcts_grader.solutions, {where})"
        )
        return SetRun(set_name, None, why, notes)
    taken = library_delegation(source.code, set_name)
    if taken is not None:
        why = (
            f"no points for this exercise: {shown_name(source.path.name)} hands it to the "
            "library's own "
            f"code ({taken}): the exercise is to write it (the given code's imports are fine)"
        )
        return SetRun(set_name, None, why, notes)
    copied = library_copies(source, set_name)
    if copied is not None:
        return SetRun(set_name, None, copied, notes)

    def start() -> tuple[StudentProcess, set[str]]:
        # The code goes through the pipe (code=): no file of it lies where the student's user
        # could replace it.  A SandboxError here (the code cannot be confined) is not caught:
        # the plugin stops the run (see plugin.student), no student code having run.
        process = StudentProcess(
            None,
            source.path.name,
            str(source.path.parent),  # the snapshot's copy: never the student's path again
            watched(set_name),
            public_root,
            memory_mb,
            cpu_seconds,
            code=source.code,
            exercise_set=set_name,
        )
        process.start()
        return process, process.names

    return SetRun(set_name, start, notes=notes)


def verdict(
    run: SetRun,
    connection: Connection | None,
    error: BaseException | None,
    hint: str,
    budget: float,
) -> tuple[str, str]:
    """``(status, message)`` of a test that raised ``error`` (None: it passed); status is
    passed, failed, timed out, timed out under load (:mod:`~mcts_course.grading.clock`'s
    backstop: the grading is in doubt) or crashed.  Records what broke in ``run``."""
    status, message = "passed", ""
    if isinstance(error, StudentGone):
        status = error.kind
        run.broken.setdefault(error.function, error.kind)
        if error.kind == "timed out" and error.questions:  # many questions, each quick
            message = (
                f"stopped: your code used up this test's time limit of {budget:g} s over "
                f"{error.questions} question{'s' if error.questions > 1 else ''}, the last to "
                f"your `{error.function}` (a function that never lets the search end?)"
            )
        elif error.kind == "timed out":
            message = (
                f"stopped: your `{error.function}` did not return within this test's time "
                f"limit of {budget:g} s (an infinite loop? e.g. `state.play(a)` without "
                "`state = ...`)"
            )
        elif error.kind == UNDER_LOAD:
            message = (
                f"stopped: your `{error.function}` did not return: {error.why}. This is not a "
                "grade: the instructor grades this submission again"
            )
        else:
            message = f"the process running your code died in `{error.function}`: {error.why}"
    elif error is not None:
        status = "failed"
        if isinstance(error, AssertionError):
            message = str(error) or "assertion failed"
        elif isinstance(error, Unusable):
            # The file as a whole: its reason, with the line of a syntax error, and no hint
            # (each test's hint is about its own function, not about loading the file).
            run.reported = True
            message, hint = str(error), ""
        elif isinstance(error, MissingDefinition):
            message = str(error)
        elif isinstance(error, StudentError):
            message = describe_student_error(error)
        else:  # the test choked on the student's answer (e.g. None where a Node was due)
            message = f"your answer could not be used: {type(error).__name__}: {error}"
    if connection is not None:
        if status != "passed":
            direct = list(dict.fromkeys(connection.direct))
            # The function the test is about is the first it calls; the others it calls to
            # find out why (a diagnosis: mcts_search's test re-runs the steps) are not blamed.
            if direct:
                run.failed.add(direct[0])
            culprits = sorted((connection.called - set(direct)) & run.failed)
            if culprits and direct:
                names = ", ".join(f"`{c}`" for c in culprits)
                message += (
                    f"\nNote: `{direct[0]}` calls your {names}, which failed in a test above: "
                    "fix that first"
                )
                # The test's own hint is about its own function; what to do first is the
                # failing function the test called through it.
                if hint:
                    hint = f"fix {names} first; then, if this still fails: {hint}"
        printed = "".join(connection.out)
        if printed.strip():
            if len(printed) > PRINT_CAP:
                printed = printed[:PRINT_CAP] + f"\n... ({len(printed) - PRINT_CAP} characters cut)"
            message += ("\n" if message else "") + "Your code printed:\n" + printed.rstrip()
    if status != "passed" and hint:
        message += f"\nHint: {hint}"
    if run.notes:
        message += "\nNote: " + "\n".join(run.notes)
    return status, message.strip()
