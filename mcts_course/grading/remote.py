"""The grader's side of the referee design: the student's code as a process that answers.

:class:`StudentProcess` starts :mod:`mcts_course.grading.server` on one submission file from a
copy of the package without the reference solutions and the grading tests (see
:func:`public_package`), with memory, file-size and CPU caps, as the unprivileged user
``nobody`` when the grader runs as root, and talks to it over two pipes.  :class:`Connection`
turns a test's ``student.select_child(root, 1.4)`` into a request with plain data, waits for
the answer within the test's time budget, applies the answer's changes to the grader's own
objects (a tree after ``backpropagate``, a generator after ``simulate``) and hands back the
result.  The test then judges it here, with the reference, in the grader's process.

A notebook's ``check`` uses the same connection with the student's code in the notebook's own
process (:class:`mcts_course.grading.notebook.NotebookTransport`): the same questions and
answers, without the isolation.
"""

from __future__ import annotations

import builtins
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcts_course.grading import public
from mcts_course.grading.protocol import Decoder, Encoder, ProtocolError, sync

IMPORT_TIMEOUT = 10.0  # seconds to start the process and run the student's file
STACK_WAIT = 0.3  # seconds to wait for "where were you?" before killing a process
LINE_CAP = 64 << 20  # bytes of one answer (a big tree is a few MB)
LOG_CAP = 1500  # characters of a dead process's output quoted in the report
PACKAGE = Path(__file__).resolve().parents[1]  # .../mcts_course
PRIVATE = ("solutions", "grading/tests")  # what the student's process must not read


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


_ERROR_CLASSES: dict[str, type] = {}


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
            and n != "Exception"
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

    def __init__(self, function: str, why: str, kind: str):
        super().__init__(why)
        self.function, self.why, self.kind = function, why, kind  # kind: "timed out"/"crashed"


class ImportFailed(Exception):
    pass


class MissingDefinition(AttributeError):
    pass


# -- the package copy the student's process imports ----------------------------------------------
def public_package(dest: Path) -> Path:
    """Copy ``mcts_course`` into ``dest`` without the reference solutions and the grading tests;
    return ``dest`` (the folder to put first on the student's ``sys.path``)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        here = Path(folder)
        skip = {n for n in names if n == "__pycache__" or n.endswith(".pyc")}
        if here == PACKAGE:
            skip.add("solutions")
        if here == PACKAGE / "grading":
            skip.add("tests")
        return skip

    shutil.copytree(PACKAGE, dest / "mcts_course", ignore=ignore)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def protect_private_files(extra: list[str] | None = None) -> list[Path]:
    """As root: make the reference solutions, the grading tests (and their caches) and the
    instructor's hidden tests unreadable by other users; return what was protected."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    paths = [PACKAGE / "solutions", PACKAGE / "grading" / "tests"]
    paths += [Path(p) for p in extra or []]
    for path in paths:
        if path.exists():
            path.chmod(0o700 if path.is_dir() else 0o600)
    return paths


def student_paths() -> list[str]:
    """The grader's library folders for the student's ``sys.path`` (numpy...), without a folder
    holding this package's sources (a checkout): the student's process imports the public copy.
    An installed package in site-packages stays reachable on disk there; as root its private
    files are unreadable to the student's user (:func:`protect_private_files`)."""
    paths = []
    for p in sys.path:
        if not p or not Path(p).is_dir():
            continue
        if (Path(p) / "mcts_course").is_dir() and Path(p).name not in (
            "site-packages",
            "dist-packages",
        ):
            continue
        paths.append(p)
    return paths


def unprivileged_ids() -> tuple[int, int] | None:
    """(uid, gid) of ``nobody`` (or $MCTS_GRADING_USER) when running as root and that user can
    run this Python, else None: then the student's code runs as the grader's own user."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    with _PROBE_LOCK:  # grading threads ask at once; probe once
        if "ids" not in _PROBED:
            _PROBED["ids"] = _probe_user()
    return _PROBED["ids"]


_PROBED: dict[str, tuple[int, int] | None] = {}
_PROBE_LOCK = threading.Lock()


def _probe_user() -> tuple[int, int] | None:
    import pwd

    try:
        entry = pwd.getpwnam(os.environ.get("MCTS_GRADING_USER", "nobody"))
        ids = entry.pw_uid, entry.pw_gid
    except KeyError:
        ids = 65534, 65534

    def drop() -> None:
        os.setgroups([])
        os.setgid(ids[1])
        os.setuid(ids[0])

    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", "import math"],
            preexec_fn=drop,
            capture_output=True,
            timeout=30,
            cwd="/",
        )
        ok = done.returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if not ok:
        print(
            f"warning: running as root, but user {ids[0]} cannot run {sys.executable}; the "
            "students' code runs as root and could read the reference solutions",
            file=sys.stderr,
        )
        return None
    return ids


# -- talking to a process -------------------------------------------------------------------
class _Lines:
    """Lines from a pipe, with a deadline."""

    def __init__(self, fd: int):
        self.fd, self.buffer = fd, b""

    def read(self, timeout: float) -> str | None | bool:
        """A line; None at end of file (or garbage); False when the timeout passes first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            try:
                chunk = os.read(self.fd, 1 << 20)
            except OSError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > LINE_CAP:
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")


def _child_env(job: dict) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": tempfile.gettempdir(),
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MCTS_GRADING_JOB": json.dumps(job),
    }
    return env


BOOT = "import sys; sys.path[:0] = {paths!r}; from mcts_course.grading.server import main; main()"


class StudentProcess:
    """One submission file's code running in its own process, ready to answer."""

    def __init__(
        self,
        code_path: Path,
        display_name: str,
        workdir: str,
        functions: list[str],
        public_root: Path,
        memory_mb: int = 1024,
        cpu_seconds: int = 600,
    ):
        self.job = {
            "code_path": str(code_path),
            "display_name": display_name,
            "workdir": workdir,
            "functions": functions,
            "memory_mb": memory_mb,
            "cpu_seconds": cpu_seconds,
        }
        self.public_root, self.memory_mb = public_root, memory_mb
        self.log = code_path.parent / f"{code_path.stem}.log"
        self.proc: subprocess.Popen | None = None
        self.names: set[str] = set()
        self.sequence = 0

    def start(self) -> str:
        """Start the process and run the student's file; return what it printed.
        Raises ImportFailed with the reason."""
        from_grader, to_child = os.pipe()  # (read end, write end)
        from_child, to_grader = os.pipe()
        paths = [str(self.public_root)] + student_paths()
        ids = unprivileged_ids()

        def prepare() -> None:  # runs in the child before exec
            if ids is not None:
                os.setgroups([])
                os.setgid(ids[1])
                os.setuid(ids[0])

        with open(self.log, "wb") as log:
            if ids is not None:
                os.chown(self.log, ids[0], ids[1])
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", BOOT.format(paths=paths)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(from_grader, to_grader),
                preexec_fn=prepare,
                cwd=self.log.parent,
                env=_child_env(dict(self.job, fds=[from_grader, to_grader])),
                start_new_session=True,
            )
        os.close(from_grader)
        os.close(to_grader)
        self.to_child = os.fdopen(to_child, "w", encoding="utf-8")
        self.lines = _Lines(from_child)
        self.from_child = from_child
        deadline = time.monotonic() + IMPORT_TIMEOUT
        message: dict = {}
        while not ("ready" in message or "import_error" in message):
            line = self.lines.read(max(0.0, deadline - time.monotonic()))
            if line is False:
                self.kill()
                raise ImportFailed(f"loading your file took longer than {IMPORT_TIMEOUT:g} s")
            if line is None:
                raise ImportFailed(self.death())
            try:
                message = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                message = {}
            if not isinstance(message, dict):
                message = {}
        if "import_error" in message:
            self.kill()
            error = student_error(message["import_error"])
            raise ImportFailed(describe_student_error(error, loading=True))
        names = message.get("names", [])
        self.names = {str(n) for n in names} if isinstance(names, list) else set()
        return str(message.get("out", ""))[:5000]

    def send(self, message: dict) -> None:
        try:
            self.to_child.write(json.dumps(message) + "\n")
            self.to_child.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the reader notices the end

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stack(self) -> list[str]:
        """Ask a busy process which of the student's functions it is in (SIGUSR1)."""
        try:
            os.kill(self.proc.pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError, AttributeError):
            return []
        deadline = time.monotonic() + STACK_WAIT
        while (left := deadline - time.monotonic()) > 0:
            line = self.lines.read(left)
            if not line:
                return []
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(message, dict) and isinstance(message.get("stack"), list):
                return [str(s) for s in message["stack"]][-10:]
        return []

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for f in (self.to_child,):
            try:
                f.close()
            except (OSError, AttributeError):
                pass
        try:
            os.close(self.from_child)
        except (OSError, AttributeError):
            pass

    def death(self) -> str:
        """Why the process ended, from its exit status and the end of its output."""
        code = self.proc.wait()
        if code < 0:
            name = signal.Signals(-code).name
            reason = f"the process was killed by {name}"
            if -code == signal.SIGXCPU:
                reason += " (CPU time limit)"
            elif -code == signal.SIGXFSZ:
                reason += " (your code wrote too much output)"
        else:
            reason = f"the process exited with status {code} (os._exit or a crash?)"
        try:
            tail = self.log.read_text(errors="replace")[-LOG_CAP:].strip()
        except OSError:
            tail = ""
        if "MemoryError" in tail or "Cannot allocate memory" in tail:
            reason += f" (out of memory: the cap is {self.memory_mb} MB)"
        self.kill()
        return reason + (f"\nLast output:\n{tail}" if tail else "")

    # -- one question ----------------------------------------------------------------------
    def exchange(
        self, message: dict, budget: float, callback: Callable[[dict], dict], function: str
    ) -> tuple[dict, float]:
        """Send a request; answer callbacks until the reply comes; return (reply, seconds).
        Raises StudentGone when the budget runs out or the process dies."""
        started = time.monotonic()
        self.sequence += 1
        message = dict(message, id=self.sequence)
        self.send(message)
        while True:
            left = budget - (time.monotonic() - started)
            line = self.lines.read(max(left, 0.0))
            if line is False:
                stack = self.stack()
                self.kill()
                where = stack[-1] if stack else function
                raise StudentGone(where, "timed out", "timed out")
            if line is None:
                raise StudentGone(function, self.death(), "crashed")
            try:
                reply = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                self.kill()
                raise StudentGone(function, "your process sent garbage", "crashed") from None
            if not isinstance(reply, dict) or "stack" in reply:
                continue
            if reply.get("op") == "cb":
                self.send(callback(reply))
                continue
            if reply.get("id") != self.sequence:
                continue  # not the answer to this question (stray output on the channel)
            return reply, time.monotonic() - started


# -- the grader's view of the student ------------------------------------------------------
class Connection:
    """Asks the student's code questions for the tests, within each test's time budget."""

    def __init__(self, transport):
        self.transport = transport
        self.budget = self.spent = 0.0
        self.out: list[str] = []
        self.called: set[str] = set()  # the student's functions that ran in this test
        self.direct: list[str] = []  # the functions the test called itself
        self.lent: dict[int, Any] = {}
        self.callback_failure: BaseException | None = None

    def begin_test(self, budget: float) -> None:
        self.budget, self.out, self.called, self.direct = budget, [], set(), []
        self.spent = 0.0  # seconds the student's code took in this test (round trips included)
        self.lent, self.callback_failure = {}, None
        if self.transport.alive() and isinstance(self.transport, StudentProcess):
            self.request({"op": "release"}, "release")

    # -- values ----------------------------------------------------------------------------
    def _lend(self, x: Any) -> dict:
        if isinstance(x, RemoteObject):
            return {"$o": x._id}
        self.lent[id(x)] = x
        return {"$c": id(x)}

    def _borrow(self, data: dict) -> Any:
        if "$o" in data:
            return RemoteObject(self, data["$o"])
        try:
            return self.lent[data["$c"]]
        except (KeyError, TypeError):
            raise ProtocolError("an unknown handle") from None

    def encoder(self) -> Encoder:
        public_ids = {id(f): name for name, f in public.PUBLIC.items()}
        return Encoder(lambda x: isinstance(x, public.Node), self._lend, public_ids)

    def decoder(self, nodes=None) -> Decoder:
        return Decoder(lambda: object.__new__(public.Node), self._borrow, public.PUBLIC, nodes)

    # -- requests --------------------------------------------------------------------------
    def request(self, message: dict, function: str) -> dict:
        budget = max(self.budget, 0.05) if message.get("op") != "release" else 5.0
        reply, seconds = self.transport.exchange(message, budget, self._callback, function)
        if message.get("op") != "release":
            self.budget -= seconds
            self.spent += seconds
        return reply

    def call(self, function: str, args: tuple, kwargs: dict, obj: Any = None) -> Any:
        return self.call_many(function, [(args, kwargs)], obj, many=False)

    def call_many(
        self, function: str, calls: list, obj: Any = None, many: bool = True, repeat: int = 0
    ) -> Any:
        """Call ``function`` once per ``(args, kwargs)`` of ``calls`` in one request (the
        student's process answers them in order); a list of results (one result if not many)."""
        encoder = self.encoder()
        originals = [(list(args), dict(kwargs)) for args, kwargs in calls]
        message = {
            "op": "call",
            "name": None if obj is not None else function,
            "obj": obj,
            "many": many,
            "repeat": repeat,
            "calls": encoder.value([[a, k] for a, k in originals]),
            "nodes": encoder.table(),
        }
        reply = self.request(message, function)
        return self._answer(reply, encoder, originals)

    def getattr(self, obj: Any, attr: str, function: str) -> Any:
        encoder = self.encoder()
        message = {"op": "getattr", "obj": obj, "attr": attr, "nodes": [], "calls": []}
        return self._answer(self.request(message, function), encoder, [])

    def _answer(self, reply: dict, encoder: Encoder, originals: list) -> Any:
        if not isinstance(reply, dict):
            raise ProtocolError("a reply that is not a message")
        self.out.append(str(reply.get("out", ""))[:4000])
        called = reply.get("called", [])
        if isinstance(called, list):
            self.called |= {str(c) for c in called[:50]}
        decoder = self.decoder(encoder.nodes)
        try:
            decoder.table(reply.get("nodes", []))  # the student's changes to our trees
            calls = decoder.value(reply.get("calls", []))
            seen: set[int] = set()
            for (args, kwargs), data in zip(
                originals, calls if isinstance(calls, list) else [], strict=False
            ):
                if isinstance(data, list) and len(data) == 2:
                    sync(args, data[0], seen)
                    if isinstance(data[1], dict):
                        keys = [k for k in kwargs if k in data[1]]
                        sync([kwargs[k] for k in keys], [data[1][k] for k in keys], seen)
        except ProtocolError as error:
            raise student_error(
                {"types": ["ValueError"], "message": f"bad answer: {error}"}
            ) from None
        if self.callback_failure is not None:
            failure, self.callback_failure = self.callback_failure, None
            raise failure
        if "error" in reply:
            raise student_error(reply["error"])
        try:
            return decoder.value(reply.get("ok"))
        except ProtocolError as error:
            raise student_error(
                {"types": ["ValueError"], "message": f"your result could not be read: {error}"}
            ) from None

    def _callback(self, message: dict) -> dict:
        """The student's code calls one of our objects (a player, ``input_fn``)."""
        try:
            decoder = self.decoder()
            decoder.table(message.get("nodes", []))
            args = decoder.value(message.get("args", []))
            kwargs = decoder.value(message.get("kwargs", {"$d": []}))
            target = self.lent.get(message.get("obj"))
            if target is None or not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ProtocolError("a call to an unknown object")
            method = message.get("method")
            if method == "__getattr__":  # plain attributes only: no reaching into the grader
                name = str(args[0]) if args else ""
                if name.startswith("_"):
                    raise AttributeError(name)
                value = getattr(target, name)
                result = {"method": True} if callable(value) else value
            elif method is None:
                result = target(*args, **kwargs)
            else:
                if not isinstance(method, str) or method.startswith("_"):
                    raise AttributeError(str(method))
                result = getattr(target, method)(*args, **kwargs)
            encoder = Encoder(
                lambda x: isinstance(x, public.Node),
                _refuse,
                {id(f): n for n, f in public.PUBLIC.items()},
            )
            return {
                "ok": encoder.value(result),
                "args": encoder.value(args),
                "nodes": encoder.table(),
            }
        except BaseException as error:  # noqa: BLE001 - reported to the test, after the call
            if self.callback_failure is None and isinstance(error, AssertionError):
                self.callback_failure = error
            return {"error": f"{type(error).__name__}: {error}"}


def _refuse(x: Any) -> dict:
    raise ProtocolError(f"the grader cannot send a {type(x).__name__}")


class RemoteFunction:
    """A function (or class) of the submission; calling it asks the student's process."""

    def __init__(self, connection: Connection, name: str):
        self._connection, self._name = connection, name

    def __call__(self, *args, **kwargs):
        self._connection.direct.append(self._name)
        return self._connection.call(self._name, args, kwargs)

    def many(self, calls: list) -> list:
        """The results of many calls at once: ``calls`` lists argument tuples (or (args,
        kwargs) pairs); the student's process runs them in order, in one round trip."""
        self._connection.direct.append(self._name)
        pairs = [c if _is_pair(c) else (tuple(c), {}) for c in calls]
        return self._connection.call_many(self._name, pairs) if pairs else []

    def repeat(self, times: int, *args, **kwargs) -> list:
        """The results of ``times`` calls with the very same arguments (a generator among them
        goes on drawing), in one round trip."""
        self._connection.direct.append(self._name)
        return self._connection.call_many(self._name, [(args, kwargs)], repeat=times)

    def __repr__(self) -> str:
        return f"<your {self._name}>"


def _is_pair(c: Any) -> bool:
    return (
        isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], tuple) and isinstance(c[1], dict)
    )


class RemoteObject:
    """An object living in the student's process (a player); attributes and calls are asked."""

    def __init__(self, connection: Connection, handle: Any):
        object.__setattr__(self, "_connection", connection)
        object.__setattr__(self, "_id", handle)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._connection.getattr(self._id, name, name)

    def __call__(self, *args, **kwargs):
        return self._connection.call("a method of your object", args, kwargs, obj=self._id)

    def __repr__(self) -> str:
        return "<an object of your code>"


class Student:
    """The names a submission defines, as the tests see them: ``student.select_child(...)``."""

    def __init__(self, connection: Connection, names: set[str]):
        self._connection, self._names = connection, names

    def __getattr__(self, name: str) -> RemoteFunction:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._names:
            raise MissingDefinition(f"`{name}` is not defined in your code")
        return RemoteFunction(self._connection, name)

    def has(self, name: str) -> bool:
        return name in self._names


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
