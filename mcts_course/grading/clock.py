"""The one home of a question's time limit: what counts as the student's time, and when a
question is over.

A test allows the student's code ``budget`` seconds.  Wherever the grader can count the CPU
time of every process of the submission (its cgroup's ``cpuacct`` as root, else the processes of
its pid namespace from ``/proc``: the teaching assistant's user namespaces), the budget is CPU
seconds: a loaded machine (other jobs of the batch, other users) slows the student's code
without costing it points, and code that spins is stopped as soon as it has had its seconds.
Code that uses no CPU and does not answer (it sleeps, it waits, or the machine gives it nothing)
is stopped by a wall-clock backstop, :data:`BACKSTOP` times the budget (plus
:data:`BACKSTOP_FLOOR`), and that stop is :data:`UNDER_LOAD`: not a plain "timed out" but a
grading the instructor must look at (the batch's row is not "graded" and ``grade`` exits 1).
The backstop counts only the time the grader waits for the student: its own work on each line
(reading the clock, parsing, answering a callback) is set aside (:meth:`QuestionClock.grader_work`).
Without namespaces (one submission in a container of its own, Gradescope's) the budget is
wall seconds, as the student's process has no neighbour there.

Reading the disk costs a machine more than CPU shows: a process reading with ``O_DIRECT``, or
after dropping a file from the page cache, waits on the device and uses almost no CPU (3.7 GB
in 3 s for 0.38 s of CPU: red team 31, 05), and no cgroup of a teaching assistant's run caps
I/O.  So where CPU seconds count, so do the bytes the submission's processes made the kernel
fetch from storage: :data:`DISK_MB_PER_SECOND` of them cost a second of the budget
(:func:`student_seconds`).  An exercise reads nothing from the disk once its imports are done.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

BACKSTOP = 4.0  # wall seconds per second of budget before a question that used no CPU is stopped
BACKSTOP_FLOOR = 2.0  # wall seconds added: a tiny budget still allows the round trips
POLL = 0.1  # seconds between two readings of the CPU time while a question runs
# A reading of the CPU time is kept this long: each walks /proc (twice without a cgroup), and a
# flood of lines read it at each line, 140 us of the grader's a line (red team 43, 01)
READING_KEPT = 0.01
TIMED_OUT = "timed out"
UNDER_LOAD = "timed out under load"  # the backstop fired: the grading is in doubt
DISK_MB_PER_SECOND = 100  # MB read from storage that cost one second of a question's budget


def student_seconds(cpu: float | None, disk_bytes: float | None) -> float | None:
    """A submission's time so far: its CPU seconds, and its reads from storage at
    :data:`DISK_MB_PER_SECOND` (None when its CPU time is not known)."""
    if cpu is None:
        return None
    return cpu + (disk_bytes or 0.0) / (DISK_MB_PER_SECOND << 20)


class QuestionClock:
    """The time of one question: ``cpu`` reads the CPU seconds used so far by every process of
    the submission (None when it cannot: wall seconds count then)."""

    def __init__(self, budget: float, cpu: Callable[[], float | None] | None = None):
        self.budget = budget
        self.started = time.monotonic()
        self.cpu = cpu
        self.cpu_start = cpu() if cpu is not None else None
        if self.cpu_start is None:
            self.cpu = None
        self._reading, self._read_at = self.cpu_start, self.started
        self.aside = 0.0  # wall seconds of the grader's own work: no wait for the student
        self.charged = 0.0  # the grader's CPU seconds spent on the student's lines: its own

    @contextmanager
    def grader_work(self) -> Iterator[None]:
        """Time the grader spends on its own work (reading the clock, a line, a callback):
        set aside from the wall seconds the backstop counts."""
        began = time.monotonic()
        try:
            yield
        finally:
            self.aside += time.monotonic() - began

    @property
    def counts_cpu(self) -> bool:
        return self.cpu is not None

    def wall(self) -> float:
        """Wall seconds of the question, the grader's own work left out."""
        return time.monotonic() - self.started - self.aside

    def used(self, fresh: bool = False) -> float:
        """The student's seconds so far: CPU seconds (and :attr:`charged`), else wall seconds
        (round trips and the grader's parsing included, as the budget has always counted them).
        The CPU time is read again once :data:`READING_KEPT` has passed, or when ``fresh``."""
        if self.cpu is not None:
            if fresh or time.monotonic() - self._read_at >= READING_KEPT:
                self._reading, self._read_at = self.cpu(), time.monotonic()
            now = self._reading
            if now is not None and self.cpu_start is not None:
                return max(0.0, now - self.cpu_start) + self.charged
            return self.wall()  # the processes are gone: what is left of the limit is wall time
        return time.monotonic() - self.started

    def backstop(self) -> float:
        return BACKSTOP * self.budget + BACKSTOP_FLOOR

    def over(self) -> str | None:
        """Why the question is over (:data:`TIMED_OUT`, :data:`UNDER_LOAD`), or None."""
        if self.used() >= self.budget:
            return TIMED_OUT
        if self.cpu is not None and self.wall() >= self.backstop():
            return UNDER_LOAD
        return None

    def wait(self) -> float:
        """How long to wait for the student's next line before looking at the clock again."""
        if self.cpu is None:
            return max(0.0, self.budget - self.used())
        left = min(self.budget - self.used(), self.backstop() - self.wall())
        return min(max(left, 0.005), POLL)

    def write_deadline(self) -> float:
        """The monotonic time by which a line to the student must be written (a process that
        does not read uses no CPU: only the backstop can end that wait)."""
        if self.cpu is None:
            return self.started + self.budget
        return self.started + self.aside + self.backstop()
