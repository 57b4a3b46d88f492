"""The sandbox's first process (``confine.INIT``) stops and continues the student's processes on
the grader's requests, and stops them again on a timer while they are to stay stopped.  Python
runs a signal's handler at the next bytecode, also inside another handler: a timer's re-stop
that had checked "stopped?" and had not yet stopped when the grader's "continue" ran whole
inside it stopped everything after it, for the whole next question ("15 s went by and your
code had used only 0.0 s of CPU": a teaching assistant's reference run, 1 in 5, and CI).

These tests run INIT's request code itself (``confine.INIT_REQUESTS``) with a fake ``os`` and
``signal``, and have a signal come in at each point of a handler where Python may run another."""

from __future__ import annotations

import signal as real_signal
import types

from mcts_course.grading import confine


class Namespace:
    """INIT's world: the requests waiting on its socket, the signals it sent to -1, and what
    comes in (a handler run by Python) at the n-th call to ``os.kill`` or ``os.read``."""

    def __init__(self, arrive_at: int, request: bytes, handler_signal: int):
        self.waiting = b""
        self.sent: list[int] = []
        self.calls = 0
        self.arrive_at, self.request, self.handler_signal = arrive_at, request, handler_signal
        self.timer: tuple[float, float] = (0.0, 0.0)
        self.code: dict[str, object] = {}

    def _maybe_arrive(self) -> None:
        self.calls += 1
        if self.calls == self.arrive_at:  # the other signal's handler runs here, whole
            self.waiting += self.request
            self.code["handle"](self.handler_signal, None)  # type: ignore[operator]

    def kill(self, pid: int, number: int) -> None:
        assert pid == -1
        self._maybe_arrive()
        self.sent.append(number)

    def read(self, fd: int, size: int) -> bytes:
        self._maybe_arrive()
        got, self.waiting = self.waiting[:size], self.waiting[size:]
        if not got:
            raise BlockingIOError  # a non-blocking socket with nothing in it
        return got

    def setitimer(self, which: int, delay: float, interval: float = 0.0) -> None:
        self.timer = (delay, interval)

    def load(self) -> None:
        fake_os = types.SimpleNamespace(kill=self.kill, read=self.read)
        fake_signal = types.SimpleNamespace(
            SIGSTOP=real_signal.SIGSTOP,
            SIGCONT=real_signal.SIGCONT,
            ITIMER_REAL=real_signal.ITIMER_REAL,
            setitimer=self.setitimer,
        )
        self.code.update(os=fake_os, signal=fake_signal, control=7)
        exec(confine.INIT_REQUESTS, self.code)

    def ask(self, request: bytes) -> None:
        self.waiting += request
        self.code["handle"](real_signal.SIGUSR1, None)  # type: ignore[operator]

    def tick(self) -> None:
        self.code["handle"](real_signal.SIGALRM, None)  # type: ignore[operator]


def test_requests_stop_and_continue_and_the_timer_stops_again():
    world = Namespace(arrive_at=0, request=b"", handler_signal=0)
    world.load()
    world.ask(b"s")
    assert world.sent == [real_signal.SIGSTOP] and world.timer[0] > 0
    for _ in range(confine.RESTOPS - 1):
        world.tick()
    assert world.sent.count(real_signal.SIGSTOP) == confine.RESTOPS
    assert world.timer == (confine.RESTOP_LATER, confine.RESTOP_LATER)  # now and then
    world.ask(b"c")
    assert world.sent[-1] == real_signal.SIGCONT and world.timer == (0, 0)
    world.tick()  # a tick already on its way when the timer was cleared: no stop
    assert world.sent[-1] == real_signal.SIGCONT
    world.ask(b"sc")  # two requests read at once: the last one counts
    assert world.sent[-1] == real_signal.SIGCONT


def _calls(first: bytes, then: bytes | None) -> int:
    """The calls to ``os.read`` and ``os.kill`` of one handler run undisturbed: after the
    request ``first``, the request ``then`` (None: a timer's tick)."""
    world = Namespace(arrive_at=0, request=b"", handler_signal=0)
    world.load()
    world.ask(first)
    world.calls = 0
    world.tick() if then is None else world.ask(then)
    return world.calls


def test_a_continue_that_comes_inside_a_re_stop_is_carried_out_last():
    """At each call of a timer's re-stop (read the socket, then kill), the grader's "continue"
    comes: the processes end continued."""
    for arrive_at in range(1, _calls(b"s", None) + 1):
        world = Namespace(arrive_at=0, request=b"c", handler_signal=real_signal.SIGUSR1)
        world.load()
        world.ask(b"s")
        world.calls, world.arrive_at = 0, arrive_at
        world.tick()
        assert world.calls >= arrive_at  # it did come
        assert world.sent[-1] == real_signal.SIGCONT, (arrive_at, world.sent)
        assert world.timer == (0, 0)


def test_a_stop_that_comes_inside_a_continue_is_carried_out_last():
    for arrive_at in range(1, _calls(b"s", b"c") + 1):
        world = Namespace(arrive_at=0, request=b"s", handler_signal=real_signal.SIGUSR1)
        world.load()
        world.ask(b"s")
        world.calls, world.arrive_at = 0, arrive_at
        world.ask(b"c")
        assert world.calls >= arrive_at
        assert world.sent[-1] == real_signal.SIGSTOP, (arrive_at, world.sent)
        assert world.timer[0] > 0  # and it stays stopped: the timer runs
