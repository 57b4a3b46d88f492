"""The student's side: a process that runs a submission's code and only answers questions.

The grader (:mod:`mcts_course.grading.process`) starts this process from a copy of the package
that holds neither the reference solutions nor the grading tests.  Its first lines, before the
submission's code arrives (through the pipe), confine it (:func:`enter`: as root, a user id of
its own and the private files hidden, see :mod:`mcts_course.grading.sandbox`) and set hard
limits on memory, file size, CPU time and processes.  The process
runs the submission's file, then reads requests, one JSON line each, on one pipe and answers on
another: "call ``select_child`` with these arguments" gets the function's result (or
its exception) back as plain data (:mod:`mcts_course.grading.protocol`), with what it printed.
It never sees an expected value or a verdict: the grader judges.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

from mcts_course.grading.protocol import Decoder, Encoder, ProtocolError, sync

OUTPUT_CAP = 2000  # characters of printed output kept per request
BLOCKED = ("mcts_grader.solutions", "mcts_grader.tests")


class CappedWriter(io.TextIOBase):
    """A text stream that keeps the first ``cap`` characters and counts the rest."""

    def __init__(self, cap: int = OUTPUT_CAP):
        self.cap, self.kept, self.dropped = cap, 0, 0
        self.parts: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
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


class GraderCallbackError(Exception):
    """The grader's side of a callback failed (e.g. a scripted input ran out of answers)."""


class Blocker:
    """A meta-path finder refusing the reference solutions and the tests (they are not in this
    process's copy of the package anyway; this gives a clear message)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.startswith(BLOCKED):
            raise ImportError(f"{name} is not available to a submission")
        return None


def source_only(folder: str) -> None:
    """Modules found in ``folder`` (the submission's copied files) or below it load from source
    only: a path hook gives that folder a finder holding the source loader alone, so a
    ``helpers.pyc`` or ``helpers.cpython-311-x86_64-linux-gnu.so`` there is never found (the
    sandbox copies none, and this says so to the import system too: red team 8's attack 12).
    Which files it imports is not reported: the process could forge or erase that list (red
    team 48, 05); the grader names the files it copied (``report.helpers_note``)."""
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

    top = os.path.realpath(folder)

    def hook(path: str) -> FileFinder:
        where = os.path.realpath(path or ".")
        if where == top or where.startswith(top + os.sep):
            return FileFinder(path, (SourceFileLoader, SOURCE_SUFFIXES))
        raise ImportError("not the submission's folder")  # the next hook's

    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()


def exception_data(error: BaseException, code_name: str) -> dict[Any, Any]:
    """An exception as plain data: its class names (for ``except ValueError`` on the grader's
    side), message, and the traceback lines in the student's own file."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == code_name]
    where = "".join(traceback.format_list(frames[-4:]))[-1500:]
    if isinstance(error, SyntaxError) and error.filename == code_name:
        where = f'  File "{code_name}", line {error.lineno}\n    {(error.text or "").strip()}\n'
    return {
        "types": [k.__name__ for k in type(error).__mro__],
        "message": str(error)[:2000],
        "traceback": where,
    }


class Server:
    """Answers the grader's requests about one submission module (also used in-process by a
    notebook's ``check``, where ``ask_grader`` is a direct call)."""

    def __init__(
        self,
        namespace: dict[Any, Any],
        code_name: str,
        ask_grader: Callable[[dict[Any, Any]], dict[Any, Any]],
    ):
        self.ns, self.code_name, self.ask_grader = namespace, code_name, ask_grader
        self.objects: dict[int, Any] = {}  # handles lent to the grader
        self.called: set[str] = set()
        # The student's functions running now, outermost first, each with the clock at its
        # call: the grader blames an overrun on the innermost call that has run for long (the
        # one that loops), not on whichever short call happens to be running when it asks.
        self.stack: list[str] = []
        self.since: list[float] = []
        from mcts_course.grading import public

        self.public_by_name = public.PUBLIC
        self.public_by_id = {id(f): name for name, f in public.PUBLIC.items()}

    # -- which of the student's functions ran (for "select_child calls your ucb1") -----------
    def wrap(self, names: list[str]) -> None:
        for name in names:
            func = self.ns.get(name)
            if isinstance(func, types.FunctionType):
                self.ns[name] = self._wrapper(name, func)
            elif isinstance(func, type) and func.__module__ == "submission":
                # A class of the contract (MCTSPlayer): its methods answer for it, so that a
                # loop in one of them is reported on the class, not on the test's last call.
                for attr, method in list(vars(func).items()):
                    if isinstance(method, types.FunctionType):
                        setattr(func, attr, self._wrapper(name, method))

    def _wrapper(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        called, stack, since = self.called, self.stack, self.since
        clock = time.monotonic  # taken now: the student's code may replace time.monotonic

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            called.add(name)
            stack.append(name)
            since.append(clock())
            try:
                return func(*args, **kwargs)
            finally:
                stack.pop()
                since.pop()

        wrapper.__wrapped__ = func  # type: ignore[attr-defined]  # functools.wraps's attribute, set by hand
        wrapper.__name__ = getattr(func, "__name__", name)
        wrapper.__doc__ = func.__doc__
        return wrapper

    # -- values ------------------------------------------------------------------------------
    def node_class(self) -> type:
        cls = self.ns.get("Node")
        if isinstance(cls, type):
            return cls
        from mcts_course.grading.public import Node

        return Node

    def _is_node(self, x: Any) -> bool:
        from mcts_course.grading.public import Node

        return isinstance(x, self.node_class() | Node)

    def _lend(self, x: Any) -> dict[Any, Any]:
        if isinstance(x, GraderProxy):
            return {"$c": x._id}
        self.objects[id(x)] = x
        return {"$o": id(x)}

    def _borrow(self, data: dict[Any, Any]) -> Any:
        if "$o" in data:
            try:
                return self.objects[data["$o"]]
            except (KeyError, TypeError):
                raise ProtocolError("an unknown object handle") from None
        return GraderProxy(self, data["$c"])

    def encoder(self) -> Encoder:
        return Encoder(self._is_node, self._lend, self.public_by_id)

    def decoder(self) -> Decoder:
        cls = self.node_class()
        return Decoder(lambda: object.__new__(cls), self._borrow, self.public_by_name)

    # -- requests ----------------------------------------------------------------------------
    def handle(self, request: dict[Any, Any]) -> dict[Any, Any]:
        """Answer one request: ``call`` (one call or, with ``many``, a list of calls of the same
        function, answered at once to save round trips) or ``getattr``."""
        op = request.get("op")
        if op == "release":
            self.objects.clear()
            return {"ok": None}
        out = CappedWriter()
        self.called.clear()
        old = sys.stdout, sys.stderr
        decoder = self.decoder()
        calls: list[Any] = []
        try:
            decoder.table(request.get("nodes", []))
            calls = decoder.value(request.get("calls", []))
            if not isinstance(calls, list):
                raise ProtocolError("bad calls")
            sys.stdout = sys.stderr = out
            if op == "call":
                target = self._target(request)
                repeat = request.get("repeat")
                if isinstance(repeat, int) and 0 < repeat <= 10**6 and len(calls) == 1:
                    args, kwargs = calls[0]  # the same arguments (one generator) every time
                    result = [target(*args, **kwargs) for _ in range(repeat)]
                else:
                    results = [target(*args, **kwargs) for args, kwargs in calls]
                    result = results if request.get("many") else results[0]
            elif op == "getattr":
                result = getattr(self._object(request), str(request.get("attr")))
            else:
                raise ProtocolError(f"unknown request {op!r}")
            sys.stdout, sys.stderr = old
            reply: dict[str, Any] = {"ok": result}
        except BaseException as error:  # the student's code may raise anything
            sys.stdout, sys.stderr = old
            reply = {"error": exception_data(error, self.code_name)}
        return self._finish(reply, decoder, calls, out)

    def _finish(
        self, reply: dict[Any, Any], decoder: Decoder, calls: list[Any], out: CappedWriter
    ) -> dict[Any, Any]:
        encoder = self.encoder()
        for node in decoder.nodes:  # the request's nodes keep their indices
            encoder.node(node)
        try:  # the arguments first: the grader decodes in this order (generator references)
            reply["calls"] = encoder.value(calls)
            if "ok" in reply:
                reply["ok"] = encoder.value(reply["ok"])
            reply["nodes"] = encoder.table()
        except BaseException as error:  # e.g. a Node without `visits`
            reply = {"error": exception_data(error, self.code_name), "nodes": list[Any]()}
            reply["error"]["message"] = "your result could not be sent back: " + str(error)
        reply["out"] = out.getvalue()
        reply["called"] = sorted(self.called)
        return reply

    def _target(self, request: dict[Any, Any]) -> Callable[..., Any]:
        if request.get("obj") is not None:
            found: Callable[..., Any] = self._object(request)
            return found
        name = request.get("name")
        if not isinstance(name, str) or name not in self.ns:
            raise NameError(f"`{name}` is not defined in your code")
        found = self.ns[name]
        return found

    def _object(self, request: dict[Any, Any]) -> Any:
        try:
            return self.objects[request["obj"]]
        except (KeyError, TypeError):
            raise ProtocolError("an unknown object handle") from None

    # -- calling back the grader (a scripted opponent, a fake input) -------------------------
    def callback(
        self, handle: int, method: str | None, args: tuple[Any, ...], kwargs: dict[Any, Any]
    ) -> Any:
        encoder = self.encoder()
        data_args, data_kwargs = encoder.value(list(args)), encoder.value(kwargs)
        reply = self.ask_grader(
            {
                "op": "cb",
                "obj": handle,
                "method": method,
                "args": data_args,
                "kwargs": data_kwargs,
                "nodes": encoder.table(),
            }
        )
        if "error" in reply:
            if method == "__getattr__" and str(reply["error"]).startswith("AttributeError"):
                raise AttributeError(str(reply["error"]))
            raise GraderCallbackError(str(reply["error"]))
        decoder = self.decoder()
        decoder.table(reply.get("nodes", []))
        sync(list(args), decoder.value(reply.get("args", [])))  # e.g. the rng a policy drew from
        return decoder.value(reply.get("ok"))


class GraderProxy:
    """An object of the grader (a player, ``input_fn``) as the student's code sees it."""

    def __init__(self, server: Server, handle: Any):
        object.__setattr__(self, "_server", server)
        object.__setattr__(self, "_id", handle)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._server.callback(self._id, None, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._server.callback(self._id, "__getattr__", (name,), {})
        if isinstance(value, dict) and value.get("method") is True and len(value) == 1:
            return lambda *a, **k: self._server.callback(self._id, name, a, k)
        return value


# -- the process -----------------------------------------------------------------------------
NPROC = 32  # processes (threads included) of a sandbox's user id at once


def enter(box: dict[Any, Any]) -> None:
    """Confine this process, before any student code exists in it: hide the private files that
    other users could read (a mount namespace of its own), become the sandbox's user id for
    good, and move to its work folder.  Raises on any failure: the grader then refuses to grade
    rather than run student code with more rights than planned."""
    if box.get("hide") or box.get("expose"):
        _mounts(box.get("expose", []), box.get("hide", []))
    uid = box.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid):
            raise PermissionError("the user id did not change")
        try:
            os.setuid(0)
        except PermissionError:
            pass
        else:
            raise PermissionError("root could be regained")
    if box.get("work"):
        os.chdir(box["work"])


def _mounts(expose: list[Any], paths: list[Any]) -> None:
    """In a mount namespace of this process alone (needs root with CAP_SYS_ADMIN): make each
    ``expose`` folder reachable (an empty folder laid over its closed ancestor, the folder bound
    back at its place), then mount an empty read-only folder over each private folder and
    /dev/null over each private file."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    newns, rdonly, nosuid, nodev, noexec, bind, rec, private = (
        0x20000, 1, 2, 4, 8, 4096, 16384, 1 << 18
    )  # fmt: skip

    def check(result: int, what: str) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    check(libc.unshare(newns), "unshare(CLONE_NEWNS)")
    check(libc.mount(b"none", b"/", None, rec | private, None), "mount --make-rprivate /")
    if expose:
        import tempfile

        stage = tempfile.mkdtemp(prefix="mcts-stage-")  # root's, 0700; removed below
        staged = []
        for k, path in enumerate(expose):
            spot = os.path.join(stage, str(k))
            os.mkdir(spot, 0o700)
            check(libc.mount(os.fsencode(path), os.fsencode(spot), None, bind | rec, None), path)
            staged.append(spot)
        tops: list[str] = []
        for path in expose:
            top = _closed_top(path)
            if top and not any(top == t or top.startswith(t + os.sep) for t in tops):
                tops.append(top)
        for top in tops:
            flags = nosuid | nodev
            check(libc.mount(b"tmpfs", os.fsencode(top), b"tmpfs", flags, b"mode=755"), top)
        for path, spot in zip(expose, staged, strict=True):
            os.makedirs(path, 0o755, exist_ok=True)
            check(libc.mount(os.fsencode(spot), os.fsencode(path), None, bind | rec, None), path)
        for spot in staged:
            check(libc.umount2(os.fsencode(spot), 2), spot)  # MNT_DETACH
            os.rmdir(spot)
        os.rmdir(stage)
    for path, folder in paths:
        target = os.fsencode(path)
        if folder:
            flags = rdonly | nosuid | nodev | noexec
            check(libc.mount(b"tmpfs", target, b"tmpfs", flags, b"size=4k,mode=555"), path)
        else:
            check(libc.mount(b"/dev/null", target, None, bind, None), path)
    # the kernel's keys are listed there whatever the namespace (the filter stops keyctl)
    for path in KEY_LISTS:
        if os.path.exists(path):
            check(libc.mount(b"/dev/null", os.fsencode(path), None, bind, None), path)


KEY_LISTS = ("/proc/keys", "/proc/key-users")


def _closed_top(path: str) -> str | None:
    import stat

    parts = os.path.abspath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        folder = os.sep.join(parts[:i])
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def limit_resources(memory_mb: int, cpu_seconds: int, sandboxed: bool = False) -> None:
    """Hard limits (the student's code cannot raise them again): memory, file size, CPU time
    (SIGXCPU at the soft limit, SIGKILL a little after), no core files, few open files and, with
    a user id of its own (a count per user id), few processes."""
    import resource

    limits = [
        (resource.RLIMIT_AS, memory_mb << 20, memory_mb << 20),
        (resource.RLIMIT_FSIZE, 16 << 20, 16 << 20),  # no disk filling through print or files
        (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 5),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NOFILE, 256, 256),
    ]
    if sandboxed:
        limits.append((resource.RLIMIT_NPROC, NPROC, NPROC))
        # no POSIX message queue (they outlive the process, counted per user id)
        limits.append((resource.RLIMIT_MSGQUEUE, 0, 0))
    for kind, soft, hard in limits:
        _, old_hard = resource.getrlimit(kind)
        if old_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, old_hard), min(hard, old_hard)
        resource.setrlimit(kind, (soft, hard))


def main() -> None:
    # SIGINT's default action back (the interpreter's handler turns it into KeyboardInterrupt,
    # which the student's code, or the loop below, would take as the code's own error): like
    # SIGTERM, only a kill sends it, and a death by it is not graded (red team 42, 01)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    job = json.loads(os.environ.pop("MCTS_GRADING_JOB"))
    inbox = os.fdopen(job["fds"][0], "r", encoding="utf-8")
    outbox = os.fdopen(job["fds"][1], "w", encoding="utf-8")

    def send(message: dict[Any, Any]) -> None:
        outbox.write(json.dumps(message) + "\n")
        outbox.flush()

    def receive() -> dict[Any, Any]:
        line = inbox.readline()
        if not line:
            os._exit(0)  # the grader is gone
        message: dict[Any, Any] = json.loads(line)
        return message

    def ask_grader(message: dict[Any, Any]) -> dict[Any, Any]:
        send(message)
        return receive()

    box = job.get("sandbox") or {}
    try:
        from mcts_course.grading import kernel

        # the grader's session keyring and the bounding set go while this process is root
        kernel.leave_keyrings()
        if os.geteuid() == 0:
            kernel.drop_capabilities()
        enter(box)
        limit_resources(job["memory_mb"], job["cpu_seconds"], box.get("uid") is not None)
        if box.get("landlock"):  # writes only in its own folders (red team 11's attack 10)
            from mcts_course.grading import landlock

            folders = [box["work"], os.environ.get("TMPDIR", box["work"])]
            if box.get("private_tmp"):  # namespaces: its own capped tmpfs folders stay writable
                folders += [f for f in landlock.PRIVATE_TMP if os.path.isdir(f)]
            landlock.restrict_writes(folders, box["landlock"])
        # last: enter() itself mounts; from here no key, namespace, mount, bpf or ptrace
        kernel.install_filter(strict=box.get("uid") is not None or os.geteuid() == 0)
    except BaseException as error:  # reported to the grader, which refuses
        send({"fatal": f"{type(error).__name__}: {error}"})
        os._exit(3)
    send({"boot": True})  # confined: from here on, the grader blames the student's code
    first = receive()
    code, display_name = str(first.get("code", "")), job["display_name"]
    from mcts_course.grading.narrow import narrow

    narrow(job.get("set"))  # before the student's code: what this set may not reach is gone
    sys.meta_path.insert(0, Blocker())
    work = box.get("work")
    if work and work not in sys.path:
        sys.path.append(work)  # so a file can import its sibling files (copied there)
    if work:
        source_only(work)

    module = types.ModuleType("submission")
    module.__file__ = os.path.join(work or ".", display_name)
    sys.modules["submission"] = module
    server = Server(module.__dict__, display_name, ask_grader)

    clock = time.monotonic

    def report_stack(signum: int, frame: Any) -> None:  # the grader asks where a test's time went
        now = clock()
        send({"stack": list(server.stack), "running": [now - t for t in server.since]})

    signal.signal(signal.SIGUSR1, report_stack)
    printed = CappedWriter()
    old = sys.stdout, sys.stderr
    try:
        sys.stdout = sys.stderr = printed
        exec(compile(code, display_name, "exec"), module.__dict__)
    except BaseException as error:  # a syntax error, an exception, sys.exit...
        sys.stdout, sys.stderr = old
        send({"import_error": exception_data(error, display_name), "out": printed.getvalue()})
        os._exit(0)
    sys.stdout, sys.stderr = old
    server.wrap(job.get("functions", []))
    names = [n for n, v in module.__dict__.items() if callable(v) and not n.startswith("_")]
    send({"ready": True, "out": printed.getvalue(), "names": names})
    while True:
        try:
            request = receive()
            reply = server.handle(request)
            reply["id"] = request.get("id")
            send(reply)
        except (ProtocolError, ValueError, TypeError) as error:
            send({"error": {"types": ["ProtocolError"], "message": str(error), "traceback": ""}})


if __name__ == "__main__":
    main()
