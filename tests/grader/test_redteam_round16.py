"""Red team 16.  01 and 03: Python runs code whose syntax tree is deeper than the grader's
static checks could read back (a chain of 600 attributes beside the exercise file, 1,000
``elif`` branches in it): the checks overflowed their recursion in the grader's own process,
every test of the set failed with the grader's traceback as the student's feedback, and the
row read ``graded``.  Such code now gets no points for its exercise, with that reason, and an
error of the grader's while it prepares a set ends the run as the grader's failure.  04 (the
filter keeps SIGCHLD's action) is in test_redteam_rounds12_13.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time

import pytest
from grading_fixtures.shared_folders import SOLUTIONS
from test_redteam_round11_gl import _grade

from mcts_course.grading.pyparse import MAX_DEPTH, TooDeep, depth, parse

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")

ATTRIBUTES = "x = object()\ntry:\n    x" + ".a" * 600 + " = 1\nexcept AttributeError:\n    pass\n"
ELIFS = "n = 0\nif n == -1:\n    pass\n" + "".join(
    f"elif n == {i}:\n    pass\n" for i in range(1000)
)


def test_the_parser_holds_what_the_checks_cannot_read():
    """Both files are valid Python that runs (the attack's premise), and parse refuses both as
    too deep, while this repository's deepest file stays far below the bound."""
    for text in (ATTRIBUTES, ELIFS):
        exec(compile(text, "<attack>", "exec"), {})  # Python runs it
        with pytest.raises(TooDeep):
            parse(text)
    ours = max(depth(parse(p.read_text())) for p in SOLUTIONS.glob("*.py"))
    assert ours < MAX_DEPTH // 2


@pytest.mark.parametrize("where", ["helper", "exercise"])
def test_code_too_deep_to_check_gets_no_points_and_a_reason(tmp_path, where):
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SOLUTIONS / "bandits.py", sub / "bandits.py")
    if where == "helper":
        (sub / "deep.py").write_text(ATTRIBUTES)
    else:
        with (sub / "bandits.py").open("a") as f:
            f.write("\n" + ELIFS)
    data, _, log = _grade(sub, tmp_path)
    assert data["extra_data"]["status"] == "graded"
    ucb1 = [t for t in data["tests"] if "ucb1" in t["name"]]
    assert ucb1 and all(t["score"] == 0 for t in ucb1)
    name = "deep.py" if where == "helper" else "bandits.py"
    for test in ucb1:
        assert f'"{name}" is nested more than {MAX_DEPTH} levels deep' in test["output"], test
        assert "Traceback" not in test["output"] and "RecursionError" not in test["output"]


def test_the_same_reference_without_the_deep_code_takes_its_points(tmp_path):
    """The control: the reference alone scores, so the zero above is the depth's."""
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SOLUTIONS / "bandits.py", sub / "bandits.py")
    data, _, _ = _grade(sub, tmp_path)
    ucb1 = [t for t in data["tests"] if "ucb1" in t["name"]]
    assert ucb1 and all(t["score"] == t["max_score"] for t in ucb1)


@pytest.mark.skipif(os.geteuid() != 0, reason="a cgroup freezer and another user id need root")
def test_the_batch_end_kills_a_submission_a_dead_grader_left_frozen(tmp_path):
    """A grader whose process ended between two questions (a held-back test that called
    os._exit) left its submission's processes frozen: a frozen process takes no SIGKILL, and
    the batch's end (kill_all) looped on it until pytest's timeout.  It now thaws them."""
    from mcts_course.grading import confine, sandbox

    parent = confine._own_cgroup("freezer")
    if parent is None or not confine.cgroups_allowed():
        pytest.skip("no cgroup v1 freezer here")
    folder = parent / f"mcts-test-frozen-{os.getpid()}"
    folder.mkdir()
    uid = 1_999_999_991  # no sandbox's: kill_all kills by user id
    proc = subprocess.Popen(["sleep", "120"], user=uid, group=uid)
    try:
        (folder / "cgroup.procs").write_text(str(proc.pid))
        (folder / "freezer.state").write_text("FROZEN")
        for _ in range(1000):
            if (folder / "freezer.state").read_text().strip() == "FROZEN":
                break
            time.sleep(0.001)
        done = threading.Thread(target=sandbox.kill_all, args=(uid,), daemon=True)
        done.start()
        done.join(30)
        assert not done.is_alive(), "kill_all still waits on a frozen process"
        assert proc.wait(10) == -9
    finally:
        (folder / "freezer.state").write_text("THAWED")
        proc.kill()
        proc.wait()
        folder.rmdir()
