"""Red team round 48: the "helper files imported" note came from the student's process (the
sandbox server's record of the imports it saw), so a submission whose code lived in a helper
could empty that record and leave the instructor no note, or only one saying the helper "was
not" graded (05-07).  The grader now names the .py files it copies beside the exercise files,
from the folder, and says a second copy of an exercise was not graded *as it*."""

from __future__ import annotations

import json

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading.report import HELPERS_NOTE
from mcts_course.grading.runner import helper_files
from mcts_course.grading.sources import Source

# The exercise file is a shell: everything comes from engine_impl.py, and the shell tries to
# empty whatever record of imports the process running it keeps (attack 05's lines).
SHELL = '''"""Bandits (see engine_impl)."""
import sys as _sys

from engine_impl import *  # noqa: F401,F403

_f = _sys._getframe(0)
while _f is not None:
    for _name, _value in list(_f.f_globals.items()):
        if isinstance(_value, set) and _value and all(isinstance(v, str) for v in _value):
            _value.clear()
    _f = _f.f_back
'''


def test_05_a_helper_that_did_the_work_is_named_whatever_the_process_says(tmp_path):
    sub = tmp_path / "shell"
    sub.mkdir()
    (sub / "engine_impl.py").write_text((SOLUTIONS / "bandits.py").read_text())
    (sub / "bandits.py").write_text(SHELL)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    data = json.loads((out / "shell" / "results.json").read_text())
    assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"]), data
    notes = data["extra_data"]["notes"]
    assert HELPERS_NOTE + '"engine_impl.py"' in notes, notes
    # the helper holds the same exercise: the choice note must not deny it was used
    (same,) = [n for n in notes if "hold the same exercise" in n]
    assert 'were not graded as it: "engine_impl.py"' in same, same
    assert "Note: " + HELPERS_NOTE + '"engine_impl.py"' in data["output"]


def test_the_graded_exercise_files_are_not_listed_as_helpers(tmp_path):
    for name in ("bandits.py", "ttt_mcts.py", "connect4.py", "notes.py", "c4rules.py"):
        (tmp_path / name).write_text("X = 1\n")
    (tmp_path / "data.txt").write_text("not python")
    source = Source(tmp_path / "ttt_mcts.py", "py", "X = 1\n")
    graded = [tmp_path / "bandits.py", tmp_path / "connect4.py", tmp_path / "ttt_mcts.py"]
    assert sorted(helper_files(source, graded)) == ["c4rules.py", "notes.py"]
    # a file named as an exercise that is not graded as one is code beside the graded file
    assert sorted(helper_files(source, graded[1:])) == ["bandits.py", "c4rules.py", "notes.py"]
    assert helper_files(None, graded) == []
