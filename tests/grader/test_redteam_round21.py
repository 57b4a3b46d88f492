"""Red team round 21: a held-back test of visibility ``after_published`` was written whole in
results.json before any date (10); the held-back phase's tests that the backstop stopped were
named in the merged ``extra_data`` and counted in the student's note (11); an exercise file
refused for what it is on disk (a second name a classmate's archive planted, an owner kept by
``tar`` run as root, a hard-linked backup) scored 0 in a row that read ``graded`` (16-18); the
graded file's own name, and the bytes of its siblings' names, reached the student's code
without changing the seed (19-21: a table of answers in a notebook's name); a load starved
of CPU by a busy machine scored 0 in a graded row (23)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from grading_fixtures.shared_folders import honest
from mcts_grader.batch import FILE_REFUSED, RUN_FAILURES, grade
from mcts_grader.feedback import HELD_BACK, with_student_output

from mcts_course.grading.plugin import seed_of
from mcts_course.grading.process import ImportFailed
from mcts_course.grading.report import merge_results
from mcts_course.grading.runner import SetRun


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


def test_19_the_graded_file_s_name_is_in_the_seed():
    code = "def ucb1_choice(counts, sums, c):\n    return 0\n"
    names = ["bandits.ipynb", "bandits~0.ipynb", "bandits~1.ipynb", "bandits\udc80.ipynb"]
    assert len({seed_of(code, (), name) for name in names}) == len(names)
    siblings = [("t\udc80.py", b"x = 1\n")], [("t\udc81.py", b"x = 1\n")]  # bytes 0x80, 0x81
    assert seed_of(code, siblings[0], "b.ipynb") != seed_of(code, siblings[1], "b.ipynb")


def test_23_a_load_starved_by_the_machine_is_not_a_grade():
    def starved():
        raise ImportFailed("loading your file took longer than 10 s", under_load=True)

    run = SetRun("bandits", starved)
    student, _ = run.student(1.0)
    assert run.load_under_load and "longer than 10 s" in run.why
    slow = SetRun("bandits", lambda: (_ for _ in ()).throw(ImportFailed("took longer")))
    slow.student(1.0)
    assert not slow.load_under_load  # the file's own slowness stays a 0 in a graded row
