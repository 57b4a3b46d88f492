"""The grader's view of the student: ``student.select_child(root, 1.4)`` as a question.

:class:`Connection` turns a test's call into a request with plain data, waits for the answer
within the test's time budget (through a transport: a
:class:`~mcts_course.grading.process.StudentProcess`, or a notebook's
:class:`~mcts_course.grading.notebook.NotebookTransport`), applies the answer's changes to the
grader's own objects only when the test asks with ``.keeping`` (a tree after ``backpropagate``,
a generator after ``simulate``) and hands back the result.  :class:`Student`,
:class:`RemoteFunction` and :class:`RemoteObject` are what a test holds.  Nothing the
student sends is trusted: decoding is bounded (:mod:`mcts_course.grading.protocol`) and any
failure is a failed test, never a grader crash.
"""

from __future__ import annotations

import time
from collections.abc import Container
from typing import Any

from mcts_course.grading import public
from mcts_course.grading.clock import TIMED_OUT
from mcts_course.grading.process import (
    MissingDefinition,
    StudentError,
    StudentGone,
    StudentProcess,
    student_error,
)
from mcts_course.grading.protocol import MAX_VALUES, Decoder, Encoder, ProtocolError, sync

__all__ = [
    "LENT_ATTRIBUTES",
    "Connection",
    "MissingDefinition",
    "RemoteFunction",
    "RemoteObject",
    "Student",
]

# What the student's code may read of an object the grader lends it (a player of the tests:
# ``select_action`` and its ``name``); everything else answers AttributeError.
LENT_ATTRIBUTES = frozenset({"select_action", "name"})
# What the student's calls to lent objects may carry in one test, all calls together (in the
# decoder's units, about 8 characters each).  One message is bounded by MAX_VALUES, but what the
# test keeps of each call (``print_fn``'s lines) adds up in the grader's own process: fifty
# small messages that each expand to 7 MB by shared references grew it by 400 MB (red team
# 20, 10).  Honest tests stay far below (a search's calls to a lent evaluation: a few hundred
# thousand).
CALLBACK_VALUES = 8 * MAX_VALUES
# The grader's own CPU time answering those calls in one test (decoding what they carry, the lent
# object's work, encoding its answer), in seconds per second of the test's time limit, plus a
# floor.  It is set aside from the question's clock (a lent player searching on a loaded machine
# is no wait of the student's), so it needs a limit of its own: calls that each carried 60
# Connect Four states held one question of a 6 s test 75 s, graded (red team 43, 01 and 04).
# The reference solutions use at most 0.044 s per second (test_monte_carlo_move), 0.3 at
# --timeout-scale 0.15.
CALLBACK_SHARE = 1.0
CALLBACK_FLOOR = 1.0
# What a test's start asks the student's process (to let go of what the last test gave it), as
# the student is told of it
RELEASE = "release (your process letting go of what the last test gave it)"


class Connection:
    """Asks the student's code questions for the tests, within each test's time budget."""

    def __init__(self, transport: Any):  # a StudentProcess, or a notebook's NotebookTransport
        self.transport = transport
        self.budget = self.spent = 0.0
        self.asked = 0
        self.out: list[str] = []
        self.called: set[str] = set()  # the student's functions that ran in this test
        # the functions whose runs the student's process reports (a notebook's: any name)
        watched = getattr(transport, "functions", None)
        self.watched: Container[str] = _AnyName() if watched is None else frozenset(watched)
        self.direct: list[str] = []  # the functions the test called itself
        self.lent: dict[int, Any] = {}
        self.callback_failure: BaseException | None = None
        self.gone: StudentGone | None = None  # the process ended as this test began
        self.last_asked = ""  # the function of this test's last question
        self.callback_values = 0  # what the calls to lent objects carried in this test
        self.callback_cpu = 0.0  # the grader's CPU seconds answering them
        self.callback_allowed = CALLBACK_FLOOR

    def begin_test(self, budget: float) -> None:
        self.budget, self.out, self.called, self.direct = budget, [], set(), []
        self.spent = 0.0  # seconds the student's code took in this test (round trips included)
        self.asked = 0  # questions of this test
        self.lent, self.callback_failure, self.callback_values = {}, None, 0
        self.callback_cpu, self.callback_allowed = 0.0, CALLBACK_SHARE * budget + CALLBACK_FLOOR
        self.gone, self.last_asked = None, ""
        if self.transport.alive() and isinstance(self.transport, StudentProcess):
            try:
                self.request({"op": "release"}, RELEASE)
            except StudentGone as gone:  # the test's first question says so, where the test's
                # verdict is given: raised here, in pytest's setup, a stall was a plain failure
                # with the grader's traceback, the row "graded" (red team 45, 06)
                self.gone = gone

    # -- values ----------------------------------------------------------------------------
    def _lend(self, x: Any) -> dict[Any, Any]:
        if isinstance(x, RemoteObject):
            return {"$o": x._id}
        self.lent[id(x)] = x
        return {"$c": id(x)}

    def _borrow(self, data: dict[Any, Any]) -> Any:
        if "$o" in data:
            return RemoteObject(self, data["$o"])
        try:
            return self.lent[data["$c"]]
        except (KeyError, TypeError):
            raise ProtocolError("an unknown handle") from None

    def encoder(self) -> Encoder:
        public_ids = {id(f): name for name, f in public.PUBLIC.items()}
        return Encoder(lambda x: isinstance(x, public.Node), self._lend, public_ids)

    def decoder(self, nodes: Any = None, keep: bool = True) -> Decoder:
        return Decoder(
            lambda: object.__new__(public.Node), self._borrow, public.PUBLIC, nodes, keep
        )

    # -- requests --------------------------------------------------------------------------
    def request(self, message: dict[Any, Any], function: str) -> dict[Any, Any]:
        if self.gone is not None:
            raise self.gone
        if self.budget <= 0 and message.get("op") != "release":
            # The test's time is used up: each question had at least 0.05 s, so a loop of
            # quick ones (a select_child returning its own node to the grader's loop) ran until
            # the whole set's CPU limit, 521 s for a test of 8 s.  Told on the function asked
            # last, which used the time up (the release, when it took it all), not this one
            why = f"{TIMED_OUT}: {self.asked} questions"
            last = self.last_asked or function
            raise StudentGone(last, why, TIMED_OUT, questions=self.asked)
        self.asked += 1
        self.last_asked = function
        budget = max(self.budget, 0.05)  # the release too: its seconds are the test's
        reply: dict[Any, Any]
        try:
            reply, seconds = self.transport.exchange(message, budget, self._callback, function)
        except StudentGone as gone:
            if gone.kind == TIMED_OUT:  # the question had what was left of the limit
                self.spent += budget
                self.budget = 0.0
            raise
        # the release's seconds too: the student's process runs while it answers it, at the
        # start of each test (4.5 s of work a test of 5 s its own, counted by none: red team
        # 44, 08)
        self.budget -= seconds
        self.spent += seconds
        return reply

    def call(
        self,
        function: str,
        args: tuple[Any, ...],
        kwargs: dict[Any, Any],
        obj: Any = None,
        keep: bool = False,
    ) -> Any:
        return self.call_many(function, [(args, kwargs)], obj, many=False, keep=keep)

    def call_many(
        self,
        function: str,
        calls: list[Any],
        obj: Any = None,
        many: bool = True,
        repeat: int = 0,
        keep: bool = False,
    ) -> Any:
        """Call ``function`` once per ``(args, kwargs)`` of ``calls`` in one request (the
        student's process answers them in order); a list of results (one result if not many).
        The student's changes to the lists, dicts, generators and tree nodes given are copied
        back into the test's own objects only with ``keep`` (a test that asks for them, e.g.
        the rng a playout drew from): otherwise a submission could rewrite the test's inputs,
        and the test's own reference answer with them."""
        # What this call lends (a player, an evaluation) is revoked when it returns: a
        # submission that kept it (red team 5, 03) cannot make the grader's own MCTS play for it
        # in a later call.  Objects an outer call lent stay theirs (a call made from a callback).
        before = set(self.lent)
        try:
            encoder = self.encoder()  # lends as it encodes the arguments
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
            found = self._answer(reply, encoder, originals, keep)
            asked = repeat if repeat else len(calls)
            if many and (not isinstance(found, list) or len(found) != asked):
                # a test looping over the answers would otherwise assert nothing about the
                # calls left out (red team 22, 04: a failing repeat answered with [])
                count = len(found) if isinstance(found, list) else "no list of"
                raise _bad_answer(f"bad answer: {count} results for {asked} calls")
            return found
        finally:
            for handle in set(self.lent) - before:
                del self.lent[handle]

    def getattr(self, obj: Any, attr: str, function: str) -> Any:
        encoder = self.encoder()
        message = {"op": "getattr", "obj": obj, "attr": attr, "nodes": [], "calls": []}
        return self._answer(self.request(message, function), encoder, [], keep=False)

    def _answer(
        self, reply: dict[Any, Any], encoder: Encoder, originals: list[Any], keep: bool
    ) -> Any:
        """The call's result.  One rule for what flows back: nothing the student's code did to
        the arguments (lists, dicts, generators, the test's tree nodes) changes the test's
        objects unless the test asked with ``keep``; a result that is one of the test's nodes
        is that node, as it was."""
        if not isinstance(reply, dict):
            raise ProtocolError("a reply that is not a message")
        out = reply.get("out", "")
        self.out.append(out[:4000] if isinstance(out, str) else "")  # no str() of 8 MB of data
        called = reply.get("called", [])
        if isinstance(called, list):  # only the names the server watches: 50 names of 150 KB
            # with every answer, kept until the test ended, grew the grader to 3.7 GB (red team
            # 44, 07)
            self.called |= {c for c in called[:50] if isinstance(c, str) and c in self.watched}
        began = time.thread_time()
        try:
            return self._decoded(reply, encoder, originals, keep)
        finally:  # the grader's CPU decoding it is the test's time too (red team 31, 07),
            # and so the student's seconds results.json shows (red team 57, 06)
            decoding = time.thread_time() - began
            self.budget -= decoding
            self.spent += decoding

    def _decoded(
        self, reply: dict[Any, Any], encoder: Encoder, originals: list[Any], keep: bool
    ) -> Any:
        decoder = self.decoder(encoder.nodes, keep)
        try:
            decoder.table(reply.get("nodes", []))  # the student's changes to our trees
            sent = reply.get("calls", [])
            if not isinstance(sent, list) or len(sent) > len(originals):  # before decoding
                raise ProtocolError(f"changes to {len(sent)} calls, not {len(originals)}")
            calls = decoder.value(sent) if keep else []
            seen: set[int] = set()
            for (args, kwargs), data in zip(
                originals if keep else [], calls if isinstance(calls, list) else [], strict=False
            ):
                if isinstance(data, list) and len(data) == 2:
                    sync(args, data[0], seen)
                    if isinstance(data[1], dict):
                        keys = [k for k in kwargs if k in data[1]]
                        sync([kwargs[k] for k in keys], [data[1][k] for k in keys], seen)
        except ProtocolError as error:
            raise _bad_answer(f"bad answer: {error}") from None
        if self.callback_failure is not None:
            failure, self.callback_failure = self.callback_failure, None
            raise failure
        if "error" in reply:
            raise student_error(reply["error"])
        try:
            return decoder.value(reply.get("ok"))
        except ProtocolError as error:
            raise _bad_answer(f"your result could not be read: {error}") from None

    def _callback(self, message: dict[Any, Any]) -> dict[Any, Any]:
        """The student's code calls one of our objects (a player, ``input_fn``)."""
        began = time.thread_time()
        try:
            if self.callback_values > CALLBACK_VALUES:  # refused before any decoding
                raise AssertionError(
                    "your code sent more data to the functions the test lent it than a test "
                    f"allows (about {8 * CALLBACK_VALUES >> 20} MB)"
                )
            if self.callback_cpu > self.callback_allowed:
                raise AssertionError(
                    f"your code's calls to the functions the test lent it took the grader "
                    f"{self.callback_cpu:.1f} s of its own CPU time; this test allows "
                    f"{self.callback_allowed:.1f} s (your code calls them too often, or sends "
                    "them too much)"
                )
            handle = message.get("obj")
            target = self.lent.get(handle) if isinstance(handle, int) else None
            if target is None:  # before decoding what it sends (red team 43, 01)
                raise ProtocolError("a call to an unknown object")
            decoder = self.decoder()
            try:
                decoder.table(message.get("nodes", []))
                args = decoder.value(message.get("args", []))
                kwargs = decoder.value(message.get("kwargs", {"$d": []}))
            finally:
                self.callback_values += decoder.count
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ProtocolError("a call to an unknown object")
            result = _lent_call(target, message.get("method"), args, kwargs)
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
        except Exception as error:  # reported to the test, after the call (not the grader's
            # own KeyboardInterrupt or SystemExit: a batch stopped, red team 42, 08)
            if self.callback_failure is None and isinstance(error, AssertionError):
                self.callback_failure = error
            return {"error": f"{type(error).__name__}: {error}"}
        finally:
            self.callback_cpu += time.thread_time() - began


class _AnyName:
    """Every short name (a notebook's ``check`` runs in the student's own process)."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and len(name) <= 200


def _lent_call(target: Any, method: Any, args: list[Any], kwargs: dict[Any, Any]) -> Any:
    """What the lent object ``target`` answers to ``method``."""
    # a lent object answers as itself (a call) and through the contract's names only: any
    # other attribute may hold something the test does not count (the evaluation inside a
    # counting wrapper, a player's generator)
    if method == "__getattr__":
        name = str(args[0]) if args else ""
        if name not in LENT_ATTRIBUTES:
            raise AttributeError(name)
        value = getattr(target, name)
        return {"method": True} if callable(value) else value
    if method is None:
        return target(*args, **kwargs)
    if method not in LENT_ATTRIBUTES:
        raise AttributeError(str(method))
    return getattr(target, method)(*args, **kwargs)


def _bad_answer(message: str) -> StudentError:
    """The error a test sees for an answer the grader cannot take: a ValueError of the
    submission's, as if its code had raised it."""
    return student_error({"types": ["ValueError"], "message": message})


def _refuse(x: Any) -> dict[Any, Any]:
    raise ProtocolError(f"the grader cannot send a {type(x).__name__}")


class RemoteFunction:
    """A function (or class) of the submission; calling it asks the student's process."""

    def __init__(self, connection: Connection, name: str):
        self._connection, self._name = connection, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._connection.direct.append(self._name)
        return self._connection.call(self._name, args, kwargs)

    def keeping(self, *args: Any, **kwargs: Any) -> Any:
        """Like a call, and the student's changes to the lists, dicts and random generators
        given are copied back into them (a call only ever works on copies)."""
        self._connection.direct.append(self._name)
        return self._connection.call(self._name, args, kwargs, keep=True)

    def many(self, calls: list[Any], keep: bool = False) -> list[Any]:
        """The results of many calls at once: ``calls`` lists argument tuples (or (args,
        kwargs) pairs); the student's process runs them in order, in one round trip;
        ``keep`` as in :meth:`keeping`."""
        self._connection.direct.append(self._name)
        pairs = [c if _is_pair(c) else (tuple(c), {}) for c in calls]
        return self._connection.call_many(self._name, pairs, keep=keep) if pairs else []

    def repeat(self, times: int, *args: Any, keep: bool = False, **kwargs: Any) -> list[Any]:
        """The results of ``times`` calls with the very same arguments (a generator among them
        goes on drawing), in one round trip; ``keep`` as in :meth:`keeping`."""
        self._connection.direct.append(self._name)
        found: list[Any] = self._connection.call_many(
            self._name, [(args, kwargs)], repeat=times, keep=keep
        )
        return found

    def __repr__(self) -> str:
        return f"<your {self._name}>"


def _is_pair(c: Any) -> bool:
    return (
        isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], tuple) and isinstance(c[1], dict)
    )


# What a test is told when it compares an object of the student's code, or takes it as true or
# false: such an object stands where the tests expect a value only when a graded function
# returned something that is not data.
NOT_DATA = (
    "your code returned an object of its own where a value was expected (a number, a string, "
    "a list, a tuple, a dict...): an object of your code cannot be compared with a value, nor "
    "taken as true or false"
)


class RemoteObject:
    """An object living in the student's process (a player); attributes and calls are asked.

    It is not data: comparing it (``==``, ``!=``, ``<``...) or taking it as true or false fails
    the test with :data:`NOT_DATA`.  With ``object``'s own methods it was unequal to every value
    and true, so a stub that returned one passed an instructor's ``assert f(x) != 0`` and
    ``assert f(x)`` (red team 59, 09).  Its hash stays its identity."""

    def __init__(self, connection: Connection, handle: Any):
        object.__setattr__(self, "_connection", connection)
        object.__setattr__(self, "_id", handle)

    def _not_data(self, *_: Any) -> bool:
        raise student_error({"types": ["TypeError"], "message": NOT_DATA})

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = _not_data
    __hash__ = object.__hash__

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._connection.getattr(self._id, name, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
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

    def ran(self, name: str) -> bool:
        """Whether the submission's ``name`` ran in this test so far (a function the contract
        says another one uses: ``experiment`` runs ``mcts_search``, not a table of answers).
        A notebook's ``check`` runs the cells' functions as they are, unwrapped: it cannot
        tell, and says yes (feedback, not a grade)."""
        if not isinstance(self._connection.transport, StudentProcess):
            return True
        return name in self._connection.called

    def __repr__(self) -> str:
        # pytest shows fixtures' values in some reports: name what is there, ask nothing
        shown = ", ".join(sorted(self._names)[:10])
        more = f", ... ({len(self._names)} names)" if len(self._names) > 10 else ""
        return f"<the submission's code: {shown}{more}>"
