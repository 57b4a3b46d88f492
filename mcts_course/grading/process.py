"""The student's code as a process that answers: start it confined, ask, wait, stop it.

:class:`StudentProcess` starts :mod:`mcts_course.grading.server` in a
:class:`~mcts_course.grading.sandbox.Sandbox` from a copy of the package without the reference
solutions and the grading tests, sends it the submission's code through a pipe, and then
exchanges one JSON line per question and answer.  Every step on the grader's side is bounded:
a line is at most :data:`LINE_CAP` bytes, every read and every write has a deadline, a reply
that does not decode is the student's fault (0 for that test), and the process is stopped
(SIGSTOP) whenever no question is being answered, so that its code runs only on a test's time.
When it ends, every process of its sandbox dies with it.

A notebook's ``check`` has the same conversation with the student's code in its own process
(:class:`mcts_course.grading.notebook.NotebookTransport`): no isolation.
"""

from __future__ import annotations

import builtins
import collections
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, NoReturn

from mcts_course.grading.childpath import neutral_paths
from mcts_course.grading.clock import TIMED_OUT, UNDER_LOAD, QuestionClock, student_seconds
from mcts_course.grading.confine import ENDED, INIT_FD_ENV
from mcts_course.grading.pidns import (
    CONTINUE,
    STOPPED_STATES,
    ask_init,
    disk_bytes,
    forget,
    signal_namespace,
    stop_from_inside,
)
from mcts_course.grading.pidns import cpu_seconds as namespace_cpu_seconds
from mcts_course.grading.pidns import state as process_state
from mcts_course.grading.protocol import MAX_VALUES
from mcts_course.grading.pyparse import python_text
from mcts_course.grading.sandbox import (
    MEMORY_MB,
    Sandbox,
    SandboxError,
    read_regular,
    set_view,
    student_paths,
)

IMPORT_TIMEOUT = 10.0  # seconds to run the student's file, once the process has started
BOOT_TIMEOUT = 60.0  # seconds for the sandbox's process to start (no student code yet)
STACK_WAIT = 0.3  # seconds to wait for "where were you?" before killing a process
LINE_CAP = 8 << 20  # bytes of one answer (the largest honest one, a search tree: 2.3 MB)
# lines read in one question (stack reports, stray output, callbacks, the answer): a question
# of an honest search sends a few hundred (red team 25, 04: 330,000 lines of "{}")
QUESTION_LINES = 100_000
# Characters of the lines of one question that answer nothing (stack reports, stray lines): each
# is parsed in the grader's own process (8 MB of them cost it 6 s; red team 30, 10)
STRAY_CAP = 1 << 20
LOG_CAP = 1500  # characters of a dead process's output quoted in the report
NAMES_CAP = 5000  # names a submission may define (the rest are ignored)
EXTRA_PRIVATE: list[str] = []  # an instructor's hidden tests, hidden from the child as well


# -- what can go wrong on the student's side ----------------------------------------------------
class StudentError(Exception):
    """An exception raised by the student's code, as data: ``types`` (class names), message,
    traceback.  Subclasses also inherit the matching built-in class, so that a test's ``except
    ValueError`` catches the student's ``ValueError``."""

    types: list[str] = []
    message: str = ""
    where: str = ""

    def __str__(self) -> str:
        return f"{self.types[0] if self.types else 'Error'}: {self.message}"


_ERROR_CLASSES: dict[str, type[StudentError]] = {}
# Exceptions the interpreter reads as the end of an iteration, not as an error: a student's
# StopIteration raised again in a test's map(), filter() or generator would end it quietly, and
# the test pass with no answer asked (red team 22, 03; PEP 479 turns them into RuntimeError)
NO_BASE = ("StopIteration", "StopAsyncIteration")


def student_error(data: Any) -> StudentError:
    if not isinstance(data, dict):
        data = {"types": ["Error"], "message": str(data)[:500]}
    names = [str(n) for n in data.get("types", [])][:20] or ["Error"]
    base = next(
        (
            getattr(builtins, n)
            for n in names
            if isinstance(getattr(builtins, n, None), type)
            and issubclass(getattr(builtins, n), Exception)
            and n not in ("Exception", *NO_BASE)
        ),
        None,
    )
    key = base.__name__ if base else ""
    if key not in _ERROR_CLASSES:
        bases = (StudentError, base) if base else (StudentError,)
        _ERROR_CLASSES[key] = type(f"Student{key}", bases, {})
    error = _ERROR_CLASSES[key](str(data.get("message", ""))[:2000])
    error.types, error.message = names, str(data.get("message", ""))[:2000]
    error.where = str(data.get("traceback", ""))[:2000]
    return error


class StudentGone(Exception):
    """The student's process can answer no more (it overran a time limit, or died)."""

    def __init__(self, function: str, why: str, kind: str, questions: int = 0):
        super().__init__(why)
        self.function, self.why, self.kind = function, why, kind  # kind: "timed out"/"crashed"
        self.questions = questions  # > 0: the test's time ran out over this many questions


# The signals that end a process for what its own code did: a fault, a limit (RLIMIT_CPU, the
# file size), its own timers and I/O, an abort; and SIGUSR1, which the grader sends to ask
# the server for its stack (a handler the code removed).  Any other (SIGTERM, SIGHUP, SIGINT,
# SIGQUIT, SIGUSR2, real-time signals...) only a kill sends: from inside the sandbox, the
# code's own, or from outside, another program's (a `pkill`, a service manager), which cost
# a student the rest of a set in a run graded as the code's crash (red team 41, 07).  Told
# apart they cannot be (the sender is not in the wait status): such a run is not graded, as
# one ended by a SIGKILL from outside; code that signals itself only ends its own run so.
OWN_SIGNALS = frozenset(
    {
        signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGABRT,
        signal.SIGTRAP, signal.SIGSYS, signal.SIGXCPU, signal.SIGXFSZ, signal.SIGPIPE,
        signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF, signal.SIGIO, signal.SIGUSR1,
        signal.SIGKILL,
    }
)  # fmt: skip


class ImportFailed(Exception):
    """The student's file could not be loaded; ``under_load`` when the time ran out while its
    processes had used little CPU: the machine was busy, not the file slow (red team 21, 23)."""

    def __init__(self, why: str, under_load: bool = False):
        super().__init__(why)
        self.under_load = under_load
        self.outside = False  # killed while loading by a SIGKILL the grader did not send


class MissingDefinition(AttributeError):
    pass


# -- talking to a process -------------------------------------------------------------------
class _Lines:
    """Lines from a pipe, with a deadline."""

    def __init__(self, fd: int):
        self.fd = fd
        self.parts: list[bytes] = []  # the start of a line not ended yet, chunk by chunk
        self.size = 0  # bytes in parts
        self.ready: collections.deque[bytes] = collections.deque()  # whole lines, in order
        self.overlong = False

    def read(self, timeout: float) -> str | None | Literal[False]:
        """A line; None at end of file (or an overlong line); False when the timeout passes.
        Each chunk is looked at once: taking one line at a time off the front of the buffer
        copied the rest for every line, a megabyte of short lines 10 s of the grader's CPU (red
        team 25, 04), and joining each chunk to the unfinished line before splitting again made
        one long line in 4 KB chunks quadratic, 2.2 s for 4 MB (red team 30, 14)."""
        deadline = time.monotonic() + timeout
        while not self.ready:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            try:
                chunk = os.read(self.fd, 1 << 20)
            except OSError:
                return None
            if not chunk:
                return None
            if not self._take(chunk):
                self.overlong, self.parts, self.size = True, [], 0  # never held: stays small
                self.ready.clear()
                return None
        return self.ready.popleft().decode("utf-8", errors="replace")

    def _take(self, chunk: bytes) -> bool:
        """Add a chunk; False when a line is longer than LINE_CAP."""
        if b"\n" not in chunk:
            self.parts.append(chunk)
            self.size += len(chunk)
            return self.size <= LINE_CAP
        first, *whole, rest = chunk.split(b"\n")
        if self.size + len(first) > LINE_CAP or any(len(line) > LINE_CAP for line in whole):
            return False
        self.ready.append(b"".join([*self.parts, first]))
        self.ready.extend(whole)
        self.parts, self.size = [rest], len(rest)
        return self.size <= LINE_CAP


def _parse(line: str) -> dict[str, Any] | None:
    """A message from the student's process, or None: json.loads may raise ValueError (too many
    digits), RecursionError, MemoryError... on hostile input; all mean "garbage"."""
    # counted before decoding: 8 MB of "{}," decoded to 24 times its size in the grader's own
    # process before the protocol's caps could look at it (red team 26, 11)
    if line.count(",") + line.count("{") + line.count("[") > MAX_VALUES:
        return None
    try:
        message = json.loads(line)
    except (Exception, RecursionError):  # whatever the decoder chokes on
        return None
    return message if isinstance(message, dict) else None


def _child_env(job: dict[str, Any], home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MCTS_GRADING_JOB": json.dumps(job),
    }


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (the kernel's list when it keeps one, else by parent)."""
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(stat[1]) == pid:
                found.append(int(name))
    return found


BOOT = "import sys; sys.path[:0] = {paths!r}; from mcts_course.grading.server import main; main()"


class StudentProcess:
    """One submission file's code running in its own confined process, ready to answer.

    ``code`` (the text to run) may be given directly; otherwise it is read from ``code_path``,
    which must be a regular file (no symbolic link is followed).  ``workdir`` is the
    submission's folder: its top-level files are copied beside the code, for sibling imports.
    """

    def __init__(
        self,
        code_path: Path | None,
        display_name: str,
        workdir: str | None,
        functions: list[str],
        public_root: Path,
        memory_mb: int = MEMORY_MB,
        cpu_seconds: int = 600,
        *,
        code: str | None = None,
        exercise_set: str = "",
    ):
        self.code_path, self.code = code_path, code
        self.exercise_set = exercise_set  # what the process keeps: grading.narrow
        self.display_name, self.workdir = display_name, workdir
        self.functions, self.cpu_seconds = list(functions), cpu_seconds
        self.public_root, self.memory_mb = public_root, memory_mb
        self.proc: subprocess.Popen[bytes] | None = None
        self.box: Sandbox | None = None
        self.log: Any = None
        self.to_child = self.from_child = -1
        self.to_init = -1  # requests to the namespace's first process (confine.INIT)
        self.names: set[str] = set()
        self._outside = False  # see outside
        self.sequence = 0
        self.lines_read = 0  # lines of the question: a flood of them must not hold the grader
        self.stray = 0  # characters of its lines that answered nothing
        self.server_pid = -1
        self.init_pid = -1  # the first process of its pid namespace (confine.INIT)
        self.signalled = False  # the last pause stopped it by signals (no freezer)
        self.preparing = False

    # -- starting ------------------------------------------------------------------------------
    def start(self) -> str:
        """Start the process and run the student's file; return what it printed.  Raises
        ImportFailed with the reason, or SandboxError when the student's code cannot be confined
        (then no student code ran: grading must stop)."""
        self.preparing = False  # the grader's own steps between reading the code and sending it
        try:
            return self._start()
        except ImportFailed as error:
            self.kill()
            error.outside = self.outside  # not the student's 0 (red team 40, 02b)
            raise
        except SandboxError:
            self.kill()
            raise
        except OSError as error:
            self.kill()
            if not self.preparing:
                why = f"your file could not be loaded ({type(error).__name__})"
                raise ImportFailed(why) from None
            # the grader's own work on the machine (the sandbox's folders and copies, its
            # pipes): a full disk or too many open files is not the student's 0, but a run
            # to grade again (red team 29, 08: a neighbour filling the disk gave one, quietly)
            raise ImportFailed(
                f"the grader could not prepare the sandbox ({type(error).__name__}: "
                f"{error.strerror or error}): this is not a grade, the instructor grades it again",
                under_load=True,
            ) from None
        except Exception as error:  # one broken submission never stops a batch
            self.kill()
            raise ImportFailed(f"your file could not be loaded ({type(error).__name__})") from None

    def _start(self) -> str:
        code = self.code
        if code is None:
            if self.code_path is None:
                raise ImportFailed("no code to run")
            code = python_text(read_regular(self.code_path))
        self.preparing = True
        self.box = Sandbox(self.workdir, hide=EXTRA_PRIVATE, memory_mb=self.memory_mb)
        from_grader, to_child = os.pipe()  # (read end, write end)
        from_child, to_grader = os.pipe()
        job = {
            "display_name": self.display_name,
            "functions": self.functions,
            "set": self.exercise_set,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "sandbox": self.box.job(),
            "fds": [from_grader, to_grader],
        }
        # The set's own copy of the package: its files hold what the set may use, no more
        # (a class and the file it came from agree); without namespaces, one for this user id.
        root = set_view(self.public_root, self.exercise_set)
        if self.box.cage is None and self.box.uid is not None:
            root = self.box.own_package(root)
        paths = [str(root)] + neutral_paths(student_paths())
        self.log = _output_file()
        command = [sys.executable, "-I", "-S", "-c", BOOT.format(paths=paths)]
        if self.box.cage is not None:  # namespaces and cgroups: see confine.py
            command = self.box.cage.command(command, root, self.box.masked)
        env, fds = _child_env(job, str(self.box.work)), [from_grader, to_grader]
        # the same paths for the processes the student's code starts with the interpreter
        # (joblib's default pool): -I keeps them from the student's own process
        env["PYTHONPATH"] = os.pathsep.join(paths)
        from_grader_init = to_init = -1
        if self.box.cage is not None:  # the requests to its namespace's first process, and
            # its word that it saw the student's process end (confine.ENDED)
            first, second = socket.socketpair()
            from_grader_init, to_init = first.detach(), second.detach()
            env[INIT_FD_ENV] = str(from_grader_init)
            fds.append(from_grader_init)
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=fds,
            cwd="/",
            env=env,
            start_new_session=True,  # its own process group: stopped and killed as one
        )
        if self.box.cage is not None:  # all its processes' CPU seconds, at every moment
            self.box.cage.watch_cpu(self.cpu_seconds)
        os.close(from_grader)
        os.close(to_grader)
        os.set_blocking(to_child, False)
        if to_init >= 0:
            os.close(from_grader_init)
            os.set_blocking(to_init, False)
            self.to_init = to_init
        self.to_child, self.from_child = to_child, from_child
        self.lines = _Lines(from_child)
        # the grader's own server starting in the sandbox, before any student code: a busy
        # machine, not the student, makes it slow, and missing it refuses the whole batch
        boot = self._wait(("boot", "fatal"), time.monotonic() + BOOT_TIMEOUT)
        deadline = time.monotonic() + IMPORT_TIMEOUT
        if boot is None or "fatal" in boot:
            why = (
                boot["fatal"]
                if boot
                else self._tail() or (f"its process did not start within {BOOT_TIMEOUT:g} s")
            )
            raise SandboxError(
                "the grader cannot run the students' code confined, so it refuses to grade "
                f"(student code never runs as root or unconfined): {str(why)[:500]}"
            )
        self.server_pid = self._server_pid()
        self.preparing = False
        if not self._write({"code": code}, deadline):
            raise self._slow_import()
        message = self._wait(("ready", "import_error"), deadline)
        # Loading's limit is CPU seconds where they are counted, as a question's: the wall
        # clock's 10 s gave a load of 3 s of CPU a 0 on a machine that gave it 30% of a core
        # (red team 23, 08).  The backstop, as a question's: 4 x the limit + 2 s of wall time.
        backstop = deadline + 3 * IMPORT_TIMEOUT + 2
        while message is None and time.monotonic() < backstop:
            used = self.time_used() if self._counts_cpu() else None
            if used is None or used >= IMPORT_TIMEOUT or self.proc is None:
                break
            if self.proc.poll() is not None:
                break  # it ended: the death below says how
            deadline = min(backstop, time.monotonic() + max(0.5, IMPORT_TIMEOUT - used))
            message = self._wait(("ready", "import_error"), deadline)
        if message is None:
            # Out of time, or the channel ended early.  Ask the clock, not the process: one
            # that exits while loading closes its pipe before the kernel reports it gone, and
            # the grader would otherwise blame a crash on the time limit.
            if time.monotonic() >= deadline:
                raise self._slow_import()
            raise ImportFailed(self.death())
        if "import_error" in message:
            error = student_error(message["import_error"])
            raise ImportFailed(describe_student_error(error, loading=True))
        names = message.get("names", [])
        self.names = {str(n)[:200] for n in names[:NAMES_CAP]} if isinstance(names, list) else set()
        self._pause()
        return str(message.get("out", ""))[:5000]

    def _server_pid(self) -> int:
        """The pid of the process running the student's code.  In namespaces the launcher
        (``unshare``) forks the namespace's first process (``confine.INIT``), whose one child
        at this point (no student code has run yet) is the server; otherwise the process
        itself."""
        assert self.proc is not None
        if self.box is None or self.box.cage is None:
            return self.proc.pid
        pid = self.proc.pid
        for level in range(2):
            children = _children(pid)
            if len(children) != 1:
                raise SandboxError(f"the sandbox's launcher has {len(children)} children, not 1")
            pid = children[0]
            if level == 0:
                self.init_pid = pid
        return pid

    def confinement(self) -> str:
        """How this process is confined (one line)."""
        return self.box.describe() if self.box is not None else "not started"

    def _wait(self, keys: tuple[str, ...], deadline: float) -> dict[str, Any] | None:
        """The first message with one of ``keys`` before ``deadline``; None if the process
        ends, sends an overlong line or the time runs out (other lines are skipped)."""
        while True:
            line = self.lines.read(max(0.0, deadline - time.monotonic()))
            if line is None or line is False:
                return None
            message = _parse(line)
            if message is not None and any(k in message for k in keys):
                return message

    # -- the pipe to the child ---------------------------------------------------------------
    def _write(self, message: dict[str, Any], deadline: float) -> bool:
        """Send one line before ``deadline``; False if the child does not read it in time (a
        process that never reads would otherwise block the grader on a full pipe).  A closed
        pipe counts as sent: the reader then sees the end."""
        data = (json.dumps(message) + "\n").encode()
        while data:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self.to_child], [], left)[1]:
                return False
            try:
                data = data[os.write(self.to_child, data) :]
            except BlockingIOError:
                continue
            except OSError:
                return True
        return True

    def send(self, message: dict[str, Any], timeout: float = IMPORT_TIMEOUT) -> bool:
        return self._write(message, time.monotonic() + timeout)

    def _pause(self) -> None:
        """Stop the process between questions: time outside a test is not the student's.  The
        stop is asynchronous; wait (a little, bounded) until the kernel shows it."""
        if self.box is not None and self.box.cage is not None and self.box.cage.freeze():
            return  # every process of the submission, also those that left its group
        self.signalled = True
        if self.proc is not None and self.init_pid > 0 and self.to_init >= 0:
            if stop_from_inside(self.init_pid, self.proc.pid, self.to_init):
                return  # every process but the namespace's first, which runs no student code
        self._signal(signal.SIGSTOP)
        if self.box is not None and self.box.cage is not None and self.proc is not None:
            signal_namespace(self.proc.pid, signal.SIGSTOP)  # setsid daemons too (no freezer)
        if self.proc is None:
            return
        for _ in range(500):
            state = process_state(self.proc.pid)
            if state is None or state in STOPPED_STATES:  # None: no /proc, or it is gone
                return
            time.sleep(0.001)

    def _resume(self) -> None:
        if self.box is not None and self.box.cage is not None:
            self.box.cage.thaw()
            if self.proc is not None:
                signal_namespace(self.proc.pid, signal.SIGCONT)
        self._signal(signal.SIGCONT)
        if self.signalled and self.proc is not None and self.init_pid > 0 and self.to_init >= 0:
            # after the signals above, which also continue the namespace's first process if
            # the scan stopped it: a stop it carries out late is then undone too
            ask_init(self.init_pid, self.proc.pid, self.to_init, CONTINUE)

    def _signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stack(self) -> list[tuple[str, float]]:
        """Ask a busy process which of the student's functions it is in (SIGUSR1): their
        names, outermost first, each with the seconds its current call has run."""
        try:
            os.kill(self.server_pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError, AttributeError):
            return []
        deadline = time.monotonic() + STACK_WAIT
        while (left := deadline - time.monotonic()) > 0:
            line = self.lines.read(left)
            if not line:
                return []
            message = _parse(line)
            if message is not None and isinstance(message.get("stack"), list):
                return _frames(message)
        return []

    @property
    def outside(self) -> bool:
        """Whether a process of the submission was killed by a signal neither the grader, a
        cap nor the code's own faults sent: its first process so (see :meth:`death`), or any
        by an out-of-memory killer above its own limit (while its sandbox lives, and kept)."""
        seen = getattr(self, "_outside", False)
        box = getattr(self, "box", None)
        if not seen and box is not None and box.cage is not None:
            seen = self._outside = box.cage.oom_killed_from_outside()
        return seen

    @outside.setter
    def outside(self, value: bool) -> None:
        self._outside = value

    def kill(self) -> None:
        """Kill the process, every other process of its sandbox, and remove its files."""
        if self.proc is not None:
            _ = self.outside  # seen before the cgroups that count it go
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if self.box is not None and self.box.cage is not None:
                self.box.cage.kill()  # frozen processes die only once thawed
            self.proc.wait()
            forget(self.proc.pid)
        if self.box is not None:
            self.box.close()
        for fd in (self.to_child, self.from_child, self.to_init):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.to_child = self.from_child = self.to_init = -1

    def _tail(self) -> str:
        """The end of what the process printed (read from our own handle of its output)."""
        if self.log is None:
            return ""
        try:
            size = os.fstat(self.log.fileno()).st_size
            start = max(0, size - 4 * LOG_CAP)
            data = os.pread(self.log.fileno(), size - start, start)
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", errors="replace")[-LOG_CAP:].strip()

    def death(self) -> str:
        """Why the process ended, from its exit status and the end of its output."""
        if self.proc is None:
            return "the process did not start"
        before = _children_cpu()
        reaped = self.proc.returncode is None
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:  # it closed its end of the channel and went on
            self.kill()
            return "your process closed its channel to the grader"
        reaped_cpu = _children_cpu() - before if reaped else None
        if self.to_init >= 0:  # the namespace's first process says how its child ended
            status = self._init_status()
            # none said: killed from outside, and the kernel then killed every process of the
            # namespace; its own exit code (128 + n for signal n) is one os._exit can give
            code = -signal.SIGKILL if status is None else _status_code(status)
        cage = self.box.cage if self.box is not None else None
        exceeded = cage.cpu_exceeded if cage is not None else None
        if exceeded is not None:  # the cage's watcher killed every process of the submission
            self.kill()
            return self._too_much_cpu(exceeded)
        if code == -signal.SIGKILL and not self._capped(reaped_cpu):
            self.outside = True  # the run's status says so: the grade is not the student's
            self.kill()
            return (
                # not "not your code's fault": the code may have sent it itself (red team 56, 10)
                "the process was killed by SIGKILL, sent neither by the grader nor by a cap: "
                "another program on the grading machine sent it, or your code did (os.kill): "
                "this is not a grade, the instructor grades it again"
            )
        if code < 0 and -code not in OWN_SIGNALS:
            self.outside = True  # as a SIGKILL from outside
            self.kill()
            return (
                f"the process was killed by {_signal_name(-code)}, a signal that only a kill "
                "sends (neither the grader nor the kernel for what your code did): another "
                "program on the grading machine sent it (or your code did): this is not a "
                "grade, the instructor grades it again"
            )
        if code < 0:
            name = _signal_name(-code)
            reason = f"the process was killed by {name}"
            if -code == signal.SIGXCPU:
                reason += " (CPU time limit)"
            elif -code == signal.SIGXFSZ:
                reason += " (your code wrote too much output)"
        else:
            reason = f"the process exited with status {code} (os._exit or a crash?)"
        tail = self._tail()
        if "MemoryError" in tail or "Cannot allocate memory" in tail:
            reason += f" (out of memory: the cap is {self.memory_mb} MB)"
        self.kill()
        return reason + (f"\nLast output:\n{tail}" if tail else "")

    def _init_status(self) -> int | None:
        """The wait status of the student's process, as the namespace's first process wrote it
        when it saw it end (it has ended too: the launcher was waited for), or None when it
        wrote none."""
        said = b""
        while True:
            try:
                got = os.read(self.to_init, 64)
            except OSError:  # all read (BlockingIOError), or a reset: what came is all
                break
            if not got:
                break
            said += got
        _, found, status = said.partition(ENDED)
        digits = status.split(b"\n", 1)[0]
        return int(digits) if found and digits.isdigit() and len(digits) < 8 else None

    def _capped(self, reaped_cpu: float | None) -> bool:
        """Whether a SIGKILL may have come from the submission's own caps: its memory cgroup's
        own limit was reached (:meth:`Cage.memory_limit_reached`), or its CPU time (the hard
        RLIMIT_CPU).  Without a memory cgroup (a teaching assistant's sandbox) memory is capped
        by RLIMIT_AS, which kills nothing: only the CPU can, as ``reaped_cpu`` (the process's
        CPU seconds, its waited-for children's included) shows; anything else is another
        program's kill, not a grade."""
        cage = self.box.cage if self.box is not None else None
        memory = cage.cgroups.get("memory") if cage is not None else None
        if cage is None or memory is None:
            return reaped_cpu is not None and reaped_cpu >= self.cpu_seconds
        used = cage.cpu_seconds()
        return used is None or used >= self.cpu_seconds or cage.memory_limit_reached()

    # -- one question ----------------------------------------------------------------------
    def exchange(
        self,
        message: dict[str, Any],
        budget: float,
        callback: Callable[[dict[str, Any]], dict[str, Any]],
        function: str,
    ) -> tuple[dict[str, Any], float]:
        """Send a request; answer callbacks until the reply comes; return (reply, seconds).
        Raises StudentGone when the budget runs out or the process dies.

        The wall-clock backstop counts only the time the grader waits for the student: what
        the grader does with each line (reading the clock, parsing, answering a callback) is
        :attr:`~mcts_course.grading.clock.QuestionClock.aside`.  Counted, 100,000 lines of a
        flood at 140 us of the grader's each read as 14 s of a student "waiting" with no CPU
        used: the backstop then stopped a flood the line cap is there to stop."""
        self.sequence += 1
        message = dict(message, id=self.sequence)
        # the clock starts before the processes do and is read after they stop: the CPU of a
        # process of the submission that spun in between was counted by no test (a fifth of
        # it, over the 1,200 questions of a regrown tree: red team 57, 08)
        clock = QuestionClock(budget, self.time_used if self._counts_cpu() else None)
        self._resume()
        self.lines_read, self.stray = 0, 0
        paused = False
        try:
            if not self._write(message, clock.write_deadline()):
                self._overrun(function, budget, clock, written=False)
            while True:
                with clock.grader_work():  # a line already read needs no clock
                    wait = 0.0 if self.lines.ready else clock.wait()
                line = self.lines.read(wait)
                with clock.grader_work():
                    reply, answer = self._take(line, clock, callback, function)
                if reply is not None:
                    self._pause()
                    paused = True
                    return reply, clock.used(fresh=True)
                if answer is not None and not self._write(answer, clock.write_deadline()):
                    self._overrun(function, budget, clock, written=False)
        finally:
            if not paused:
                self._pause()

    def _take(
        self,
        line: str | None | Literal[False],
        clock: QuestionClock,
        callback: Callable[[dict[str, Any]], dict[str, Any]],
        function: str,
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """One line of a question: (the reply, None) when it answers it, (None, what to write
        back) for a callback, (None, None) for a line to pass over or no line yet."""
        if line is False:
            if clock.over() is not None:
                self._overrun(function, clock.budget, clock)
            return None, None
        self.lines_read += 1
        if self.lines_read % 100 == 0 and clock.over() is not None:  # a flood never times out
            self._overrun(function, clock.budget, clock)
        if self.lines_read > QUESTION_LINES:
            self.kill()
            why = f"your process sent over {QUESTION_LINES:,} lines for one question"
            raise StudentGone(function, why, "crashed")
        if line is None and self.lines.overlong:
            self.kill()
            raise StudentGone(
                function, f"your answer was larger than {LINE_CAP >> 20} MB of data", "crashed"
            )
        if line is None:
            raise StudentGone(function, self.death(), "crashed")
        # the grader's own CPU parsing the lines is the student's (a reply padded with a
        # million junk values cost the grader 0.6 s a question, the student nothing; red team
        # 31, 07)
        began = time.thread_time()
        reply = _parse(line)
        clock.charged += time.thread_time() - began
        if reply is None:
            self.kill()
            raise StudentGone(function, "your process sent garbage", "crashed")
        if reply.get("id") != self.sequence and reply.get("op") != "cb":
            self.stray += len(line)  # a stack report, or a line that answers nothing
            if self.stray > STRAY_CAP:  # each is parsed in the grader's own process
                self.kill()
                why = f"your process sent over {STRAY_CAP >> 10} KB that answered nothing"
                raise StudentGone(function, why, "crashed")
        if "stack" in reply:
            return None, None
        if reply.get("op") == "cb":
            return None, callback(reply)
        if reply.get("id") != self.sequence:
            return None, None  # not the answer to this question (stray output on the channel)
        self._check_cpu(function)
        return reply, None

    def _slow_import(self) -> ImportFailed:
        """Loading ran out of its wall-clock time: the file's fault if its processes used
        much of that time in CPU, else the machine's (stopped, starved): then not a grade."""
        why = f"loading your file took longer than {IMPORT_TIMEOUT:g} s"
        used = self.time_used() if self.init_pid > 0 else None
        if used is not None and used < IMPORT_TIMEOUT:  # the backstop, not the CPU limit
            return ImportFailed(
                f"{why} of wall time with only {used:.1f} s of CPU used: the machine was too "
                "busy (grade it again)",
                under_load=True,
            )
        return ImportFailed(why + (" of CPU time" if used is not None else ""))

    def _check_cpu(self, function: str) -> None:
        """Stop a submission whose processes together used more CPU time than it is allowed
        (each process's RLIMIT_CPU does not see the others: daemons that fork again)."""
        cage = self.box.cage if self.box is not None else None
        used = cage.cpu_seconds() if cage is not None else None
        if used is not None and used > self.cpu_seconds:
            self.kill()
            raise StudentGone(function, self._too_much_cpu(used), "crashed")

    def _too_much_cpu(self, used: float) -> str:
        return (
            f"your processes together used {used:.0f} s of CPU time, more than the "
            f"{self.cpu_seconds} s this exercise set allows (processes left running?)"
        )

    def _counts_cpu(self) -> bool:
        """Whether a question's budget is CPU seconds: the grader sees every process of the
        submission (a namespace of its own), see :mod:`mcts_course.grading.clock`."""
        return self.box is not None and self.box.cage is not None and self.init_pid > 0

    def cpu_used(self) -> float | None:
        """CPU seconds used so far by every process of the submission: its cgroup's, else its
        pid namespace's (no cgroup: the teaching assistant's user namespaces)."""
        cage = self.box.cage if self.box is not None else None
        if cage is None:
            return None
        used = cage.cpu_seconds()
        return used if used is not None else namespace_cpu_seconds(self.init_pid)

    def time_used(self) -> float | None:
        """What a question's budget counts: CPU seconds, and reads from the disk (see
        :mod:`mcts_course.grading.clock`)."""
        return student_seconds(self.cpu_used(), disk_bytes(self.init_pid))

    def _overrun(
        self, function: str, budget: float, clock: QuestionClock, written: bool = True
    ) -> NoReturn:
        kind = clock.over() or (UNDER_LOAD if clock.counts_cpu else TIMED_OUT)
        where = blame(self.stack(), function, budget) if written else function
        why = TIMED_OUT
        if kind == UNDER_LOAD:
            why = (
                f"{clock.wall():.0f} s went by and your code had used only {clock.used():.1f} s "
                f"of CPU of its {budget:g} s (it waited, or the grading machine was overloaded)"
            )
        self.kill()
        raise StudentGone(where, why, kind)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # a real-time signal
        return f"signal {number}"


def _status_code(status: int) -> int:
    """A wait status as ``Popen.returncode`` has it: -n for signal n, else the exit code (1 for
    a status that is neither, which the first process never reports)."""
    try:
        return os.waitstatus_to_exitcode(status)
    except ValueError:
        return 1


def _output_file() -> Any:
    """The file the child's output (its stdout and stderr) goes to: unnamed, so there is no
    path the student could swap for a link to something root would then read or change; and
    in memory where the kernel allows (a memfd, whose pages the writer's cgroup pays for and
    whose size RLIMIT_FSIZE caps), never on the machine's disk: through a disk file the student
    took every free block with fallocate, starving a neighbour's run, and kept the disk busy
    with synchronous writes (red team 29, 04, 05, 08 and 13)."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(os.memfd_create("mcts-log", os.MFD_CLOEXEC), "w+b")
        except OSError:
            pass
    return tempfile.TemporaryFile(prefix="mcts-log-")


def _children_cpu() -> float:
    """CPU seconds of the grader's waited-for children (and theirs) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _frames(message: dict[str, Any]) -> list[tuple[str, float]]:
    """The ``(function, seconds running)`` pairs of a stack report, checked (the report comes
    from the student's process: anything malformed counts as no report)."""
    names, running = message["stack"][-50:], message.get("running")
    if not isinstance(running, list):
        running = []
    running = running[-len(names) :] if names else []
    frames = []
    for name, seconds in zip(names, running, strict=False):
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            return []
        frames.append((str(name)[:200], float(seconds)))
    return frames


def blame(frames: list[tuple[str, float]], function: str, budget: float) -> str:
    """The function an overrun is reported on: the innermost call that has run for a good
    part of the budget (an infinite loop in ``simulate`` under ``mcts_search`` is
    ``simulate``'s; a loop in ``mcts_search`` calling a correct ``simulate`` again and again is
    ``mcts_search``'s, whichever short call runs at the moment); with no long call (a test that
    calls a function many times), the outermost, else the function the test called."""
    long_enough = min(0.5, budget / 6)
    for name, seconds in reversed(frames):
        if seconds >= long_enough:
            return name
    return frames[0][0] if frames else function


def describe_student_error(error: StudentError, loading: bool = False) -> str:
    names = error.types
    if "SyntaxError" in names:
        return f"SyntaxError: {error.message}\n{error.where}".strip()
    if "NotImplementedError" in names:
        return "not implemented yet (your function raises NotImplementedError)"
    if "SystemExit" in names:
        return f"your code called sys.exit({error.message})" + (
            " while your file was loaded" if loading else ""
        )
    if "OSError" in names and "[Errno 27]" in error.message:  # EFBIG: the file-size cap
        return "your code wrote too much output (the grader caps the size of its output)"
    if "MemoryError" in names:
        return "ran out of memory (the grader caps memory; a huge allocation?)"
    text = f"{names[0]}: {error.message}"
    if error.where:
        text += f"\nTraceback (last calls in your code):\n{error.where}"
    return ("your file could not be loaded: " if loading else "") + text
