"""Reading a submission: its exercise files (.py) or notebooks (.ipynb), without running them.

A ``.py`` file is executed whole when graded, like an import.  From a notebook only the
definitions are kept: imports, ``def`` and ``class`` statements, and assignments that call
nothing (or whose names are CONSTANTS), so that experiment cells, plots, ``input()`` games and
``check(...)`` calls do not run.  Magic lines (``%pip``, ``!ls``) are dropped; a cell that does
not parse is skipped with a note in the report.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from mcts_course.grading.pyparse import parse
from mcts_course.grading.sets import SETS


@dataclass
class Source:
    path: Path
    kind: str  # "py" or "ipynb"
    code: str  # the Python code to run
    notes: list[str] = field(default_factory=list)  # e.g. cells skipped
    sets: dict[str, int] = field(default_factory=dict)  # set name -> how sure (0 surest)
    everything: str = ""  # all the code, for the static check (a notebook's skipped cells too)


def _keep(node: ast.stmt) -> bool:
    """Whether a top-level notebook statement defines something (and runs nothing)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return True
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Try):  # try: import x / except ImportError: ...
        return all(isinstance(n, ast.Import | ast.ImportFrom) for n in node.body)
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        constant = all(isinstance(t, ast.Name) and t.id.isupper() for t in targets)
        calls = any(isinstance(n, ast.Call | ast.Await) for n in ast.walk(node.value))
        return constant or not calls
    return False


def notebook_code(notebook: dict) -> tuple[str, str, list[str]]:
    """(definitions code, all parsable code, notes) of a notebook's code cells."""
    kept, everything, notes, future = [], [], [], set()
    code_cells = [c for c in notebook.get("cells", []) if c.get("cell_type") == "code"]
    for number, cell in enumerate(code_cells, 1):
        text = cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else text
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
        text = "\n".join(lines)
        try:
            tree = parse(text)
        except SyntaxError as error:
            first = next((line for line in lines if line.strip()), "")[:60]
            notes.append(
                f"code cell {number} (`{first}`) was skipped: SyntaxError: {error.msg} "
                f"(line {error.lineno})"
            )
            continue
        everything.append(text)
        body = []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                future.update(a.name for a in node.names)  # must go first in the module
            elif _keep(node):
                body.append(node)
        if body:
            kept.append(f"# --- code cell {number} ---\n" + ast.unparse(ast.Module(body, [])))
    if future:
        kept.insert(0, f"from __future__ import {', '.join(sorted(future))}")
    return "\n\n".join(kept) + "\n", "\n\n".join(everything), notes


def solutions_import(code: str) -> str | None:
    """The line where ``code`` uses mcts_course.solutions, or None (static check)."""
    try:
        tree = parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Import):
            hit = any(a.name.startswith("mcts_course.solutions") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            hit = module.startswith("mcts_course.solutions") or (
                module == "mcts_course" and any(a.name == "solutions" for a in node.names)
            )
        elif isinstance(node, ast.Attribute):
            hit = (
                node.attr == "solutions"
                and isinstance(node.value, ast.Name)
                and node.value.id == "mcts_course"
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            hit = "mcts_course.solutions" in node.value
        if hit:
            return f"line {getattr(node, 'lineno', '?')}"
    return None


def _sets_in(path: Path, code: str) -> dict[str, int]:
    """Which exercise sets a file provides: by its name, its check() calls, its definitions."""
    found: dict[str, int] = {}
    if path.stem in SETS and path.suffix == ".py":
        return {path.stem: 0}  # exercises/ttt_mcts.py is the ttt_mcts set, and only that
    try:
        tree = parse(code)
    except SyntaxError:
        return found
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and arg.value in SETS:
                found.setdefault(arg.value, 1)
    if found:  # the sets its check() cells name, only: the Connect Four notebook holds a copy
        return found  # of the tic-tac-toe functions, which it does not hand in
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
    for name, spec in SETS.items():
        if len(defined & set(spec.functions)) >= min(2, len(spec.functions)):
            found.setdefault(name, 2)
    return found


def read_source(path: str | Path) -> Source:
    """A submission file, ready to run; raises ValueError for a file that is not one."""
    path = Path(path)
    if path.suffix == ".py":
        code = path.read_text(encoding="utf-8", errors="replace")
        return Source(path, "py", code, sets=_sets_in(path, code), everything=code)
    if path.suffix == ".ipynb":
        try:
            notebook = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except json.JSONDecodeError as error:
            return Source(path, "ipynb", "", [f"{path.name} is not a valid notebook: {error}"])
        code, everything, notes = notebook_code(notebook)
        return Source(path, "ipynb", code, notes, _sets_in(path, everything), everything)
    raise ValueError(f"{path} is neither a .py file nor a notebook")


def find_sources(submission: str | Path) -> dict[str, Source]:
    """The file used for each exercise set in a submission (a folder or a single file)."""
    submission = Path(submission)
    if submission.is_file():
        files = [submission]
    else:
        files = sorted(
            p
            for p in submission.rglob("*")
            if p.suffix in (".py", ".ipynb")
            and p.is_file()
            and not any(part.startswith((".", "__")) for part in p.relative_to(submission).parts)
        )
    chosen: dict[str, tuple[tuple, Source]] = {}
    for path in files:
        try:
            source = read_source(path)
        except (OSError, ValueError):
            continue
        for name, rank in source.sets.items():
            key = (rank, path.suffix != ".py", len(path.parts), str(path))
            if name not in chosen or key < chosen[name][0]:
                chosen[name] = (key, source)
    return {name: source for name, (_, source) in chosen.items()}
