"""Red team round 20: drop refusing every column earned the point of the illegal-column test
(02); without namespaces, the copy of the hidden tests, and the bytecode pytest wrote beside
them, were readable by the sandbox's id through a folder exposed from the grader's sys.path
(08); a few small messages to a lent ``print_fn`` grew the grader's own process by hundreds of
megabytes (10).  The first and last are graded end to end in test_grading.py (the mutant
``connect4_drop_always_raises`` and the hostile ``print_fn_flood``)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from mcts_grader import batch
from mcts_grader.vet import hidden_copy

from mcts_course.grading import sandbox
from mcts_course.grading.notebook import NotebookTransport
from mcts_course.grading.phases import PHASES_ENV
from mcts_course.grading.protocol import MAX_VALUES
from mcts_course.grading.proxies import CALLBACK_VALUES, Connection


def test_08_the_copy_of_hidden_tests_is_the_graders_alone(tmp_path):
    tests = tmp_path / "tests"
    (tests / "more").mkdir(parents=True)
    for file in (tests / "test_more.py", tests / "more" / "helper.py"):
        file.write_text("x = 1\n")
        file.chmod(0o644)
    tests.chmod(0o755)
    (tests / "more").chmod(0o755)
    (copy,) = hidden_copy([tests], tmp_path / "hidden")
    for folder, _, files in os.walk(copy):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        for file in files:
            assert stat.S_IMODE(os.stat(Path(folder) / file).st_mode) == 0o600, file
    (one,) = hidden_copy([tests / "test_more.py"], tmp_path / "hidden-one")
    assert stat.S_IMODE(one.stat().st_mode) == 0o600


def test_08_no_folder_of_the_batch_reaches_the_students_path(tmp_path, monkeypatch):
    inside = tmp_path / "batch" / "hidden" / "0" / "tests"
    inside.mkdir(parents=True)
    outside = tmp_path / "library"
    outside.mkdir()
    monkeypatch.setenv(PHASES_ENV, str(tmp_path / "batch"))
    monkeypatch.setattr(sys, "path", [str(inside), str(outside), *sys.path])
    paths = sandbox.student_paths()
    assert str(inside) not in paths  # pytest put it there for the hidden tests
    assert str(outside) in paths  # a library folder stays


def test_08_the_runs_write_no_bytecode():
    with batch._batch_env() as (_, env):
        assert env["PYTHONDONTWRITEBYTECODE"] == "1"


def test_10_what_lent_functions_receive_is_bounded_per_test():
    connection = Connection(NotebookTransport({}))
    kept: list[str] = []

    def print_fn(*args: object) -> None:  # keeps what it is given, as the test's print_fn does
        kept.append(" ".join(map(str, args)))

    connection.lent[id(print_fn)] = print_fn
    # one 8,000-character list and 899 references to it: a 8 kB message worth 900,000 units
    args = json.loads(json.dumps([["x" * 8000]] + [{"$same": 1}] * 899))
    message = {"op": "cb", "obj": id(print_fn), "args": args}
    per_call = 900 * (1 + 1 + 8000 // 8)  # the list, its string's units, at each reference
    calls = 3 * CALLBACK_VALUES // per_call
    answers = [connection._callback(message) for _ in range(calls)]
    accepted = CALLBACK_VALUES // per_call + 1  # the cap is checked before each call
    assert len(kept) == accepted < calls
    assert all("ok" in a for a in answers[:accepted])
    assert all("sent more data" in a["error"] for a in answers[accepted:])
    assert "sent more data" in str(connection.callback_failure)
    assert sum(map(len, kept)) < 8 * (CALLBACK_VALUES + MAX_VALUES)  # what the grader kept
    connection.begin_test(1.0)  # the next test starts with nothing counted
    assert connection.callback_values == 0
