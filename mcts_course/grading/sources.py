"""Reading a submission: its exercise files (.py) or notebooks (.ipynb), without running them.

A ``.py`` file is executed whole when graded, like an import.  From a notebook only the
definitions are kept: imports, ``def`` and ``class`` statements, and assignments that call
nothing (or whose names are CONSTANTS), so that experiment cells, plots, ``input()`` games and
``check(...)`` calls do not run.  Magic lines (``%pip``, ``!ls``) are dropped; a cell that does
not parse is skipped with a note in the report.

Files are read as the grader's user (root on Gradescope) and must be regular files: a symbolic
link (to the reference solutions, to a root-only file...), a FIFO or a device is refused with a
message, never followed (:func:`mcts_course.grading.sandbox.read_regular`).
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcts_course.grading.pyparse import ENCODING_REFUSED, NOT_UTF8, PARSE_CAP, parse, python_text
from mcts_course.grading.report import shown_name
from mcts_course.grading.sandbox import FILE_CAP, UNREADABLE, NotRegularFile, read_regular
from mcts_course.grading.sets import SETS

NOTEBOOK_CAP = 20 << 20  # bytes of a notebook (outputs and pictures included)
# "{" and "[" in a notebook at most: json.loads in the grader's own process (no cgroup) took
# 551 MB for 20 MB of empty objects (red team 25, 01); a course notebook holds a few thousand
NOTEBOOK_OBJECTS = 100_000
LISTED = 5  # other copies of an exercise named in its note (then a count)


@dataclass
class Source:
    path: Path
    kind: str  # "py" or "ipynb"
    code: str  # the Python code to run
    notes: list[str] = field(default_factory=list)  # e.g. cells skipped
    sets: dict[str, int] = field(default_factory=dict)  # set name -> how sure (0 surest)
    everything: str = ""  # all the code, for the static check (a notebook's skipped cells too)
    refused: str = ""  # why the file cannot be graded (e.g. a symbolic link): 0 points
    origin: Path | None = None  # the submitted file, when ``path`` is in a snapshot (messages)
    beside: str = ""  # the notebook of the same name beside this .py file, not graded
    others: str = ""  # which file was graded and which others hold this set too (not graded)


BUILTINS = frozenset(dir(builtins))  # once: a set per statement made 40,000 lines cost 13 s


def _keep(node: ast.stmt, defined: set[str] | None = None) -> bool:
    """Whether a top-level notebook statement defines something (and runs nothing).  With
    ``defined`` (the names kept so far), an assignment that is not a CONSTANT is kept only when
    every name it reads is defined or built in: ``table = {k: p for p in rows}`` after a dropped
    ``rows = experiment(...)`` would stop the whole file with a NameError."""
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
        if constant:
            return True
        if calls:
            return False
        return defined is None or all(n in defined or n in BUILTINS for n in _reads(node.value))
    return False


def _reads(value: ast.expr) -> set[str]:
    """The names an expression reads, less those its comprehensions bind."""
    names = [n for n in ast.walk(value) if isinstance(n, ast.Name)]
    loads = {n.id for n in names if isinstance(n.ctx, ast.Load)}
    bound = {
        n.id
        for c in ast.walk(value)
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
        if isinstance(n, ast.Name)
    }
    return loads - bound


def _defines(node: ast.stmt) -> set[str]:
    """The top-level names a kept statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Try):
        return set().union(*(_defines(n) for n in node.body))
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


# Modules a notebook may import that the student's process surely has: the standard library
# and the package's given code and games.  Any other import (the book's laboratory ``mcts_lab``,
# which the chapters use to show code and figures; pandas; the library's agents and arena, which
# a graded run does not have: see grading.studentview) is kept but may fail there without
# stopping the file.
_PRESENT = frozenset(sys.stdlib_module_names) | {"__future__"}
_PRESENT_PACKAGE = ("mcts_course.given", "mcts_course.games")


def _guarded(node: ast.stmt) -> ast.stmt:
    """An import of a module beyond :data:`_PRESENT` inside ``try: ... except ImportError:
    pass``: a function that uses the name fails where it is graded, not the whole file."""
    if isinstance(node, ast.Import):
        modules = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
        modules = [node.module or ""]
    else:
        return node
    if all(m.split(".")[0] in _PRESENT or m.startswith(_PRESENT_PACKAGE) for m in modules):
        return node
    handler = ast.ExceptHandler(ast.Name("ImportError", ast.Load()), None, [ast.Pass()])
    return ast.Try([node], [handler], [], [])


def notebook_code(notebook: dict[Any, Any]) -> tuple[str, str, list[str]]:
    """(definitions code, all parsable code, notes) of a notebook's code cells."""
    kept: list[str] = []
    everything: list[str] = []
    notes: list[str] = []
    future: set[str] = set()
    defined: set[str] = set()
    read = 0  # characters of code so far
    for number, text in enumerate(_code_cells(notebook), 1):
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
        text = "\n".join(lines)
        read += len(text)
        if read > PARSE_CAP:  # the cells together, as one file's code (pyparse.PARSE_CAP)
            notes.append(
                f"code cell {number} and those after it were skipped: the notebook's code "
                f"passes the {PARSE_CAP >> 10} KB the grader reads"
            )
            break
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
            elif _keep(node, defined):
                body.append(_guarded(node))
                defined |= _defines(node)
        if body:
            try:
                unparsed = ast.unparse(ast.Module(body, []))
            except (RecursionError, MemoryError, ValueError):  # parsed, too deep to write back
                notes.append(f"code cell {number} was skipped: it could not be parsed")
                continue
            kept.append(f"# --- code cell {number} ---\n" + unparsed)
    if future:
        kept.insert(0, f"from __future__ import {', '.join(sorted(future))}")
    return "\n\n".join(kept) + "\n", "\n\n".join(everything), notes


def solutions_import(code: str) -> str | None:
    """The line where ``code`` uses mcts_grader.solutions, or None (static check)."""
    try:
        tree = parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Import):
            hit = any(a.name.startswith("mcts_grader.solutions") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            hit = module.startswith("mcts_grader.solutions") or (
                module == "mcts_course" and any(a.name == "solutions" for a in node.names)
            )
        elif isinstance(node, ast.Attribute):
            hit = (
                node.attr == "solutions"
                and isinstance(node.value, ast.Name)
                and node.value.id == "mcts_course"
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            hit = "mcts_grader.solutions" in node.value
        if hit:
            return f"line {getattr(node, 'lineno', '?')}"
    return None


# a definition of one of the sets' functions or classes: without one (and without "check"), a
# file holds no set and is not parsed
_MAY_DEFINE = re.compile(
    r"\b(?:def|class)\s+(?:"
    + "|".join(sorted({re.escape(f) for spec in SETS.values() for f in spec.functions}))
    + r")\b"
)
CODE_BUDGET = 4 << 20  # characters of code read to find the exercises, files named as sets aside


def _may_hold_a_set(code: str) -> bool:
    """Whether ``code`` says ``check`` or defines a function or class of a set (else it is
    not parsed to find one)."""
    return "check" in code or _MAY_DEFINE.search(code) is not None


def _sets_in(path: Path, code: str) -> dict[str, int]:
    """Which exercise sets a file provides: by its name, its check() calls, its definitions."""
    found: dict[str, int] = {}
    if path.stem in SETS and path.suffix == ".py":
        return {path.stem: 0}  # exercises/ttt_mcts.py is the ttt_mcts set, and only that
    if not _may_hold_a_set(code):
        return found  # no parse for a file that cannot name or define a set (red team 26, 01)
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


def _code_cells(notebook: dict[Any, Any]) -> list[str]:
    """The texts of a notebook's code cells, unparsed.  A cell that is not a dict (a
    hand-edited or forged file) is not code: skipped."""
    cells = notebook.get("cells", [])
    texts = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            text = cell.get("source", "")
            texts.append("".join(map(str, text)) if isinstance(text, list) else str(text))
    return texts


def read_source(path: str | Path) -> Source:
    """A submission file, ready to run; raises ValueError for a file that is not one."""
    path = Path(path)
    if path.suffix == ".py":
        code = python_text(read_regular(path, FILE_CAP))
        return Source(path, "py", code, sets=_sets_in(path, code), everything=code)
    if path.suffix == ".ipynb":
        raw = read_regular(path, NOTEBOOK_CAP)
        containers = raw.count(b"{") + raw.count(b"[")
        if containers > NOTEBOOK_OBJECTS:  # counted before parsing, in the grader's process
            return Source(
                path,
                "ipynb",
                "",
                [f"{path.name} was not read: it holds over {NOTEBOOK_OBJECTS:,} JSON objects"],
            )
        text = raw.decode("utf-8", errors="replace")
        try:
            notebook = json.loads(text)
        except (ValueError, RecursionError) as error:
            return Source(path, "ipynb", "", [f"{path.name} is not a valid notebook: {error}"])
        if not isinstance(notebook, dict):
            return Source(path, "ipynb", "", [f"{path.name} is not a valid notebook"])
        if not _may_hold_a_set("\n".join(_code_cells(notebook))):  # its cells are not parsed either
            return Source(path, "ipynb", "")
        code, everything, notes = notebook_code(notebook)
        return Source(path, "ipynb", code, notes, _sets_in(path, everything), everything)
    raise ValueError(f"{path} is neither a .py file nor a notebook")


def find_sources(
    submission: str | Path,
    refused: Mapping[Path, str] | None = None,
    cut: list[str] | None = None,
) -> dict[str, Source]:
    """The file used for each exercise set in a submission (a folder or a single file).
    ``refused``: files of a snapshot (:mod:`~mcts_course.grading.snapshot`) that were not
    copied, and why without their names ("is a symbolic link..."), found as if they were there."""
    submission = Path(submission)
    refused = refused or {}
    if submission in refused or not submission.is_dir() or submission.is_symlink():
        files = [submission]
    else:
        files = [p for p in _candidates(submission) if p.suffix in (".py", ".ipynb")]
        seen = set(files)  # a set: a list made 6,000 refused links cost 12 s (red team 25, 03)
        files += [p for p in refused if p.suffix in (".py", ".ipynb") and p not in seen]
    chosen: dict[str, tuple[tuple[Any, ...], Source]] = {}
    holders: dict[str, list[Path]] = {}  # every file that holds a set, to name those not graded
    budget, skipped = CODE_BUDGET, 0
    for path in files:
        named = path.suffix == ".py" and path.stem in SETS
        if not named and budget <= 0:
            skipped += 1  # each file's code is parsed in the grader's own process
            continue
        try:
            if path in refused:
                raise NotRegularFile(path.name, refused[path])
            source = read_source(path)
            if not named and (source.kind == "ipynb" or _may_hold_a_set(source.everything)):
                budget -= len(source.everything or "")  # what was parsed: a data file is not
        except NotRegularFile as error:
            if path.stem in SETS and path.suffix == ".py":  # refused, and said so
                if error.reason.startswith((ENCODING_REFUSED, NOT_UTF8, UNREADABLE)):
                    why = f"{error}; 0 points"
                else:
                    why = f"{error}: a submission is made of regular files; 0 points"
                source = Source(path, "py", "", sets={path.stem: 0}, refused=why)
            else:
                continue
        except (OSError, ValueError):
            continue
        for name, rank in source.sets.items():
            holders.setdefault(name, []).append(path)
            key = (rank, path.suffix != ".py", len(path.parts), str(path))
            if name not in chosen or key < chosen[name][0]:
                chosen[name] = (key, source)
    if skipped and cut is not None:
        cut.append(
            f"{skipped} files were not searched for exercises: the grader reads "
            f"{CODE_BUDGET >> 20} MB of code at most to find them (name the files as the sets)"
        )
    found = {name: source for name, (_, source) in chosen.items()}
    listed = set(files)
    for source in found.values():
        twin = source.path.with_suffix(".ipynb")
        if source.kind == "py" and twin in listed and not source.beside:
            # a student who worked in the notebook and handed in the whole folder: say which
            # one was graded (the .py file, as always), rather than grade the stub quietly
            source.beside = twin.name
            source.notes.append(graded_not(source))
    for name, source in found.items():
        rest = [
            p
            for p in holders.get(name, [])
            if p not in (source.path, source.path.with_suffix(".ipynb"))
        ]
        if rest and not source.others:
            # two copies of one exercise (a backup folder, an old draft): grading one quietly
            # would give the other's points or none without a word (red team 7's attack 08)
            base = submission if submission.is_dir() else submission.parent
            shown = sorted(shown_name(_shown(p, base)) for p in rest)
            more = f" and {len(shown) - LISTED} more" if len(shown) > LISTED else ""
            # a few names, then a count: thousands of copies would otherwise make a note of
            # megabytes, repeated in every test's feedback (red team 23, 04-05)
            source.others = (
                f"{shown_name(_shown(source.path, base))} was graded; other files hold the same "
                f"exercise and were not graded as it: {', '.join(shown[:LISTED])}{more}"
            )
            source.notes.append(copies_note(source))
    return found


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return path.name


def copies_note(source: Source) -> str:
    """The note on an exercise file graded while other files of the submission hold it too."""
    return f"{source.others} (hand in one copy of each exercise)"


def choice_notes(source: Source) -> list[str]:
    """What a submission should be told about which of its files was graded."""
    return ([graded_not(source)] if source.beside else []) + (
        [copies_note(source)] if source.others else []
    )


def graded_not(source: Source) -> str:
    """The note on a .py file graded while a notebook of the same name lies beside it."""
    return (
        f"{shown_name(source.path.name)} was graded, not {shown_name(source.beside)} beside it "
        "(a .py file is graded before a notebook of the same name): hand in only the file you "
        "worked in"
    )


def _candidates(folder: Path) -> list[Path]:
    """The files of a submission folder, links included (read_source refuses them), without
    descending into a linked folder; names starting with "." or "__" skipped."""
    import os

    found = set()
    for dirpath, dirnames, filenames in os.walk(folder):  # does not follow linked folders
        rel = Path(dirpath).relative_to(folder)
        if any(part.startswith((".", "__")) for part in rel.parts):
            dirnames[:] = []
            continue
        for name in filenames:
            if not name.startswith((".", "__")):
                found.add(Path(dirpath) / name)
    return sorted(found)
