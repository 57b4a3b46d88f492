"""Red team round 42: another program's SIGINT became a KeyboardInterrupt of the student's code,
a failed test of a graded run (01); a SIGKILL to the sandbox's first process while a request
to it was unread read as "exited with status 0" (05); a helper file refused by the copy (a
hard link, another owner's file) was left out with no word, the row `graded` (06); a batch
stopped while the grader answered a call of the student's code to a lent function failed
that test as the code's, the row `graded` (08)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from grading_fixtures.asking import CALL, namespaced
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading.process import StudentGone
from mcts_course.grading.proxies import Connection


def _gone(process, budget: float = 10.0) -> str:
    with pytest.raises(StudentGone) as gone:
        process.exchange(CALL, budget, lambda m: {}, "f")
    return str(gone.value)


@namespaced
def test_01_another_programs_sigint_is_not_the_codes_error(started):
    process = started("import time\n\ndef f(x):\n    time.sleep(3)\n    return x\n")

    def interrupt() -> None:
        time.sleep(1.0)  # mid-question
        os.kill(process.server_pid, signal.SIGINT)

    sender = threading.Thread(target=interrupt)
    sender.start()
    why = _gone(process)
    sender.join()
    assert process.outside, why
    assert "SIGINT" in why and "not a grade" in why, why


@namespaced
def test_05_a_kill_with_a_request_unread_is_still_a_kill_from_outside(started):
    process = started("def f(x):\n    return x + 1\n")
    reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
    assert reply["ok"] == 2
    os.write(process.to_init, b"c")  # a request the first process has not read yet
    os.kill(process.init_pid, signal.SIGKILL)
    process.proc.wait(timeout=30)
    why = _gone(process)
    assert process.outside and "sent neither by the grader nor by a cap" in why, why
    assert "or your code did" in why, why  # it may have been the code's own os.kill (56, 10)


IMPORTS_HELPER = "\nfrom helper_x import ANSWER  # noqa: E402\n"


def _helper(hard_link: bool) -> Callable[[Path], None]:
    def put(sub: Path) -> None:
        (sub / "helper_x.py").write_text("ANSWER = 42\n")
        if hard_link:  # a second name: the copy refuses the file
            os.link(sub / "helper_x.py", sub.parent / "second-name.py")

    return put


@pytest.mark.parametrize("hard_link", [True, False])
def test_06_a_refused_helper_file_makes_the_row_not_graded(tmp_path, hard_link):
    code = (SOLUTIONS / "bandits.py").read_text() + IMPORTS_HELPER
    options = ("--exercise-set=bandits", "-k", "ucb1")
    data = graded_file(tmp_path, "sub", "bandits.py", code, *options, beside=_helper(hard_link))
    if not hard_link:  # a helper of its own: graded in full
        assert data["extra_data"]["status"] == "graded", data["extra_data"]
        assert data["score"] == sum(t["max_score"] for t in data["tests"]), data["tests"]
        return
    assert data["extra_data"]["status"] == "incomplete copy", data["extra_data"]
    log = (tmp_path / "out-sub" / "sub" / "pytest.log").read_text()
    assert '"helper_x.py" beside the exercise files was not copied' in log, log[-3000:]


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_08_the_graders_own_stop_in_a_lent_function_is_not_the_codes_error(stop):
    """A lent function's own exceptions go back to the student's code, as the call's error;
    the grader's stop (SIGTERM becomes KeyboardInterrupt in a graded run) ends the run."""
    connection = Connection(SimpleNamespace(alive=lambda: False))

    def lent(*args):
        raise stop

    def failing(*args):
        raise ValueError("the lent function's own error")

    connection.lent = {1: lent, 2: failing}
    call = {"obj": 2, "args": [], "kwargs": {"$d": []}, "nodes": []}
    assert "ValueError" in connection._callback(call)["error"]
    with pytest.raises(stop):
        connection._callback({**call, "obj": 1})
