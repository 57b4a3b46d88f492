"""Is a submitted .py file a copy of the library code an exercise set may not hand its work to?

:mod:`~mcts_course.grading.delegation` refuses graded code that imports the library's
answer-bearing modules.  A student can instead bring that code along: a file ``c4rules.py``
beside ``connect4.py`` holding the library's ``games/connect4.py`` (its ``four_in_a_row`` and
``_LANES``), imported under its own name (red team 8's attack 12).  The static check sees
``import c4rules``, a local module.  So every .py file the student's process could import (the
top-level files of the exercise file's folder, which the sandbox copies) is compared with the
protected modules' source, read at run time from the installed package: each function, method
and assignment outside a function big enough to be more than a commonplace line
(:data:`MIN_NODES`), its name, docstring, decorators, type hints and comments aside, must not be
one of the library's.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcts_course.grading.delegation import ANSWERS, SET_ANSWERS
from mcts_course.grading.pyparse import once_per_text, parse

MIN_NODES = 40  # a definition smaller than this can be written alike by anyone


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFINITIONS = (*_FUNCTIONS, ast.ClassDef)
_TABLES = (ast.Assign, ast.AnnAssign)
_NONE, _PASS = ast.Constant(None), ast.Pass()  # stand-ins for what was left out: no size


def _bare_fields(node: ast.AST) -> Iterator[tuple[str, Any, Any]]:
    """``node``'s fields without what a copy changes for free (a definition's name and
    docstring, its decorators, type hints): ``(field, bare value, what was left out)``."""
    for name, value in ast.iter_fields(node):
        left_out: Any = None
        if isinstance(node, _DEFINITIONS) and name == "name":
            value = "_"
        elif isinstance(node, _DEFINITIONS) and name == "decorator_list":
            left_out, value = value, []  # a no-op ``@staticmethod`` made a copy new (45, 04)
        elif isinstance(node, _DEFINITIONS) and name == "body":
            if (
                value
                and isinstance(value[0], ast.Expr)
                and isinstance(value[0].value, ast.Constant)
                and isinstance(value[0].value.value, str)
            ):
                left_out, value = value[0], value[1:] or [_PASS]
        elif (
            (isinstance(node, _FUNCTIONS) and name == "returns")
            or (isinstance(node, ast.arg) and name == "annotation")
            or (isinstance(node, ast.AnnAssign) and name == "annotation")
        ):
            left_out, value = value, _NONE if isinstance(node, ast.AnnAssign) else None
        yield name, value, left_out


def _digest(
    node: ast.AST, found: list[tuple[ast.AST, str, int]], local: bool = False
) -> tuple[str, int]:
    """The hash of ``node``'s bare form, from its children's (each node is hashed once), and
    its size in nodes as written (type hints and docstring included).  Hashing each
    definition's whole text, nested ones included, made 90 defs nested in one another cost 90
    times the file: 40 s of the grader's CPU (red team 44, 09).  Every definition, and every
    assignment not ``local`` to a function, is added to ``found`` with its hash and size:
    a table is one wherever it sits, top level, class body or ``if`` (red team 45, 04)."""
    parts, size = [type(node).__name__], 1
    inner = local or isinstance(node, _FUNCTIONS)
    for name, value, left_out in _bare_fields(node):
        for part in left_out if isinstance(left_out, list) else [left_out]:
            if isinstance(part, ast.AST):  # hints, decorators hold no def: walked once, here
                size += sum(1 for _ in ast.walk(part))
        if isinstance(value, ast.AST):
            digest, n = _digest(value, found, inner)
            parts.append(f"{name}={digest}")
            size += n if value is not _NONE else 0
        elif isinstance(value, list):
            items = []
            for item in value:
                if isinstance(item, ast.AST):
                    digest, n = _digest(item, found, inner)
                    items.append(digest)
                    size += n if item is not _PASS else 0
                else:
                    items.append(repr(item))
            parts.append(f"{name}=[{','.join(items)}]")
        else:
            parts.append(f"{name}={value!r}")
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
    if isinstance(node, _FUNCTIONS) or (isinstance(node, _TABLES) and not local):
        found.append((node, digest, size))
    return digest, size


@once_per_text
def fingerprints(source: str) -> dict[str, str]:
    """``{hash: name}`` of the definitions of ``source`` worth comparing (see MIN_NODES),
    each source read once (:func:`~mcts_course.grading.pyparse.once_per_text`)."""
    try:
        tree = parse(source)
    except SyntaxError:
        return {}
    hashed: list[tuple[ast.AST, str, int]] = []
    try:
        for statement in tree.body:
            _digest(statement, hashed)
    except RecursionError:  # parse() refused trees deeper than MAX_DEPTH: not met
        return {}
    found: dict[str, str] = {}
    for node, digest, size in hashed:
        if size < MIN_NODES:
            continue
        if isinstance(node, _FUNCTIONS):
            found[digest] = node.name
        elif isinstance(node, _TABLES):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found[digest] = ast.unparse(target)
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
