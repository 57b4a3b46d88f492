"""What left the library says where it went, in one line: old imports and the old command."""

from __future__ import annotations

import importlib

import pytest

import mcts_course.cli as cli


@pytest.mark.parametrize(
    ("module", "names"),
    [("mcts_course.lab", "mcts_lab"), ("mcts_course.solutions", "mcts_grader.solutions")],
)
def test_an_old_import_names_the_new_home(module, names):
    with pytest.raises(ImportError, match=names.replace(".", r"\.")):
        importlib.import_module(module)


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
