"""The book's standard, checked on the chapter sources without executing them.

- Prose is written by hand: no code cell assembles sentences (no ``Markdown(...)`` built in a
  chapter, no f-string or string literal that reads like a sentence outside a ``claim``).
- Numbers in sentences come from myst-nb glue: every ``{glue:...}`key``` the prose uses is glued
  by a ``glue("key", ...)`` call of the same chapter.
- Every chapter with experiments asserts its claims at build time, in hidden cells
  (``remove-cell``), with :func:`mcts_lab.claims.claim`.
- Reader-facing code is short: no visible code cell longer than 20 lines, outside the exercise
  stubs (which must be shown whole, see ``test_exercise_pages.py``).

The claims themselves are checked when the book is built (``make book`` fails with the claim's
words); the claim helper has its own test here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from mcts_lab.claims import ClaimFailed, claim

BOOK = Path(__file__).resolve().parents[2] / "book"
# The numbered chapters, and the pages that follow a main chapter (15b_...).
ALL_CHAPTERS = sorted(
    p
    for pattern in ("[0-9][0-9]_*.md", "[01][0-9][a-z]_*.md")
    for p in BOOK.glob(pattern)
    if "code-cell" in p.read_text()
)
# Chapters that run no experiment: nothing to claim about data.
NO_EXPERIMENTS = {"01_introduction", "16_play"}
# Exercise pages: their stub cells are shown whole (the student fills them in).
EXERCISE_PAGES = {"17_tictactoe_exercises", "18_connect4_exercises", "19_learning_exercises"}
MAX_VISIBLE_LINES = 20
CHAPTERS = ALL_CHAPTERS
CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)


def cells(text: str) -> list[tuple[set[str], str]]:
    """(tags, source) of every code cell of a MyST notebook.  A cell's options come either as
    ``:key: value`` lines or as a YAML block between ``---`` lines (the form a cell needs for
    nested options, such as the ``mystnb: figure:`` of a numbered figure)."""
    found = []
    for body in CELL.findall(text):
        tags: set[str] = set()
        lines = body.splitlines()
        if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
            end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
            options = yaml.safe_load("\n".join(lines[1:end])) or {}
            tags |= set(options.get("tags", []))
            lines = lines[end + 1 :]
        while lines and lines[0].startswith(":"):
            m = re.match(r":tags:\s*\[(.*)\]", lines[0])
            if m:
                tags |= {t.strip().strip("'\"") for t in m.group(1).split(",")}
            lines = lines[1:]
        found.append((tags, "\n".join(lines)))
    return found


def prose(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def is_stub(source: str) -> bool:
    """A cell that defines a function or class for the student (exercise pages only)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) for node in body)


def sentence_strings(source: str) -> list[str]:
    """String literals and f-strings that read like prose: outside ``claim(...)`` calls (and
    the statistical ``claim_better``, ``claim_equivalent``, ``claim_within``, ``claim_scan``) and
    docstrings, an f-string with five or more words of text, or a plain string of ten or more."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # magics and the like: nothing to read
        return []
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "").startswith("claim"):
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant))
            skip |= {id(v) for v in node.values}
            if len(text.split()) >= 5:
                found.append(text)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if len(node.value.split()) >= 10:
                found.append(node.value)
    return found


def test_the_claim_helper_stops_on_a_false_claim_with_its_words():
    claim(True, "true things pass")
    with pytest.raises(ClaimFailed, match="MCTS beats flat Monte Carlo"):
        claim(False, "MCTS beats flat Monte Carlo")
    with pytest.raises(TypeError):
        claim([1], "a list is not a condition")  # type: ignore[arg-type]


def test_chapters_were_found():
    names = {c.stem for c in ALL_CHAPTERS}
    assert {
        "02_random_play",
        "08_mcts",
        "15b_connect4_case_study",
        "17_tictactoe_exercises",
    } <= names


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_cell_assembles_sentences(chapter: Path):
    for _, source in cells(chapter.read_text()):
        assert "Markdown(" not in source, f"{chapter.name}: a cell builds Markdown"
        if chapter.stem in EXERCISE_PAGES and is_stub(source):
            continue  # the student's code (error messages, reprs), not the book's prose
        assert not sentence_strings(source), f"{chapter.name}: {sentence_strings(source)}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_glued_number_is_glued_in_the_chapter(chapter: Path):
    text = chapter.read_text()
    used = set(re.findall(r"\{glue:?[a-z]*\}`([A-Za-z0-9_]+)", prose(text)))
    glued = set(re.findall(r"\bglue\(\s*[\"']([A-Za-z0-9_]+)[\"']", text))
    # Keys glued in a loop (glue(f"score_{name}", ...)) match as patterns.
    patterns = [
        re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(key))
        for key in re.findall(r"\bglue\(\s*f[\"']([A-Za-z0-9_{}.\[\]'\"]+)[\"']", text)
    ]
    missing = {
        key for key in used - glued if not any(re.fullmatch(pattern, key) for pattern in patterns)
    }
    assert not missing, f"{chapter.name}: not glued: {sorted(missing)}"


@pytest.mark.parametrize(
    "chapter", [c for c in CHAPTERS if c.stem not in NO_EXPERIMENTS], ids=lambda p: p.stem
)
def test_claims_are_checked_in_hidden_cells(chapter: Path):
    claims = [(tags, src) for tags, src in cells(chapter.read_text()) if "claim(" in src]
    assert claims, f"{chapter.name} runs experiments but checks no claim"
    for tags, _ in claims:
        assert "remove-cell" in tags, f"{chapter.name}: a claim cell is visible"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_visible_code_is_short(chapter: Path):
    for tags, source in cells(chapter.read_text()):
        if tags & {"remove-cell", "remove-input"}:
            continue
        if chapter.stem in EXERCISE_PAGES and is_stub(source):
            continue
        lines = [line for line in source.splitlines() if line.strip()]
        assert len(lines) <= MAX_VISIBLE_LINES, f"{chapter.name}: a visible cell of {len(lines)}"


def test_cells_read_tags_from_a_yaml_options_block():
    text = (
        "```{code-cell} ipython3\n---\ntags: [remove-input]\nmystnb:\n  figure:\n"
        "    name: fig-x\n---\nplot()\n```\n\n"
        "```{code-cell} ipython3\n:tags: [remove-cell]\nx = 1\n```\n"
    )
    assert cells(text) == [({"remove-input"}, "plot()"), ({"remove-cell"}, "x = 1")]
