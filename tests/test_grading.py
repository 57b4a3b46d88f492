"""The grader: reference solutions score full marks, stubs 0, mutants lose points, and hostile
submissions cost only the tests they touch while the whole batch is graded."""

from __future__ import annotations

import ast
import csv
import json
import shutil
import sys
from pathlib import Path

import pytest
from grading_fixtures.mutants import CAUGHT_BY, CHEATS, HOSTILE, MUTANTS, build

from mcts_course.cli import main
from mcts_course.grading import SETS, check
from mcts_course.grading.framework import collect_tests
from mcts_course.grading.grader import grade
from mcts_course.grading.sets import EXERCISES, SET_OF

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "mcts_course" / "solutions"


# Each hostile submission is graded on the set it attacks and on one set it leaves alone.
OTHER = {
    "ttt_mcts": "bandits",
    "connect4": "bandits",
    "alphabeta": "bandits",
    "bandits": "connect4",
}


def _rows(grades) -> dict:
    return {g.name: g for g in grades}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The reference and the stubs on every set (through the CLI), then each hostile submission
    and each cheat on the set it attacks and one it leaves alone."""
    base = tmp_path_factory.mktemp("batch")
    reference = build("reference", base / "reference")
    stubs = base / "stubs"
    shutil.copytree(ROOT / "exercises", stubs)
    out = base / "out"
    assert main(["grade", str(reference), str(stubs), "--out", str(out), "--jobs", "2"]) == 0
    with open(out / "grades.csv", newline="") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    grades: dict = {}
    by_sets: dict[tuple, list] = {}
    for name in [*HOSTILE, *CHEATS]:
        file = HOSTILE[name][0] if name in HOSTILE else "ttt_mcts"
        by_sets.setdefault((file, OTHER[file]), []).append(build(name, base / name))
    for sets, subs in by_sets.items():
        grades.update(_rows(grade(subs, base / "out-hostile", sets=list(sets), n_jobs=2)))
    return out, rows, grades


def test_grades_csv_is_complete(batch):
    out, rows, _ = batch
    assert set(rows) == {"reference", "stubs"}
    header = next(csv.reader(open(out / "grades.csv")))
    assert header == ["submission", "score", "max_score", *EXERCISES]
    assert not list(out.glob(".*tmp"))  # written atomically, no temp file left


def test_reference_full_marks(batch):
    _, rows, _ = batch
    row = rows["reference"]
    assert float(row["score"]) == float(row["max_score"]) > 0


def test_stubs_score_zero(batch):
    out, rows, _ = batch
    assert float(rows["stubs"]["score"]) == 0
    results = json.loads((out / "stubs" / "results.json").read_text())
    assert all("NotImplementedError" in t["output"] for t in results["tests"])
    assert all("Hint: " in t["output"] for t in results["tests"])  # the hint, always


def row_max(exercise):
    from mcts_course.grading.framework import collect_tests

    return sum(t.points for t in collect_tests(SET_OF[exercise]) if t.exercise == exercise)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_costs_only_what_it_touches(batch, name):
    _, _, grades = batch
    file, _, _, message = HOSTILE[name]
    got = grades[name].by_exercise()
    touched = [e for e in EXERCISES if SET_OF[e] == file]
    assert sum(got[e][0] for e in touched) < sum(row_max(e) for e in touched)
    for other in EXERCISES:
        if SET_OF[other] == OTHER[file]:
            assert got[other] == (row_max(other), row_max(other)), (name, other, got)
    failed = [o.output for o in grades[name].outcomes if not o.passed]
    assert any(message in text for text in failed), (message, failed[:2])


@pytest.mark.parametrize("name", list(CHEATS))
def test_cheats_score_nothing(batch, name):
    _, _, grades = batch
    got = grades[name].by_exercise()
    for exercise in EXERCISES:
        if SET_OF[exercise] == "ttt_mcts":
            assert got[exercise][0] == 0, (name, exercise, got)
        elif SET_OF[exercise] == "bandits":
            assert got[exercise] == (row_max(exercise), row_max(exercise)), (name, got)


def test_an_infinite_loop_costs_one_time_limit(batch):
    """The looping function's test waits out its limit once; the tests that depend on it are
    reported at once as not run, naming it."""
    _, _, grades = batch
    outcomes = [o for o in grades["infinite_loop"].outcomes if o.test.set_name == "ttt_mcts"]
    stopped = [o for o in outcomes if o.status == "timed out"]
    assert len(stopped) == 1 and "`experiment`" in stopped[0].output
    skipped = [o for o in outcomes if o.status == "not run"]
    assert skipped and all("not run: `experiment` timed out" in o.output for o in skipped)
    assert all(o.seconds < 0.5 for o in skipped)


# The wrong solutions issue 10 found scoring full marks, and those that issues 16 and 19 found
# passing tests that could not tell them from a right solution: graded in every run.  The mutants
# of the other graded functions are graded with `make test-slow`.
ISSUE_MUTANTS = [
    "select_ignores_tie_break_order",
    "expand_one_visit_late",
    "connect4_player_no_perspective",
    "alphabeta_narrow_default_window",
    "alphabeta_counts_leaves_only",
    "alphabeta_strict_cutoff",
    "compare_policies_unseeded",
    "compare_policies_always_first",
    "monte_carlo_most_played",
    "select_child_rigs_the_tree",
    "simulate_extra_draw",
    "backprop_empties_the_path",
    "connect4_is_win_always_true",
    "alphabeta_is_minimax",
    "best_move_full_window",
    "ucb1_choice_rigs_the_arms",
    "compare_policies_player_seed_is_seed",
]
OTHER_MUTANTS = [name for name in MUTANTS if name not in ISSUE_MUTANTS]


def _grade_mutants(names, base) -> dict:
    """Each mutant, graded on the tests of the exercise it breaks."""
    by_exercise: dict[str, list] = {}
    for name in names:
        file, _, _, exercise = MUTANTS[name]
        by_exercise.setdefault(exercise, []).append(build(name, base / name, files=(file,)))
    grades = {}
    for exercise, subs in by_exercise.items():
        found = grade(subs, sets=[SET_OF[exercise]], exercises=[exercise], n_jobs=2)
        grades.update(_rows(found))
    return grades


@pytest.fixture(scope="module")
def issue_mutants(tmp_path_factory):
    return _grade_mutants(ISSUE_MUTANTS, tmp_path_factory.mktemp("mutants"))


@pytest.fixture(scope="module")
def other_mutants(tmp_path_factory):
    return _grade_mutants(OTHER_MUTANTS, tmp_path_factory.mktemp("more-mutants"))


def _loses_points(grades, name) -> None:
    exercise = MUTANTS[name][3]
    got, most = grades[name].by_exercise()[exercise]
    outcomes = {o.test.func.__name__: o.passed for o in grades[name].outcomes}
    assert got < most, outcomes
    passed = [test for test in CAUGHT_BY.get(name, ()) if outcomes[test]]
    assert not passed, f"{name} passed {passed}, the checks made to catch it"


@pytest.mark.parametrize("name", ISSUE_MUTANTS)
def test_issue_mutant_loses_points(issue_mutants, name):
    _loses_points(issue_mutants, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", OTHER_MUTANTS)
def test_mutant_loses_points(other_mutants, name):
    _loses_points(other_mutants, name)


@pytest.mark.parametrize(
    "name, step",
    [("simulate_extra_draw", "simulate"), ("backprop_empties_the_path", "backpropagate")],
)
def test_a_wrong_tree_names_the_step_at_fault(issue_mutants, name, step):
    """mcts_search grows another tree than the reference because one of the student's steps is
    wrong: the failure names that step, and only it, not the search."""
    (outcome,) = [
        o
        for o in issue_mutants[name].outcomes
        if o.test.func.__name__ == "test_search_same_tree_as_reference"
    ]
    assert not outcome.passed
    assert f"The fault is in your `{step}`:" in outcome.output, outcome.output
    others = [s for s in ("select_child", "expand", "simulate", "backpropagate") if s != step]
    assert not any(f"your `{s}`" in outcome.output for s in others), outcome.output


def test_the_tie_break_message_shows_the_order_the_children_were_added(issue_mutants):
    """The selection that follows the dict's order fails on a tree whose children were added out
    of order: the message shows them in that order, as it says."""
    (outcome,) = [
        o
        for o in issue_mutants["select_ignores_tie_break_order"].outcomes
        if o.test.func.__name__ == "test_select_child_ties"
    ]
    assert "in the order added" in outcome.output
    shown = outcome.output.split("(action: (visits, wins)) ", 1)[1].split("}", 1)[0] + "}"
    actions = list(ast.literal_eval(shown))
    assert actions != sorted(actions), outcome.output


def test_every_graded_function_has_a_mutant():
    graded = {f for s in SETS.values() for f in s.functions}
    mutated = set()
    for file, old, _new, _ in MUTANTS.values():
        source = (SOLUTIONS / f"{file}.py").read_text()
        at = source.index(old)
        for function in graded:  # the definition the edit falls in
            for marker in (f"\ndef {function}(", f"\nclass {function}"):
                start = source.find(marker)
                if start != -1 and start < at:
                    following = [
                        source.find(m, start + 1)
                        for m in ("\ndef ", "\nclass ")
                        if source.find(m, start + 1) != -1
                    ]
                    if at < min(following, default=len(source)):
                        mutated.add((file, function))
    for name, spec in SETS.items():
        for function in spec.functions:
            assert (name, function) in mutated, f"no mutant of {name}.{function}"


def test_results_json_format(batch):
    out, _, _ = batch
    results = json.loads((out / "stubs" / "results.json").read_text())
    assert results["score"] == sum(t["score"] for t in results["tests"])
    for t in results["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= set(t)
        assert t["visibility"] in ("visible", "hidden", "after_due_date", "after_published")


def test_check_command(capsys, tmp_path):
    """check FILE grades the sets FILE defines, prints each test as it finishes, exits 0 when
    everything passes"""
    sub = build("reference", tmp_path / "mine", files=("bandits", "connect4"))
    assert main(["check", str(sub / "bandits.py")]) == 0
    text = capsys.readouterr().out
    most = sum(t.points for t in collect_tests("bandits"))
    assert "bandits" in text and f"{most:g} / {most:g}" in text
    assert "connect4" not in text and "ttt_selection" not in text
    lines = [line for line in text.splitlines() if line.startswith("ok ")]
    assert len(lines) == len(collect_tests("bandits"))  # one line per test
    assert all("[bandits]" in line for line in lines)


def test_check_command_stub_hints(capsys):
    """the stubs fail: exit status 1, a hint for every test"""
    assert main(["check", str(ROOT / "exercises" / "connect4.py")]) == 1
    text = capsys.readouterr().out
    most = sum(t.points for t in collect_tests("connect4"))
    assert f"0 / {most:g}" in text and "Hint:" in text
    assert text.count("FAILED") >= 1


def test_check_bad_path(capsys, tmp_path):
    assert main(["check", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_in_process_check_on_a_namespace(capsys):
    namespace = {"__name__": "notebook"}
    exec((SOLUTIONS / "bandits.py").read_text(), namespace)
    report = check("bandits", namespace)
    assert report.score == report.max_score > 0
    stubs = {"__name__": "notebook"}
    exec((ROOT / "exercises" / "bandits.py").read_text(), stubs)
    assert check("bandits", stubs).score == 0
    assert "NotImplementedError" in capsys.readouterr().out


def notebook(cells: list[str]) -> dict:
    return {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": c,
                "outputs": [],
                "execution_count": None,
            }
            for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def test_grading_a_notebook(tmp_path):
    code = (SOLUTIONS / "bandits.py").read_text()
    head, body = code.split("Policy = Callable", 1)
    cells = [
        "%pip install mcts-course\n!ls",
        head,
        "Policy = Callable" + body,
        "answer = input('your move')",  # would block a grader that ran every cell
        "def broken(:\n    pass",  # a syntax error costs only what it defines
        "from mcts_course.grading import check\ncheck('bandits', globals())",
    ]
    path = tmp_path / "my_notebook.ipynb"
    path.write_text(json.dumps(notebook(cells)))
    (result,) = grade([path], sets=["bandits"])
    assert result.score == result.max_score > 0
    assert all("code cell 5" in o.output for o in result.outcomes)  # the note on the bad cell


def test_hidden_tests(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_more.py").write_text(
        "from mcts_course.grading import points\n"
        "from mcts_course.solutions import bandits as ref\n\n"
        "@points(2, exercise='bandits', visibility='hidden')\n"
        "def test_greedy_arm(student):\n"
        "    '''ucb1_choice with c=0 is greedy'''\n"
        "    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1\n\n"
        "@points(1, exercise='bandits_extra', exercise_set='bandits')\n"
        "def test_fails(student):\n"
        "    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 0, 'expected arm 0'\n"
    )
    sub = build("reference", tmp_path / "sub", files=("bandits",))
    out = tmp_path / "out"
    (result,) = grade([sub], out, extra_tests=[str(hidden)], sets=["bandits"])
    names = [o.test.name for o in result.outcomes]
    assert "ucb1_choice with c=0 is greedy" in names
    by = result.by_exercise()
    assert by["bandits_extra"] == (0, 1)
    header = (out / "grades.csv").read_text().splitlines()[0]
    assert header.endswith(",bandits_extra")
    results = json.loads((out / "sub" / "results.json").read_text())
    assert any(t["visibility"] == "hidden" for t in results["tests"])


def test_gradescope_mode(tmp_path, monkeypatch):
    sub = build("reference", tmp_path / "submission", files=("bandits",))
    results = tmp_path / "results" / "results.json"
    monkeypatch.setenv("MCTS_GRADESCOPE_SUBMISSION", str(sub))
    monkeypatch.setenv("MCTS_GRADESCOPE_RESULTS", str(results))
    monkeypatch.setenv("MCTS_GRADESCOPE_TESTS", str(tmp_path / "no-tests"))
    assert main(["grade", "--gradescope"]) == 0
    data = json.loads(results.read_text())
    from mcts_course.grading.framework import collect_tests

    bandits = sum(t.points for t in collect_tests("bandits"))
    assert data["score"] == sum(t["score"] for t in data["tests"]) == bandits
    missing = [t for t in data["tests"] if "no file for ttt_mcts" in t["output"]]
    assert missing and all(t["score"] == 0 for t in missing)


def test_sets_are_consistent():
    for name, spec in SETS.items():
        assert (ROOT / "exercises" / f"{name}.py").exists()
        assert (SOLUTIONS / f"{name}.py").exists()
        stub = (ROOT / "exercises" / f"{name}.py").read_text()
        for function in spec.functions:
            assert f"def {function}(" in stub or f"class {function}" in stub, function


def test_stubs_and_solutions_define_the_same_names():
    import ast

    for name in SETS:

        def names(path):
            tree = ast.parse(path.read_text())
            return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}

        stub = names(ROOT / "exercises" / f"{name}.py") - {"show", "empty_board"}
        assert stub <= names(SOLUTIONS / f"{name}.py"), name


if sys.platform != "linux":  # resource limits and process groups are POSIX features
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")


def test_a_failure_caused_by_another_function_says_so(tmp_path):
    """select_child calls the student's broken ucb1: its failure names ucb1"""
    sub = build("ucb1_no_sqrt", tmp_path / "sub", files=("ttt_mcts",))
    (result,) = grade([sub], sets=["ttt_mcts"], exercises=["ttt_selection"])
    by_name = {o.test.func.__name__: o for o in result.outcomes}
    assert not by_name["test_ucb1_values"].passed
    select = by_name["test_select_child_highest_ucb1"]
    assert not select.passed
    assert "`select_child` calls your `ucb1`, which failed in a test above" in select.output
    assert by_name["test_simulate_uses_rng_as_specified"].passed  # simulate is not blamed


def test_the_hint_survives_a_long_message():
    from mcts_course.grading.grader import SubmissionGrade, TestOutcome
    from mcts_course.grading.report import failures

    (test, *_) = collect_tests("bandits")
    long = "\n".join(f"line {i}" for i in range(50)) + "\nHint: " + test.hint
    grade_ = SubmissionGrade("x", Path("."), [TestOutcome(test, False, 0.0, long)])
    text = failures(grade_)
    assert "line 49" not in text and text.rstrip().endswith("Hint: " + test.hint)
