"""Red team round 49, on the helper-files note of round 48: ten decoys that sort first hid the
file that did the work behind "and 1 more" (01); a helper named as another exercise's file was
left out even when that exercise was not graded (02); and grade's merge of its two phases took
a choice note whose path began like the helpers note for it, dropping the real one (04)."""

from __future__ import annotations

import json

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading.report import (
    HELPER_FILES,
    HELPERS_NOTE,
    helpers_note,
    merge_results,
    run_notes,
)

HIDDEN = """import pytest


@pytest.mark.points(1, exercise="bandits_later", exercise_set="bandits",
                    visibility="after_due_date")
def test_later_arm(student):
    assert student.ucb1_choice([4, 4], [2.7182, 1.0], 0.0) == 0
"""


def test_01_every_helper_is_named_however_many_sort_before_it():
    names = [f"a{i}.py" for i in range(10)] + ["zz_engine.py"]
    note = helpers_note(names)
    assert note is not None and note.endswith(', "zz_engine.py"'), note
    assert all(n in note for n in names) and "more" not in note


def test_02_a_helper_named_as_an_ungraded_exercise_is_named_after_both_phases(tmp_path):
    sub = tmp_path / "shell"
    sub.mkdir()
    # the work is in connect4.py, which this grading does not grade as connect4
    (sub / "connect4.py").write_text((SOLUTIONS / "bandits.py").read_text())
    (sub / "bandits.py").write_text("from connect4 import *  # noqa: F403\n")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_later.py").write_text(HIDDEN)
    out = tmp_path / "o"
    args = ["grade", str(sub), "--out", str(out), "--tests", str(hidden)]
    main([*args, "--exercise-set=bandits", "-k", "ucb1 or later"])
    data = json.loads((out / "shell" / "results.json").read_text())
    later = [t for t in data["tests"] if t["visibility"] != "visible"]
    assert later and all(t["score"] == t["max_score"] for t in data["tests"]), data["tests"]
    notes = data["extra_data"]["notes"]
    assert HELPERS_NOTE + '"connect4.py"' in notes, notes
    assert data["extra_data"][HELPER_FILES] == ["connect4.py"]


def test_04_the_merge_takes_the_helpers_from_their_list_not_from_a_note_that_looks_alike():
    real = helpers_note(["engine.py"])
    forged = HELPERS_NOTE + "none/ttt_mcts.py was graded; other files hold the same exercise"
    notes = run_notes([forged], real, False, 0, [])
    assert notes == [forged, real]  # the choice sorts first
    first = {"tests": [], "extra_data": {"notes": notes, HELPER_FILES: ["engine.py"]}}
    second = {"tests": [], "extra_data": {"notes": notes, HELPER_FILES: ["engine.py"]}}
    merged = merge_results(first, second)["extra_data"]
    assert merged["notes"] == [forged, real], merged["notes"]
    assert merged[HELPER_FILES] == ["engine.py"]
