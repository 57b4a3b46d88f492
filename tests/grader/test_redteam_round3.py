"""What the third red team broke in the harness and the graded copy (graded for real: as root,
in the sandbox), each now scoring nothing:

- 01: alpha-beta calling the uncounted evaluation kept inside the grader's counting wrapper;
- 17: a function rewriting the lists it is given, and so the test's own reference answer;
- 08, 12, 15: exercises handed to library code the graded copy kept (the game's playout,
  Connect Four's line test, the MCTS skeleton's backpropagation), under run-time names;
- 09: files the parser cannot hold, reported in one line, without the grader's traceback."""

from __future__ import annotations

import json

import pytest
from grading_fixtures.mutants import build
from mcts_grader.batch import grade

from mcts_course.grading import sources
from mcts_course.grading.pyparse import parse

HIDDEN = '''import math

import pytest


def ucb1_ref(counts, sums, c):
    for i, n in enumerate(counts):
        if n == 0:
            return i
    total = sum(counts)
    scores = [s / n + c * math.sqrt(math.log(total) / n) for n, s in zip(counts, sums)]
    return scores.index(max(scores))


@pytest.mark.points(3, exercise="bandits", hint="UCB1 on more bandits", visibility="visible")
def test_ucb1_more(student):
    """ucb1_choice on some more bandits (written like the README's example)"""
    cases = [([3, 5, 2], [1.0, 4.0, 0.5], 1.0), ([4, 4], [1.0, 3.0], 0.5)]
    for counts, sums, c in cases:
        got = student.ucb1_choice(counts, sums, c)
        assert got == ucb1_ref(counts, sums, c), f"counts {counts}: chose {got}"
'''


def _graded(tmp_path, name: str, file: str, sets: list[str], **options):
    sub = build(name, tmp_path / "subs" / name.replace("_", "-"), files=(file,))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=sets, **options)
    return {o.test.split("::")[-1]: o.score for o in result.outcomes if o.score > 0}


def test_the_counting_wrapper_lends_no_uncounted_evaluation(tmp_path):
    """01: 9 of 11 alpha-beta points with the given minimax on `evaluate.evaluate`."""
    assert _graded(tmp_path, "alphabeta_uncounted_evaluate", "alphabeta", ["alphabeta"]) == {}


@pytest.mark.parametrize(
    ("name", "file", "exercise_set"),
    [
        ("simulate_is_rollout", "ttt_mcts", "ttt_mcts"),  # 08: 4 points
        ("backpropagate_by_skeleton", "ttt_mcts", "ttt_mcts"),  # 15: 4 points
        ("is_win_by_engine", "connect4", "connect4"),  # 12: 6 points
    ],
)
def test_library_code_under_run_time_names_scores_nothing(tmp_path, name, file, exercise_set):
    assert _graded(tmp_path, name, file, [exercise_set]) == {}


def test_a_hidden_test_keeps_its_arguments(tmp_path):
    """17: `counts[0] = 0; return 0` took a hidden test's 3 points: the grader's own lists
    were rewritten, and its reference answered for the new ones."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_more.py").write_text(HIDDEN)
    scored = _graded(
        tmp_path, "ucb1_rewrites_its_arguments", "bandits", ["bandits"], extra_tests=[hidden]
    )
    assert scored == {}, scored  # the stub scores nothing else either


@pytest.mark.parametrize(
    "text",
    ["X = " + "+".join(["1"] * 3000) + "\n", "x = " + "-" * 100_000 + "1\n"],
)
def test_code_too_deep_for_the_parser_is_a_syntax_error(text):
    # the first raised RecursionError in the grader's parse, the second MemoryError
    with pytest.raises(SyntaxError, match="could not be parsed"):
        parse(text)


def test_a_notebook_with_cells_that_are_not_dicts_is_read(tmp_path):
    book = tmp_path / "bandits.ipynb"
    good = {"cell_type": "code", "source": "def ucb1_choice(counts, sums, c):\n    return 0\n"}
    book.write_text(json.dumps({"cells": [1, "x", {"source": 5}, good], "nbformat": 4}))
    source = sources.read_source(book)
    assert "def ucb1_choice" in source.code
    (bad := tmp_path / "other.ipynb").write_text(json.dumps({"cells": 5}))
    assert sources.read_source(bad).code.strip() == ""


def test_a_file_too_deep_to_parse_shows_no_grader_traceback(tmp_path):
    """09: every test's feedback was a RecursionError traceback through the grader's files."""
    sub = tmp_path / "subs" / "deep"
    sub.mkdir(parents=True)
    sub.parent.chmod(0o700)
    (sub / "bandits.py").write_text("X = " + "+".join(["1"] * 3000) + "\n")
    (result,) = grade([sub], sets=["bandits"])
    assert result.score == 0
    shown = "\n".join(o.output for o in result.outcomes)
    assert "Traceback" not in shown and "pyparse.py" not in shown, shown[:2000]
