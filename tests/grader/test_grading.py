"""The grader: reference solutions score full marks, stubs 0, mutants lose points, and hostile
submissions cost only the tests they touch while the whole batch is graded."""

from __future__ import annotations

import ast
import csv
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from grading_fixtures.mutants import CAUGHT_BY, CHEATS, HOSTILE, MUTANTS, build
from grading_fixtures.points import marks, most
from mcts_grader.batch import grade

from mcts_course.cli import main
from mcts_course.grading import SETS, check
from mcts_course.grading.sets import EXERCISES, SET_OF

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "grader" / "mcts_grader" / "solutions"


# Each hostile submission is graded on the set it attacks and on one set it leaves alone.
OTHER = {
    "ttt_mcts": "bandits",
    "connect4": "bandits",
    "alphabeta": "bandits",
    "bandits": "connect4",
    "learning": "bandits",
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
    assert header == [
        "submission",
        "status",
        "score",
        "max_score",
        *EXERCISES,
        "source",
        "ascii_name",
        "look_alike",
    ]
    assert {row["status"] for row in rows.values()} == {"graded"}  # the stubs' 0 is a grade
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
    return most(exercise=exercise)


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
    outcomes = [o for o in grades["infinite_loop"].outcomes if "test_ttt_mcts.py" in o.test]
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
    "alphabeta_is_minimax_fake_count",  # red-team attack 08: measured leaves
    "best_move_full_window",
    "ucb1_choice_rigs_the_arms",
    "compare_policies_player_seed_is_seed",
    "connect4_drop_always_raises",  # red team 20, attack 02
    # exercise 8 (learning): the perspective's sign, the temperature, sqrt(N), an unvisited Q
    "value_targets_last_mover",
    "policy_target_power_tau",
    "puct_score_sqrt_n_plus_one",
    "puct_score_unvisited_zero",
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
    got, best = grades[name].by_exercise()[exercise]
    outcomes = {o.test.split("::")[-1]: o.passed for o in grades[name].outcomes}
    assert got < best, outcomes
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
        if o.test.split("::")[-1] == "test_search_same_tree_as_reference"
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
        if o.test.split("::")[-1] == "test_select_child_ties"
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
    """check FILE grades the sets FILE defines (pytest's report and the points table), exits 0
    when everything passes"""
    sub = build("reference", tmp_path / "mine", files=("bandits", "connect4"))
    assert main(["check", str(sub / "bandits.py")]) == 0
    text = capsys.readouterr().out
    best = most("bandits", public_only=True)
    assert f"bandits   {best:g} / {best:g}" in text  # the points table
    assert "connect4" not in text and "ttt_selection" not in text
    assert f"{len(marks('bandits', public_only=True))} passed" in text  # pytest's own summary


def test_check_command_stub_hints(capsys):
    """the stubs fail: exit status 1, each failure once, with its hint"""
    assert main(["check", str(ROOT / "exercises" / "connect4.py")]) == 1
    text = capsys.readouterr().out
    public = marks("connect4", public_only=True)
    assert f"total     0 / {most('connect4', public_only=True):g}" in text
    assert text.count("\nHint: ") == len(public)
    assert text.count(": [connect4] ") == len(public)  # one header per failure
    assert "short test summary" not in text  # not listed a second time


def test_check_passes_options_on_to_pytest(capsys):
    """options check does not know go to pytest: -k keeps the tests it names"""
    assert main(["check", str(SOLUTIONS / "bandits.py"), "-k", "softmax", "-x"]) == 0
    text = capsys.readouterr().out
    softmax = [p for name, p, _ in marks("bandits", public_only=True) if "softmax" in name]
    assert f"= {len(softmax)} passed, " in text and "failed" not in text
    assert f"total     {sum(softmax):g} / {sum(softmax):g}" in text


def test_check_bad_path(capsys, tmp_path):
    assert main(["check", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_other_commands_refuse_unknown_options(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["perft", "tictactoe", "1", "--no-such-option"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_in_process_check_on_a_namespace(capsys):
    namespace = {"__name__": "notebook"}
    exec((SOLUTIONS / "bandits.py").read_text(), namespace)
    report = check("bandits", namespace)
    assert report.score == report.max_score == most("bandits", public_only=True)
    stubs = {"__name__": "notebook"}
    exec((ROOT / "exercises" / "bandits.py").read_text(), stubs)
    assert check("bandits", stubs).score == 0
    assert "NotImplementedError" in capsys.readouterr().out


def test_in_process_check_of_one_exercise(capsys):
    namespace = {"__name__": "notebook"}
    exec((SOLUTIONS / "ttt_mcts.py").read_text(), namespace)
    report = check("ttt_mcts", namespace, exercise="ttt_backprop", show_failures=False)
    best = most(exercise="ttt_backprop", public_only=True)
    assert report.by_exercise == {"ttt_backprop": (best, best)}
    with pytest.raises(ValueError, match="ttt_selection"):
        check("ttt_mcts", namespace, exercise="bandits")


def test_in_process_check_stops_an_infinite_loop_once(capsys):
    """a looping simulate costs one time limit: its test names it, the tests using it are not
    run"""
    namespace = {"__name__": "notebook"}
    code = (SOLUTIONS / "ttt_mcts.py").read_text()
    loop = "def simulate(state, rng):\n    while True:\n        pass\n\n\ndef _simulate("
    exec(code.replace("def simulate(", loop, 1), namespace)
    report = check("ttt_mcts", namespace, exercise="ttt_selection")
    stopped = [o for o in report.outcomes if o.status == "timed out"]
    assert len(stopped) == 1 and "your `simulate` did not return" in stopped[0].output
    not_run = [o for o in report.outcomes if o.status == "not run"]
    assert not_run and all("`simulate` timed out" in o.output for o in not_run)
    assert all(o.passed for o in report.outcomes if "simulate" not in o.test)
    assert "tests not run: `simulate` timed out" in capsys.readouterr().out


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


def test_a_notebook_is_graded_on_the_sets_its_checks_name(tmp_path, capsys):
    """the Connect Four notebook holds a copy of the tic-tac-toe functions: checking it grades
    the sets of its check() cells, not tic-tac-toe"""
    cells = [
        (SOLUTIONS / "ttt_mcts.py").read_text(),  # copied from the previous chapter
        (SOLUTIONS / "bandits.py").read_text(),
        "check('bandits')",
    ]
    path = tmp_path / "18_connect4_exercises.ipynb"
    path.write_text(json.dumps(notebook(cells)))
    assert main(["check", str(path)]) == 0
    text = capsys.readouterr().out
    assert "bandits" in text and "ttt_" not in text.split("points ===")[-1]


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
    by_name = {o.test.split("::")[-1]: o for o in result.outcomes}
    assert not by_name["test_ucb1_values"].passed
    select = by_name["test_select_child_highest_ucb1"]
    assert not select.passed
    assert "`select_child` calls your `ucb1`, which failed in a test above" in select.output
    assert by_name["test_simulate_uses_rng_as_specified"].passed  # simulate is not blamed


def test_the_hint_survives_long_printing():
    """the student's printing is cut; the hint comes last, whole"""
    from types import SimpleNamespace

    from mcts_course.grading.runner import PRINT_CAP, SetRun, verdict

    printed = "".join(f"line {i}\n" for i in range(2000))
    connection = SimpleNamespace(direct=["ucb1"], called={"ucb1"}, out=[printed])
    status, message = verdict(SetRun("bandits", None), connection, AssertionError("no"), "h!", 3)
    assert status == "failed" and message.startswith("no\nYour code printed:\nline 0")
    assert "line 1999" not in message and len(message) < PRINT_CAP + 200
    assert message.endswith("characters cut)\nHint: h!")


def test_a_notebook_import_the_grader_lacks_costs_only_its_users():
    """the chapters import the book's laboratory (mcts_lab) to show code; the student's
    process has only the library: such an import is kept, guarded, and the file still loads"""
    from mcts_course.grading.sources import notebook_code

    cells = [
        "import math\nfrom mcts_lab.present import show_source\nfrom not_installed import show",
        "def ucb1(w, v, p, c=1.0):\n    return math.inf if v == 0 else w / v\n",
        "def shows():\n    return show(ucb1)\n",
    ]
    code, _, notes = notebook_code(notebook(cells))
    assert "try:\n    from mcts_lab.present import show_source\nexcept ImportError:" in code
    assert "\nimport math\n" in code  # the standard library's imports stay as they were
    namespace: dict = {}
    exec(compile(code, "notebook", "exec"), namespace)  # not_installed is missing here
    assert namespace["ucb1"](0.0, 0, 1) == math.inf and not notes
    with pytest.raises(NameError, match="show"):
        namespace["shows"]()
