"""Run a submission's code in child processes, one exercise set at a time, safely.

Every test runs in a child process (:mod:`mcts_course.grading.child`) with a memory cap
(``RLIMIT_AS``), a file-size cap and a CPU cap; its printing is captured and cut.  The parent
reads the child's events with a deadline per test: a child that overruns a test's time limit is
killed (its whole process group), and one that dies (``os._exit``, a crash, the memory cap) costs
only the test it was running: a new child carries on with the next test.  Code that fails to
import fails every test of its set with the reason.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcts_course.grading.framework import GradingTest
from mcts_course.grading.sources import Source

IMPORT_TIMEOUT = 30.0  # seconds to start a child and run the student's file
GRACE = 5.0  # seconds the parent waits beyond a test's own limit before killing the child
LOG_CAP = 1500  # characters of a dead child's stderr quoted in the report


def _child_env() -> dict:
    env = dict(os.environ)
    env.update(
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        MPLBACKEND="Agg",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
    )
    return env


class _Lines:
    """Lines from a pipe, with a timeout."""

    def __init__(self, fd: int):
        self.fd, self.buffer = fd, b""

    def read(self, timeout: float) -> str | None | bool:
        """A line; None at end of file; False when the timeout passes first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > 1 << 22:  # garbage on the channel: stop reading it
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _death(proc: subprocess.Popen, log: Path, memory_mb: int) -> str:
    """Why a child ended early, from its exit status and the tail of its stderr."""
    code = proc.wait()
    if code < 0:
        name = signal.Signals(-code).name
        reason = f"the process was killed by {name}"
        if -code == signal.SIGXCPU:
            reason += " (CPU time limit)"
        elif -code == signal.SIGXFSZ:
            reason += " (it wrote too much output)"
    else:
        reason = f"the process exited with status {code} (os._exit or a crash?)"
    try:
        tail = log.read_text(errors="replace")[-LOG_CAP:].strip()
    except OSError:
        tail = ""
    if "MemoryError" in tail or "Cannot allocate memory" in tail:
        reason += f" (out of memory: the cap is {memory_mb} MB)"
    return reason + (f"\nLast output:\n{tail}" if tail else "")


def _failed(message: str) -> dict:
    return {"passed": False, "score": 0.0, "output": message, "seconds": 0.0}


def run_set(
    source: Source,
    set_name: str,
    tests: list[GradingTest],
    extra_tests: list[str] | None = None,
    memory_mb: int = 1024,
    timeout_scale: float = 1.0,
) -> list[dict]:
    """Run ``tests`` on ``source`` in child processes; one result dict per test, in order.

    ``tests`` carry their time limits already multiplied by ``timeout_scale``; the child is
    told the scale so that it applies the same limits.
    """
    results: list[dict | None] = [None] * len(tests)
    notes = "\n".join(source.notes)
    with tempfile.TemporaryDirectory(prefix="mcts-grade-") as tmp:
        tmp = Path(tmp)
        code_path = tmp / f"submission_{set_name}.py"
        code_path.write_text(source.code, encoding="utf-8")
        job = {
            "set": set_name,
            "code_path": str(code_path),
            "display_name": source.path.name,
            "workdir": str(source.path.parent.resolve()),
            "extra_tests": [str(Path(p).resolve()) for p in extra_tests or []],
            "memory_mb": memory_mb,
            "import_timeout": IMPORT_TIMEOUT,
            "timeout_scale": timeout_scale,
            "log": str(tmp / "child.log"),
        }
        start, solutions, import_error = 0, False, None
        while start < len(tests) and import_error is None:
            start, solutions, import_error = _run_child(job, tests, start, results, solutions)
    if import_error is not None:
        for i, result in enumerate(results):
            if result is None:
                results[i] = _failed(f"your code could not be loaded: {import_error}")
    if solutions:
        why = (
            "no points for this exercise: the submission imports the reference solutions "
            "(mcts_course.solutions)"
        )
        results = [_failed(why) for _ in tests]
    if notes:
        for result in results:
            result["output"] = (result["output"] + "\nNote: " + notes).strip()
    return results  # type: ignore[return-value]


def _run_child(job: dict, tests, start: int, results: list, solutions: bool):
    """One child from test ``start`` on; returns (next start, solutions seen, import error)."""
    read_fd, write_fd = os.pipe()
    log, memory_mb = Path(job["log"]), job["memory_mb"]
    job = dict(
        job,
        start=start,
        fd=write_fd,
        cpu_seconds=int(IMPORT_TIMEOUT + sum(t.timeout for t in tests[start:]) + 10),
    )
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcts_course.grading.child"],
            stdin=subprocess.PIPE,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            pass_fds=(write_fd,),
            cwd=log.parent,
            env=_child_env(),
            start_new_session=True,
        )
    os.close(write_fd)
    try:
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    lines, current, timeout = _Lines(read_fd), None, IMPORT_TIMEOUT + GRACE
    imported = False
    try:
        while True:
            line = lines.read(timeout)
            if line is False:  # deadline passed
                _kill(proc)
                if not imported:
                    return (
                        start,
                        solutions,
                        (f"loading your code took longer than {IMPORT_TIMEOUT:g} s"),
                    )
                results[current] = _failed(
                    f"took longer than the time limit of {tests[current].timeout:g} s "
                    "(an infinite loop?); the test was stopped"
                )
                return current + 1, solutions, None
            if line is None:  # the child is gone
                reason = _death(proc, log, memory_mb)
                if not imported:
                    return start, solutions, reason
                current = start if current is None else current
                results[current] = _failed(f"this test crashed: {reason}")
                return current + 1, solutions, None
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            solutions = solutions or bool(event.get("solutions"))
            kind = event.get("event")
            if kind == "import_error":
                _kill(proc)
                return start, solutions, event["message"]
            if kind == "imported":
                imported, timeout = True, GRACE + 10
            elif kind == "start":
                current = event["index"]
                timeout = tests[current].timeout + GRACE
            elif kind == "result":
                index = event["index"]
                passed = event.get("passed") is True
                results[index] = {
                    "passed": passed,
                    "score": tests[index].points if passed else 0.0,
                    "output": str(event.get("output", "")),
                    "seconds": event.get("seconds", 0.0),
                }
                current, timeout = None, GRACE + 10
                start = index + 1
            elif kind == "done":
                proc.wait(timeout=10)
                return len(tests), solutions, None
    finally:
        os.close(read_fd)
        if proc.poll() is None:
            _kill(proc)
