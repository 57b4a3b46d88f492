"""Red team round 22: a student's ``StopIteration`` reached an instructor's hidden test as a
real one, so a test over ``map(...)`` or ``all(map(...))`` ended its loop and passed with no
answer asked (03); the length of a ``repeat``/``many`` answer was never checked, so a process
that answered a failing ``repeat`` with ``[]`` passed a test looping over the answers (04)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading.process import StudentError, student_error

HIDDEN = '''
import pytest

CASES = [(([2, 2], [0.0, 2.0], 0.0), 1), (([1, 3, 1], [1.0, 2.0, 0.0], 0.0), 0)]


@pytest.mark.points(2, exercise="bandits", visibility="hidden")
def test_greedy_zip_map(student):
    """ucb1_choice with c=0 picks the best mean (zip over map)"""
    for (args, want), got in zip(CASES, map(lambda case: student.ucb1_choice(*case[0]), CASES)):
        assert got == want


@pytest.mark.points(2, exercise="bandits", visibility="hidden")
def test_greedy_all_map(student):
    """ucb1_choice with c=0 picks the best mean (all over map)"""
    assert all(map(lambda case: student.ucb1_choice(*case[0]) == case[1], CASES))
'''

STOPPER = """

def ucb1_choice(counts, sums, c=2 ** 0.5):
    raise StopIteration("no answer at all")
"""

# a softmax that fails, and a process that answers a failing repeat with no answers at all
EMPTY_REPEAT = """

def softmax_choice(counts, sums, temperature, rng):
    raise OverflowError("math range error")


import sys as _sys


def _patch():
    for _name, _mod in list(_sys.modules.items()):
        if not (_name == "__main__" or _name.endswith("grading.server")):
            continue
        _cls = vars(_mod).get("Server")
        if isinstance(_cls, type) and hasattr(_cls, "handle") and not hasattr(_cls, "_p"):
            _orig = _cls.handle

            def handle(self, request, _orig=_orig):
                reply = _orig(self, request)
                if request.get("repeat") and "error" in reply:
                    reply = {"ok": [], "calls": reply.get("calls", []),
                             "nodes": reply.get("nodes", []), "out": "", "called": []}
                return reply

            _cls.handle, _cls._p = handle, True


_patch()
"""


@pytest.mark.parametrize("name", ["StopIteration", "StopAsyncIteration"])
def test_03_a_students_stop_is_no_end_of_iteration(name):
    error = student_error({"types": [name, "Exception", "BaseException"], "message": "x"})
    assert isinstance(error, StudentError) and not isinstance(error, StopIteration)
    assert not isinstance(error, StopAsyncIteration)

    def asked(_):
        raise error

    with pytest.raises(StudentError):
        list(map(asked, [1, 2]))
    # the other built-in classes are kept: a test's "except ValueError" still catches
    assert isinstance(student_error({"types": ["ValueError", "Exception"]}), ValueError)


def _sub(where: Path, extra: str) -> Path:
    where.mkdir(parents=True)
    (where / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + extra)
    return where


def test_03_hidden_tests_over_map_fail_a_stopping_answer(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_hidden_map.py").write_text(HIDDEN)
    sub = _sub(tmp_path / "stopper", STOPPER)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--tests", str(hidden), "--exercise-set=bandits"])
    data = json.loads((out / "stopper" / "results.json").read_text())
    held = [t for t in data["tests"] if t["visibility"] != "visible"]
    assert len(held) == 2 and all(t["score"] == 0 for t in held), held


def test_04_a_repeat_answered_with_fewer_results_fails(tmp_path):
    sub = _sub(tmp_path / "patched", EMPTY_REPEAT)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "softmax"])
    data = json.loads((out / "patched" / "results.json").read_text())
    tiny = [t for t in data["tests"] if "tiny temperature" in t["name"]]
    assert len(tiny) == 1 and tiny[0]["score"] == 0, tiny
    assert "0 results for 100 calls" in tiny[0]["output"], tiny[0]["output"]


# -- 15: the two phases copy the folder each at its start: the same files, or not a grade ------
def test_15_the_copy_has_a_fingerprint_of_its_names_and_bytes(tmp_path):
    import os

    from mcts_course.grading import snapshot

    sub = _sub(tmp_path / "s", "")
    (sub / "helper.py").write_text("X = 1\n")
    first = snapshot.take(sub).digest()
    assert snapshot.take(sub).digest() == first
    (sub / "helper.py").write_text("X = 2\n")
    changed = snapshot.take(sub).digest()
    assert changed != first
    os.symlink("/etc/passwd", sub / "link.py")  # refused, but its name still counts
    assert snapshot.take(sub).digest() != changed


def test_15_phases_that_graded_other_files_are_no_grade():
    from mcts_grader.batch import CHANGED, RUN_FAILURES, merge_phases

    def run(digest: str, visibility: str) -> dict:
        test = {
            "name": "t",
            "score": 1.0,
            "max_score": 1.0,
            "visibility": visibility,
            "tags": ["bandits"],
        }
        extra = {"status": "graded", "copy_digest": digest, "held_back_tests": 1}
        return {"tests": [test], "extra_data": extra, "output": ""}

    same, _ = merge_phases((run("a", "visible"), ""), (run("a", "hidden"), ""))
    assert same["extra_data"]["status"] == "graded"
    other, _ = merge_phases((run("a", "visible"), ""), (run("b", "hidden"), ""))
    assert other["extra_data"]["status"] == CHANGED and CHANGED in RUN_FAILURES


def test_15_a_graded_run_records_its_fingerprint(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_hidden_map.py").write_text(HIDDEN)
    sub = _sub(tmp_path / "honest", "")
    out = tmp_path / "o"
    code = main(["grade", str(sub), "--out", str(out), "--tests", str(hidden), "-k", "greedy"])
    data = json.loads((out / "honest" / "results.json").read_text())
    assert data["extra_data"]["status"] == "graded" and code == 0
    assert len(data["extra_data"]["copy_digest"]) == 64


def test_15_a_change_between_the_phases_is_no_grade(tmp_path, monkeypatch):
    from mcts_grader import batch

    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_hidden_map.py").write_text(HIDDEN)
    sub = _sub(tmp_path / "swapped", STOPPER)
    original = batch.run_one

    def swapping(path, scratch, tests, options, env, runs, cap, phase):
        if phase != "visible":  # what a watcher did: the right code, once the visible tests ended
            (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        return original(path, scratch, tests, options, env, runs, cap, phase)

    monkeypatch.setattr(batch, "run_one", swapping)
    out = tmp_path / "o"
    code = main(["grade", str(sub), "--out", str(out), "--tests", str(hidden), "-k", "greedy"])
    data = json.loads((out / "swapped" / "results.json").read_text())
    assert data["extra_data"]["status"] == batch.CHANGED and code == 1
    assert "swapped,changed while graded," in (out / "grades.csv").read_text()


# -- 01: the grader's tree test asks about inputs drawn for the submission ---------------------
ATTACKS = Path(__file__).parent / "attacks" / "round22"


def test_01_a_table_of_the_old_fixed_trees_scores_nothing(tmp_path):
    sub = tmp_path / "table"
    sub.mkdir()
    (sub / "ttt_mcts.py").write_text((ATTACKS / "recorded_tree_ttt_mcts.py.txt").read_text())
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=ttt_mcts", "-k", "same_tree"])
    data = json.loads((out / "table" / "results.json").read_text())
    (tree,) = [t for t in data["tests"] if "same tree as the reference" in t["name"]]
    assert tree["score"] == 0, tree
