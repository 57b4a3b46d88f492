"""What a batch writes is the instructor's: the output folder is private, and a cell a student
chose cannot become a spreadsheet formula."""

from __future__ import annotations

import csv
import io
import os
import stat

from mcts_grader.batch import Outputs

from mcts_course.grading.report import Outcome, grades_csv


def outcome(exercise: str = "bandits", score: float = 1.0) -> Outcome:
    return Outcome("t", exercise, 1.0, score, "passed", "")


def test_a_name_that_starts_like_a_formula_stays_text():
    names = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "alice", "bob=1"]
    rows = [(name, [outcome()]) for name in names]
    table = list(csv.reader(io.StringIO(grades_csv(rows))))
    cells = [row[0] for row in table[1:]]
    assert cells[:4] == ["'" + n for n in names[:4]]
    assert cells[4:] == ["alice", "bob=1"]  # nothing else changes
    assert not any(c.startswith(("=", "+", "-", "@")) for row in table for c in row)


def test_an_instructors_exercise_column_that_starts_like_a_formula_stays_text():
    header = next(csv.reader(io.StringIO(grades_csv([("a", [outcome("=cmd|' /C calc'!A0")])]))))
    assert header[-1] == "'=cmd|' /C calc'!A0"


def test_the_output_folders_are_the_graders_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir(mode=0o755)
    os.chmod(out, 0o755)  # made readable by others beforehand
    outputs = Outputs(out, ["alice", "bob"])
    try:
        for folder in (out, out / "alice", out / "bob"):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    finally:
        outputs.close()


def test_what_a_student_printed_reaches_no_terminal_as_control():
    from mcts_course.grading.plugin import capped

    shown = capped("ok\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\r\x00\x7f\x9b1m\tdone\n")
    assert shown == "okred1m\tdone\n"  # the text stays, the controls go
    assert not any(ord(c) < 32 and c not in "\t\n" for c in shown)


def test_an_unknown_exercise_name_is_an_error_not_an_empty_grade(tmp_path, capsys):
    from pathlib import Path

    import pytest

    from mcts_course.grading.invocation import pytest_args

    exercises = Path(__file__).resolve().parents[2] / "exercises"
    args = pytest_args(exercises, exercises=["ttt_backprop", "nosuch"], rootdir=tmp_path)
    status = pytest.main(args)
    assert status == pytest.ExitCode.USAGE_ERROR
    assert "unknown exercise nosuch" in capsys.readouterr().err
