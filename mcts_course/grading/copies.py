"""Is a submitted .py file a copy of the library code an exercise set may not hand its work to?

:mod:`~mcts_course.grading.delegation` refuses graded code that imports the library's
answer-bearing modules.  A student can instead bring that code along: a file ``c4rules.py``
beside ``connect4.py`` holding the library's ``games/connect4.py`` (its ``four_in_a_row`` and
``_LANES``), imported under its own name (red team 8's attack 12).  The static check sees
``import c4rules``, a local module.  So every .py file the student's process could import (the
top-level files of the exercise file's folder, which the sandbox copies) is compared with the
protected modules' source, read at run time from the installed package: each function, method and
top-level assignment big enough to be more than a commonplace line (:data:`MIN_NODES`), its name,
docstring, type hints and comments aside, must not be one of the library's.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from pathlib import Path

from mcts_course.grading.delegation import ANSWERS, SET_ANSWERS
from mcts_course.grading.pyparse import once_per_text, parse

MIN_NODES = 40  # a definition smaller than this can be written alike by anyone


def _bare(node: ast.AST) -> ast.AST:
    """``node`` without what a copy changes for free: its name, docstring and type hints."""
    node = ast.fix_missing_locations(ast.parse(ast.unparse(node)).body[0])  # a fresh tree
    for sub in ast.walk(node):
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            sub.name = "_"
            body = sub.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                sub.body = body[1:] or [ast.Pass()]
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
            sub.returns = None
        if isinstance(sub, ast.arg):
            sub.annotation = None
        if isinstance(sub, ast.AnnAssign):
            sub.annotation = ast.Constant(None)
    return node


@once_per_text
def fingerprints(source: str) -> dict[str, str]:
    """``{hash: name}`` of the definitions of ``source`` worth comparing (see MIN_NODES),
    each source read once (:func:`~mcts_course.grading.pyparse.once_per_text`)."""
    try:
        tree = parse(source)
    except SyntaxError:
        return {}
    found: dict[str, str] = {}
    top = {id(node) for node in tree.body}  # a set: `node in tree.body` made the walk quadratic
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign) and id(node) in top:
            name = ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target)
        else:
            continue
        if sum(1 for _ in ast.walk(node)) < MIN_NODES:
            continue
        try:
            text = ast.dump(_bare(node), include_attributes=False)
        except (SyntaxError, ValueError, RecursionError):
            continue
        found[hashlib.sha256(text.encode()).hexdigest()] = name
    return found


def _module_files(dotted: str) -> list[tuple[str, Path]]:
    """The source files of module or package ``dotted`` (its submodules too), as installed."""
    try:
        spec = importlib.util.find_spec(dotted)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return []
    origin = Path(spec.origin)
    if not spec.submodule_search_locations:
        return [(dotted, origin)]
    return [
        (dotted + "." + ".".join(p.relative_to(origin.parent).with_suffix("").parts), p)
        for p in sorted(origin.parent.rglob("*.py"))
    ]


@functools.cache
def protected(set_name: str) -> dict[str, str]:
    """``{hash: "module.name"}`` of the library definitions ``set_name`` may not bring along."""
    found: dict[str, str] = {}
    for dotted in ANSWERS + SET_ANSWERS.get(set_name, ()):
        for module, path in _module_files(dotted):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            module = module.removesuffix(".__init__")
            for digest, name in fingerprints(text).items():
                found.setdefault(digest, f"{module}.{name}")
    return found


def library_copy(source: str, set_name: str) -> str | None:
    """What in ``source`` is a copy of a definition ``set_name`` protects, or None:
    ``"four_in_a_row (mcts_course.games.connect4.four_in_a_row)"``."""
    guarded = protected(set_name)
    hits = [
        f"{name} (a copy of {guarded[digest]})"
        for digest, name in fingerprints(source).items()
        if digest in guarded
    ]
    if not hits:
        return None
    more = f" and {len(hits) - 2} more" if len(hits) > 2 else ""
    return ", ".join(hits[:2]) + more
