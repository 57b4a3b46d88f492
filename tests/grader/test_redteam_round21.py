"""Red team round 21: a held-back test of visibility ``after_published`` was written whole in
results.json before any date (10); the held-back phase's tests that the backstop stopped were
named in the merged ``extra_data`` and counted in the student's note (11); an exercise file
refused for what it is on disk (a second name a classmate's archive planted, an owner kept by
``tar`` run as root, a hard-linked backup) scored 0 in a row that read ``graded`` (16-18)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from grading_fixtures.shared_folders import honest
from mcts_grader.batch import FILE_REFUSED, RUN_FAILURES, grade
from mcts_grader.feedback import HELD_BACK, with_student_output

from mcts_course.grading.report import merge_results


def _test(name: str, visibility: str, output: str = "") -> dict:
    return {
        "name": name,
        "score": 0.0,
        "max_score": 1.0,
        "output": output,
        "visibility": visibility,
        "tags": ["bandits"],
        "extra_data": {},
    }


def test_10_a_test_shown_when_grades_are_published_is_held_back_whole():
    data = {
        "output": "",
        "tests": [
            _test("[bandits] visible", "visible", "seen"),
            _test("[bandits] later", "after_published", "SECRET 0.31"),
        ],
    }
    after = datetime(2099, 1, 1, tzinfo=timezone.utc)  # no date ever shows it
    shown = with_student_output(data, now=after, due=datetime(2000, 1, 1, tzinfo=timezone.utc))
    assert shown["tests"][0]["output"] == "seen"
    assert shown["tests"][1]["name"] == HELD_BACK and "SECRET" not in json.dumps(shown)


def test_11_the_held_back_phase_names_no_stopped_test():
    visible = {"tests": [], "extra_data": {"under_load": ["a visible test"]}}
    held = {"tests": [], "extra_data": {"under_load": ["the instructor's words", "more words"]}}
    merged = merge_results(visible, held)
    assert merged["extra_data"]["under_load"] == ["a visible test", "a held-back test"]
    assert "instructor" not in json.dumps(merged) and "more words" not in json.dumps(merged)
    assert "2 test(s)" in merged["output"]  # the visible one, and that there were held-back ones
    alone = merge_results({"tests": [], "extra_data": {}}, held)
    assert alone["extra_data"]["under_load"] == ["a held-back test"]


def test_16_an_exercise_file_with_a_second_name_is_not_a_grade(tmp_path):
    bob = honest(tmp_path / "bob")  # the reference bandits.py: full marks alone
    os.link(bob / "bandits.py", tmp_path / "planted")  # a second name, outside bob's folder
    (result,) = grade([bob], tmp_path / "out", sets=["bandits"], n_jobs=1)
    assert result.status == FILE_REFUSED and FILE_REFUSED in RUN_FAILURES  # grade exits 1
    notes = json.loads((tmp_path / "out" / "bob" / "results.json").read_text())
    assert "hard link" in json.dumps(notes)
    os.unlink(tmp_path / "planted")
    (again,) = grade([bob], tmp_path / "out2", sets=["bandits"], n_jobs=1)
    assert again.status == "graded" and again.score == again.max_score
