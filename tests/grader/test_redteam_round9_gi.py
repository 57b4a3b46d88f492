"""Red team round 9, helper GI's items: the Gradescope builder packing a student's files found
under --tests (01, and 00's builder half), pytest walking every folder from ``/`` down to the
hidden tests' copy (03, 12), a UTF-8 byte-order mark scoring 0 (05)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

HIDDEN_MORE = """import pytest

@pytest.mark.points(1, exercise="bandits_more", exercise_set="bandits", visibility="visible")
def test_more(student):
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1
"""


def _fake_wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcts_grader import gradescope

    wheel = tmp_path / "mcts_course-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"not really a wheel")
    monkeypatch.setattr(gradescope, "build_wheels", lambda out_dir: [wheel])


class TestAttack01BuilderPacksAStudentsFiles:
    def test_a_course_folder_holding_an_export_is_refused_before_anything_runs(
        self, tmp_path, monkeypatch, capsys
    ):
        from mcts_grader import gradescope

        _fake_wheels(tmp_path, monkeypatch)
        marks = tmp_path / "marks"
        marks.mkdir()
        course = tmp_path / "course"
        alice = course / "export" / "alice"
        alice.mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        (alice / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        (alice / "test_mine.py").write_text(
            f"open({str(marks / 'PWNED')!r}, 'w').write('x')\n"
            "import pytest\n\n"
            '@pytest.mark.points(1, exercise="x_alice", exercise_set="bandits")\n'
            "def test_alice(student):\n    assert True\n"
        )
        out = tmp_path / "dist" / "autograder.zip"
        assert gradescope.main([str(out), "--tests", str(course)]) == 2
        said = capsys.readouterr().err
        assert "holds what a submission holds" in said and "bandits.py" in said, said
        assert not (marks / "PWNED").exists()
        assert not out.exists()

    @pytest.mark.parametrize("name", ["notebook.ipynb", "ttt_mcts.py", "19_learning_exercises.md"])
    def test_a_notebook_or_exercise_file_anywhere_in_the_tree_is_refused(self, tmp_path, name):
        from mcts_grader.packing import refuse_submissions

        from mcts_course.errors import UsageError

        course = tmp_path / "course"
        (course / "deep").mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        refuse_submissions(course)  # test files alone: accepted
        (course / "deep" / name).write_text("{}")
        with pytest.raises(UsageError, match=name):
            refuse_submissions(course)

    def test_only_test_files_and_the_modules_they_import_are_packed(
        self, tmp_path, monkeypatch, capsys
    ):
        from mcts_grader import gradescope

        _fake_wheels(tmp_path, monkeypatch)
        course = tmp_path / "course"
        (course / "pkg").mkdir(parents=True)
        (course / "stray").mkdir()
        (course / "helpers.py").write_text("from pkg.inner import ARMS\n")
        (course / "pkg" / "__init__.py").write_text("")
        (course / "pkg" / "inner.py").write_text("ARMS = ([2, 2], [0.0, 2.0])\n")
        (course / "test_more.py").write_text(
            HIDDEN_MORE.replace("[2, 2], [0.0, 2.0]", "*helpers.ARMS").replace(
                "import pytest", "import pytest\nimport helpers"
            )
        )
        (course / "stray" / "notes.py").write_text("X = 1\n")
        (course / "conftest.py").write_text("")
        (course / "answers.json").write_text("{}")
        out = tmp_path / "autograder.zip"
        assert gradescope.main([str(out), "--tests", str(course)]) == 0
        with zipfile.ZipFile(out) as z:
            packed = sorted(n for n in z.namelist() if n.startswith("tests/"))
        assert packed == [
            "tests/helpers.py",
            "tests/pkg/__init__.py",
            "tests/pkg/inner.py",
            "tests/test_more.py",
        ]
        said = capsys.readouterr().err
        assert "packing 4 file(s)" in said and "  tests/pkg/inner.py" in said, said
        assert "left out" in said and "stray/notes.py" in said and "conftest.py" in said

    def test_grade_refuses_the_same_tree_even_when_alice_is_not_graded(self, tmp_path, capsys):
        from mcts_course.cli import main

        course = tmp_path / "course"
        alice = course / "export" / "alice"
        alice.mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        (alice / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        bob = tmp_path / "bob"
        bob.mkdir()
        (bob / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        out = tmp_path / "out"
        args = ["grade", str(bob), "--out", str(out), "--tests", str(course)]
        assert main([*args, "--exercise-set=bandits"]) == 2
        assert "holds what a submission holds" in capsys.readouterr().err
        assert not out.exists()
