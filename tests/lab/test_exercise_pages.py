"""The exercise pages of the book hold the same stubs as exercises/*.py, word for word; the
reference solutions hold the same given code; the teaching Node is defined once.

Students in Colab work from the notebook, students with files from exercises/: both must get
the same contract.  A stub edited in one place and not the other fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "17_tictactoe_exercises": ["ttt_mcts.py"],
    "18_connect4_exercises": ["connect4.py", "alphabeta.py", "bandits.py"],
    "19_learning_exercises": ["learning.py"],
}


def definitions(source: str) -> dict[str, str]:
    """Top-level functions and classes of a module: name -> source text."""
    tree = ast.parse(source)
    return {
        node.name: ast.get_source_segment(source, node)
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


def page_definitions(page: str) -> dict[str, str]:
    markdown = (ROOT / "book" / f"{page}.md").read_text()
    found: dict[str, str] = {}
    for cell in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", markdown, re.S):
        cell = re.sub(r"\A---\n.*?\n---\n", "", cell, flags=re.S)  # a cell's YAML options
        code = "\n".join(line for line in cell.splitlines() if not line.startswith(":tags:"))
        found.update(definitions(code))
    return found


@pytest.mark.parametrize("page", PAGES)
def test_page_stubs_equal_the_exercise_files(page):
    on_page = page_definitions(page)
    in_files = [definitions((ROOT / "exercises" / name).read_text()) for name in PAGES[page]]
    assert on_page, f"no definitions found on {page}"
    for name, source in on_page.items():
        matches = [defs[name] for defs in in_files if name in defs]
        assert matches, f"{page} defines {name}, which no exercise file of the page has"
        assert source in matches, f"{name} on {page} differs from exercises/"


@pytest.mark.parametrize("page", PAGES)
def test_every_exercise_function_is_on_its_page(page):
    on_page = page_definitions(page)
    for name in PAGES[page]:
        for function in definitions((ROOT / "exercises" / name).read_text()):
            assert function in on_page, f"exercises/{name}: {function} is missing from {page}"


def given(source: str) -> dict[str, str]:
    """The given definitions of an exercise file: those the student does not fill in."""
    return {
        name: text
        for name, text in definitions(source).items()
        if "raise NotImplementedError" not in text
    }


@pytest.mark.parametrize("name", sorted({n for names in PAGES.values() for n in names}))
def test_the_solution_holds_the_given_code_word_for_word(name):
    """Given code has one source: code shared by several files (the teaching Node, reward,
    disc_difference) is imported from mcts_course.given; code that must sit in the student's
    module, because it calls the student's functions (make_policy, Position...), is written in
    the exercise file, and the reference solution holds the same text."""
    stub = given((ROOT / "exercises" / name).read_text())
    solution = definitions((ROOT / "grader" / "mcts_grader" / "solutions" / name).read_text())
    for function, text in stub.items():
        assert solution.get(function) == text, f"{function} differs in solutions/{name}"


def test_no_copy_of_the_teaching_node():
    """The class the student reads is the class the grader builds trees of: one definition."""
    for path in [
        *ROOT.glob("exercises/*.py"),
        *(ROOT / "mcts_course").rglob("*.py"),
        *(ROOT / "lab").rglob("*.py"),
        *(ROOT / "grader").rglob("*.py"),
        *ROOT.glob("book/*.md"),
    ]:
        if path.name == "given.py" or "agents" in path.parts:
            continue  # the library's own Node (agents/mcts.py) is another class
        assert "class Node:" not in path.read_text(), path
