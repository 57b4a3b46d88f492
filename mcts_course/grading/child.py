"""The child process that runs one submission's code against one exercise set's tests.

Started by :mod:`mcts_course.grading.sandbox` as ``python -m mcts_course.grading.child`` with a
JSON job on stdin.  It caps its own memory, file size and CPU time, imports the tests (and
through them the reference solutions), then blocks ``mcts_course.solutions`` before it runs the
student's code, and reports one JSON line per event on the pipe whose descriptor the job names:
``imported`` / ``import_error``, then ``start`` and ``result`` for each test, then ``done``.
The parent enforces the time limits and restarts a child after the test that killed one.
"""

from __future__ import annotations

import dataclasses
import importlib.abc
import json
import os
import resource
import sys
import types


class SolutionsBlocker(importlib.abc.MetaPathFinder):
    """Refuses ``import mcts_course.solutions`` (and remembers that someone tried)."""

    attempted = False

    def find_spec(self, name, path=None, target=None):
        if name == "mcts_course.solutions" or name.startswith("mcts_course.solutions."):
            SolutionsBlocker.attempted = True
            raise ImportError(
                "importing mcts_course.solutions (the reference solutions) is not allowed "
                "in a submission"
            )
        return None


def block_solutions() -> None:
    import mcts_course

    sys.meta_path.insert(0, SolutionsBlocker())
    for name in [n for n in sys.modules if n.startswith("mcts_course.solutions")]:
        del sys.modules[name]
    if hasattr(mcts_course, "solutions"):
        delattr(mcts_course, "solutions")


def limit_resources(memory_mb: int, cpu_seconds: int) -> None:
    limits = [
        (resource.RLIMIT_AS, memory_mb << 20),
        (resource.RLIMIT_FSIZE, 64 << 20),  # no disk filling through print or files
        (resource.RLIMIT_CPU, cpu_seconds),
    ]
    for kind, value in limits:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, hard))


def main() -> None:
    job = json.loads(sys.stdin.read())
    channel = os.fdopen(job["fd"], "w", buffering=1)

    def emit(**event) -> None:
        channel.write(json.dumps(event) + "\n")
        channel.flush()

    limit_resources(job["memory_mb"], job["cpu_seconds"])

    from mcts_course.grading.framework import (
        CappedWriter,
        Student,
        TestTimeout,
        alarm,
        collect_tests,
        describe_error,
        run_test,
    )

    tests = [
        dataclasses.replace(t, timeout=t.timeout * job["timeout_scale"])
        for t in collect_tests(job["set"], job["extra_tests"])
    ]
    block_solutions()
    if job["workdir"] not in sys.path:
        sys.path.append(job["workdir"])  # so a file can import its sibling files

    module = types.ModuleType("submission")
    module.__file__ = job["code_path"]
    sys.modules["submission"] = module
    printed = CappedWriter()
    old = sys.stdout, sys.stderr
    try:
        with open(job["code_path"], encoding="utf-8", errors="replace") as f:
            code = f.read()
        sys.stdout = sys.stderr = printed
        with alarm(job["import_timeout"]):
            exec(compile(code, job["display_name"], "exec"), module.__dict__)
    except BaseException as error:  # noqa: BLE001 - a syntax error, an exception, sys.exit...
        sys.stdout, sys.stderr = old
        if isinstance(error, TestTimeout):
            message = f"running your file took longer than {job['import_timeout']} s"
        elif isinstance(error, SyntaxError):
            message = f"SyntaxError: {error.msg} (line {error.lineno})"
        else:
            message = describe_error(error, tests[0]) if tests else repr(error)
        emit(event="import_error", message=message, solutions=SolutionsBlocker.attempted)
        channel.close()
        os._exit(0)
    sys.stdout, sys.stderr = old
    emit(event="imported", printed=printed.getvalue(), solutions=SolutionsBlocker.attempted)

    student = Student(module.__dict__)
    for index in range(job["start"], len(tests)):
        emit(event="start", index=index)
        result = run_test(tests[index], student, use_alarm=True)
        emit(event="result", index=index, solutions=SolutionsBlocker.attempted, **result)
    emit(event="done")
    channel.close()
    os._exit(0)  # skip the student's atexit handlers and finalizers


if __name__ == "__main__":
    main()
