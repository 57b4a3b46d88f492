"""What left the library says where it went, in one line: old imports and the old command."""

from __future__ import annotations

import importlib

import pytest

import mcts_course.cli as cli


def test_the_old_laboratory_import_names_the_new_home():
    with pytest.raises(ImportError, match="mcts_lab"):
        importlib.import_module("mcts_course.lab")


def test_grade_without_the_grader_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(cli, "entry_points", lambda group: [])
    assert cli.main(["grade", "some/folder", "--out", "x"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("mcts-course grade: error:") and "pip install ./grader" in error
    assert "\n" not in error


def test_grade_with_the_grader_is_the_graders_command():
    parser = cli.build_parser()
    args, _ = parser.parse_known_args(["grade", "a", "--out", "b"])
    assert args.func.__module__ == "mcts_grader.cli"


def test_the_old_gradescope_command_names_the_new_one():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mcts_course.grading.gradescope", "out.zip"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "python -m mcts_grader.gradescope" in done.stderr and not done.stdout
