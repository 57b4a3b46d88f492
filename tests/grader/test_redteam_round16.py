"""Red team 16.  01 and 03: Python runs code whose syntax tree is deeper than the grader's
static checks could read back (a chain of 600 attributes beside the exercise file, 1,000
``elif`` branches in it): the checks overflowed their recursion in the grader's own process,
every test of the set failed with the grader's traceback as the student's feedback, and the
row read ``graded``.  Such code now gets no points for its exercise, with that reason, and an
error of the grader's while it prepares a set ends the run as the grader's failure.  04 (the
filter keeps SIGCHLD's action) is in test_redteam_rounds12_13.py."""

from __future__ import annotations

import shutil
import sys

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
        assert f"{name} is nested more than {MAX_DEPTH} levels deep" in test["output"], test
        assert "Traceback" not in test["output"] and "RecursionError" not in test["output"]


def test_the_same_reference_without_the_deep_code_takes_its_points(tmp_path):
    """The control: the reference alone scores, so the zero above is the depth's."""
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SOLUTIONS / "bandits.py", sub / "bandits.py")
    data, _, _ = _grade(sub, tmp_path)
    ucb1 = [t for t in data["tests"] if "ucb1" in t["name"]]
    assert ucb1 and all(t["score"] == t["max_score"] for t in ucb1)
