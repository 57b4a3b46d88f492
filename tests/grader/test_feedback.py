"""What a student reads is about the right code: one syntax error is one message with its line;
simulate is tested on finished games, and the tests after it say to fix it first; no hint
names a package the student's install lacks.  Graded for real (as root: in the sandbox)."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from grading_fixtures.mutants import build, edited
from grading_fixtures.points import modules
from mcts_grader.batch import grade
from packaging.requirements import Requirement

from mcts_course.grading.sets import SETS

ROOT = Path(__file__).resolve().parents[2]


def outcomes(base: Path, name: str, old: str, new: str) -> list:
    folder = build("reference", base / name, files=("ttt_mcts",))
    (folder / "ttt_mcts.py").write_text(edited("ttt_mcts", old, new))
    (result,) = grade([folder], base / f"out-{name}", sets=["ttt_mcts"], n_jobs=1)
    return result.outcomes


def test_a_syntax_error_is_reported_once_with_its_file_and_line(tmp_path):
    line = "def backpropagate(path: Sequence[Node], returns: Returns) -> None:"
    got = outcomes(tmp_path, "syntax", line, line[:-1])
    number = 1 + edited("ttt_mcts", line, line[:-1]).splitlines().index(line[:-1])
    told = [o for o in got if o.status == "failed"]
    assert len(told) == 1, [o.output[:80] for o in told]
    assert "SyntaxError" in told[0].output and f"ttt_mcts.py, line {number}" in told[0].output
    assert "Hint:" not in told[0].output  # each test's hint is about its function, not this
    rest = [o for o in got if o is not told[0]]
    assert len(rest) == len(got) - 1 and all(o.status == "not run" for o in rest)
    assert all("Hint:" not in o.output and f"line {number}" in o.output for o in rest)
    assert sum(o.score for o in got) == 0


def test_a_simulate_that_ignores_finished_games_loses_and_is_named_later(tmp_path):
    """A do-while playout (a move before the first is_terminal()): its own test of finished
    games fails, and the search tests it breaks say to fix simulate first."""
    got = outcomes(
        tmp_path,
        "do_while",
        "    while not state.is_terminal():\n"
        "        state = state.play(rng.choice(state.legal_actions()))\n"
        "    return state.returns()",
        "    while True:\n"
        "        state = state.play(rng.choice(state.legal_actions()))\n"
        "        if state.is_terminal():\n"
        "            return state.returns()",
    )
    by_test = {o.test.split("::")[-1]: o for o in got}
    assert by_test["test_simulate_on_a_finished_game"].score == 0
    later = [o for o in got if "search" in o.test and o.status == "failed"]
    assert later
    for o in later:
        assert "calls your `simulate`, which failed in a test above" in o.output, o.output
        assert "Hint: fix `simulate` first" in o.output, o.output


def test_the_reference_simulate_passes_on_finished_games(tmp_path):
    folder = build("reference", tmp_path / "reference", files=("ttt_mcts",))
    (result,) = grade([folder], tmp_path / "out", sets=["ttt_mcts"], n_jobs=1)
    finished = [o for o in result.outcomes if "finished_game" in o.test]
    assert len(finished) == 1 and finished[0].status == "passed", finished


# -- hints name only what a student has ---------------------------------------------------------
def student_install() -> set[str]:
    """The import names of every distribution ``pip install mcts-course[student]`` brings (the
    closure of its requirements), read from the installed metadata."""
    names: set[str] = set()
    todo, seen = [("mcts-course", frozenset({"student"}))], set()
    while todo:
        dist_name, extras = todo.pop()
        if (dist_name, extras) in seen:
            continue
        seen.add((dist_name, extras))
        try:
            dist = distribution(dist_name)
        except PackageNotFoundError:
            continue
        top = dist.read_text("top_level.txt") or ""
        names.update(top.split())
        for file in dist.files or ():
            first = file.parts[0]
            if first.endswith((".dist-info", ".data")) or first == "..":
                continue
            names.add(first.removesuffix(".py"))
        for text in dist.requires or ():
            req = Requirement(text)
            wanted = any(
                req.marker is None or req.marker.evaluate({"extra": e}) for e in extras or {""}
            )
            if wanted:
                todo.append((req.name, frozenset(req.extras)))
    return names


def hint_texts() -> list[str]:
    """Every hint a student can read: the points markers' hints of every grading test and the
    "Hint:" lines of the exercise stubs (and so of the book's stub cells, kept equal to them)."""
    texts = []
    for set_name in SETS:
        for module in modules(set_name):
            for name, value in vars(module).items():
                for mark in getattr(value, "pytestmark", []) if name.startswith("test_") else []:
                    if mark.name == "points" and mark.kwargs.get("hint"):
                        texts.append(mark.kwargs["hint"])
    for stub in sorted((ROOT / "exercises").glob("*.py")):
        texts += [line for line in stub.read_text().splitlines() if "Hint:" in line]
    return texts


def code_names() -> set[str]:
    """The names the exercises' own code uses (``state.play(...)`` names a variable)."""
    found: set[str] = set()
    folders = (ROOT / "exercises", ROOT / "grader" / "mcts_grader" / "solutions")
    for file in (f for folder in folders for f in folder.glob("*.py")):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.arg):
                found.add(node.arg)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
    return found


def named_packages(text: str) -> set[str]:
    """What a hint names like a package: ``import X``, ``from X``, ``X.name(`` and ``X.Name``."""
    from_import = r"\bfrom\s+([A-Za-z_]\w*)[\w.]*\s+import\b"
    found = set(re.findall(from_import, text))
    found |= set(re.findall(r"\bimport\s+([A-Za-z_]\w*)", re.sub(from_import, "", text)))
    found |= set(re.findall(r"\b([A-Za-z_]\w*)\.[A-Za-z_]\w*\s*\(", text))
    found |= set(re.findall(r"\b([a-z_]\w*)\.[A-Z]\w*", text))
    return found


def test_no_hint_names_a_package_the_student_install_lacks():
    have = student_install() | set(sys.stdlib_module_names) | code_names()
    assert "numpy" in have and "pytest" in have and "pandas" not in have  # the reading works
    texts = hint_texts()
    assert len(texts) > 50
    missing = {(name, text) for text in texts for name in named_packages(text) - have}
    assert not missing, sorted(missing)


def test_the_hint_check_sees_a_package_name():
    assert named_packages("the book plots the rows (pandas.DataFrame(rows) is handy)") == {"pandas"}
    assert named_packages("from scipy.stats import norm; look from every disc") == {"scipy"}
    assert importlib.util.find_spec("numpy") is not None


@pytest.mark.parametrize("name", ["scipy", "sklearn", "torch"])
def test_packages_outside_the_student_install_are_not_in_it(name):
    assert name not in student_install()


def test_only_tests_carry_points():
    """A helper placed between a test's ``points`` marker and the test takes its points (and
    the test runs unmarked): every marked function of the grading modules is a test."""
    for set_name in SETS:
        for module in modules(set_name):
            for name, value in vars(module).items():
                marked = any(m.name == "points" for m in getattr(value, "pytestmark", []))
                assert not marked or name.startswith("test_"), (module.__name__, name)
