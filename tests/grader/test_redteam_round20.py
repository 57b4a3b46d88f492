"""Red team round 20: drop refusing every column earned the point of the illegal-column test
(02); without namespaces, the copy of the hidden tests, and the bytecode pytest wrote beside
them, were readable by the sandbox's id through a folder exposed from the grader's sys.path
(08), and so was an instructor's PYTHONPATH folder (16); a few small messages to a lent
``print_fn`` grew the grader's own process by hundreds of megabytes (10); two batches graded at
once ran one's visible tests beside the other's held-back ones (14).  02 and 10 are graded end
to end in test_grading.py (the mutant ``connect4_drop_always_raises`` and the hostile
``print_fn_flood``); 13, the public recordings replayed, is gone with the recordings."""

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
from mcts_course.grading.phases import PHASES_ENV, shared_folder
from mcts_course.grading.protocol import MAX_VALUES
from mcts_course.grading.proxies import CALLBACK_VALUES, Connection
from mcts_course.grading.sandbox import BATCH_ENV


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
    # both named like a library folder: only the batch's own folder tells them apart
    inside = tmp_path / "batch" / "hidden" / "0" / "site-packages"
    inside.mkdir(parents=True)
    outside = tmp_path / "lib" / "site-packages"
    outside.mkdir(parents=True)
    monkeypatch.setenv(BATCH_ENV, str(tmp_path / "batch"))
    monkeypatch.setattr(sys, "path", [str(inside), str(outside), *sys.path])
    paths = sandbox.student_paths()
    assert str(inside) not in paths  # pytest put it there for the hidden tests
    assert str(outside) in paths  # a library folder stays


def test_16_only_the_interpreter_s_folders_reach_the_students_path(tmp_path, monkeypatch):
    instructor = tmp_path / "closed" / "mine"  # a PYTHONPATH folder of the instructor's
    instructor.mkdir(parents=True)
    elsewhere = tmp_path / "lib" / "site-packages"  # a library folder outside the prefixes
    elsewhere.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(instructor), str(elsewhere), *sys.path])
    paths = sandbox.student_paths()
    assert str(instructor) not in paths and str(elsewhere) in paths
    stdlib = os.path.dirname(os.__file__)
    assert stdlib in paths or os.path.realpath(stdlib) in map(os.path.realpath, paths)


def test_08_and_14_the_batch_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with batch._batch_env() as (one, first), batch._batch_env() as (two, second):
        assert first["PYTHONDONTWRITEBYTECODE"] == "1"  # no compiled tests beside the tests
        assert (first[BATCH_ENV], second[BATCH_ENV]) == (str(one), str(two))
        # two batches of one account share their phase locks: one's held-back phase keeps
        # the other's visible runs waiting (red team 20, 14)
        shared = Path(first[PHASES_ENV])
        assert second[PHASES_ENV] == str(shared) and shared.is_relative_to(tmp_path / "home")
        assert stat.S_IMODE(shared.stat().st_mode) == 0o700
        assert (shared / "phase.lock").is_file()


def test_14_without_a_home_for_the_locks_the_batch_says_so(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.write_text("not a folder")
    monkeypatch.setenv("HOME", str(home))
    folder, why = shared_folder(tmp_path / "own")
    assert folder == tmp_path / "own" and why
    with batch._batch_env() as (private, env):
        assert env[PHASES_ENV] == str(private)
    assert "a second batch graded at the same time" in capsys.readouterr().err


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
