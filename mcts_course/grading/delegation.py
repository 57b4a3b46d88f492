"""Does a submission's graded code hand an exercise to the library that already solves it?

The student's process imports this package (the games, the given code), and the package's
agents hold a full MCTS (``mcts_course.agents.MCTSAgent``), UCB1 (``agents.bandits``), PUCT,
alpha-beta, perfect play, and the learning targets (``mcts_course.learn``).  A submission made of
the stubs plus ``from mcts_course.agents.bandits import ucb1`` earned 12/99 with no exercise
code (red-team attack 09).  Those modules cannot leave the student's copy of the package: the
bandit exercise's given code subclasses ``MCTSAgent``, and the book's exercise notebooks import
agents in their experiment cells to compare with.  So the check is on what the graded
definitions use: a name the set's tests call (``SETS[...].functions``), the top-level functions,
classes and assignments it reaches, and every name they read.  If one of those is bound by an
import from an answer-bearing module (beyond what the set's given code imports), or names such a
module (``mcts_course.agents.bandits.ucb1``, ``importlib.import_module("mcts_course.agents")``),
the set gets no points, with the line, as an import of the reference solutions does.

A static check, like :func:`~mcts_course.grading.sources.solutions_import`.  Code that builds a
module's name at run time cannot be followed, so graded definitions that look a module up by a
computed name (``sys.modules[...]``, ``importlib.import_module``, ``__import__``,
``spec_from_file_location``, ``getattr`` on the library's package) are refused as such; what
hides better still, the instructor's hidden tests (code-dependent positions) answer.
"""

from __future__ import annotations

import ast

from mcts_course.grading.pyparse import parse
from mcts_course.grading.sets import SETS

# Modules whose code answers an exercise (a prefix matches its submodules).
ANSWERS = ("mcts_course.agents", "mcts_course.learn")
# More per set: the Connect Four rules are an exercise of their own.
SET_ANSWERS: dict[str, tuple[str, ...]] = {
    "connect4": ("mcts_course.games.connect4", "mcts_course.games.ConnectFour"),
}
# What a set's given code imports from those modules (``exercises/<set>.py``): allowed.
GIVEN: dict[str, frozenset[str]] = {
    "bandits": frozenset({"mcts_course.agents.MCTSAgent", "mcts_course.agents.Node"}),
}


def _denied(dotted: str, set_name: str) -> bool:
    if dotted in GIVEN.get(set_name, frozenset()):
        return False
    prefixes = ANSWERS + SET_ANSWERS.get(set_name, ())
    return any(dotted == p or dotted.startswith(p + ".") for p in prefixes)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of an attribute chain on a name, or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _imports(tree: ast.Module) -> dict[str, list[tuple[str, int]]]:
    """Each name an import binds anywhere in the file: the dotted things it stands for."""
    bound: dict[str, list[tuple[str, int]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                what = alias.name if alias.asname else alias.name.split(".")[0]
                bound.setdefault(name, []).append((what, node.lineno))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                name = alias.asname or alias.name
                bound.setdefault(name, []).append((f"{node.module}.{alias.name}", node.lineno))
    return bound


def _top_bindings(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """The top-level statements binding each name (several: a stub, then a re-binding)."""
    found: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        names: list[str] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            continue  # the script part (`if __name__ == "__main__":`) is never graded
        elif isinstance(node, ast.If | ast.Try | ast.With):  # try: import x / except: ...
            inner = [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]
            inner += [s for h in getattr(node, "handlers", []) for s in h.body]
            for key, statements in _top_bindings(ast.Module(inner, [])).items():
                found.setdefault(key, []).extend(statements)
        for name in names:
            found.setdefault(name, []).append(node)
    return found


def _locals(statement: ast.stmt) -> set[str]:
    """The names a function or class binds inside itself (parameters, local variables): a
    name read there is not the module's."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return set()
    found = {a.arg for a in ast.walk(statement) if isinstance(a, ast.arg)}
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            found.add(node.id)
        elif node is not statement and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            found.add(node.name)
    return found


# Calls that reach a module by a name given as a value: with a name built at run time
# (``"mcts_" + "course..."``) no static check can tell which module that is.
LOADERS = frozenset(
    {
        "importlib.import_module",
        "importlib.__import__",
        "importlib.util.spec_from_file_location",
        "importlib.util.find_spec",
        "importlib.machinery.SourceFileLoader",
        "runpy.run_path",
        "runpy.run_module",
        "__import__",
        "builtins.__import__",
    }
)


def _resolved(node: ast.expr, imported: dict[str, list[tuple[str, int]]]) -> str:
    """The dotted name ``node`` stands for, through the file's imports ("" if none)."""
    dotted = _dotted(node) or ""
    root = dotted.split(".")[0]
    bases = [base for base, _ in imported.get(root, [])]
    return bases[0] + dotted[len(root) :] if bases else dotted


def _dynamic_reach(call: ast.Call, imported: dict[str, list[tuple[str, int]]]) -> str | None:
    """What ``call`` reaches a module with, when the module's name is computed: a loader given
    a name that is no literal, ``sys.modules.get(...)``, ``getattr`` on the library's package
    with a computed attribute (red-team round 7, attack 01).  ``sys.modules[...]`` is a
    subscript: see :func:`library_delegation`."""
    what = _resolved(call.func, imported)
    literal = bool(call.args) and isinstance(call.args[0], ast.Constant)
    if what in LOADERS and not literal:
        return f"{what} with a module name built at run time (the check cannot tell which)"
    if what == "sys.modules.get":
        return "sys.modules (a module looked up by name at run time)"
    if what == "getattr" and len(call.args) >= 2 and not isinstance(call.args[1], ast.Constant):
        owner = _resolved(call.args[0], imported)
        if owner == "mcts_course" or owner.startswith("mcts_course."):
            return f"getattr on {owner} with a name built at run time"
    return None


def library_delegation(code: str, set_name: str) -> str | None:
    """What the graded definitions of ``set_name`` in ``code`` take from an answer-bearing
    module of the library (``"mcts_course.agents.bandits.ucb1, line 210"``), or None."""
    if set_name not in SETS:
        return None
    try:
        tree = parse(code)
    except SyntaxError:
        return None  # reported as such when the file is loaded
    imported = _imports(tree)
    tops = _top_bindings(tree)
    todo = [n for n in SETS[set_name].functions if n in tops]
    seen: set[str] = set()
    # each statement is walked once: one binding 2,000 names (`a0, ..., a1999 = ...`) was
    # walked again for each of them, 10 s of the grader's CPU for 19 KB (red team 23, 09); a
    # name the first walk left out is the one it was walked for, already seen
    walked: set[int] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for what, line in imported.get(name, []):
            if _denied(what, set_name):
                return f"{what}, line {line}"
        for statement in tops.get(name, []):
            if isinstance(statement, ast.Import | ast.ImportFrom) or id(statement) in walked:
                continue  # its names were checked just above, or walked for another name
            walked.add(id(statement))
            local = _locals(statement)
            for node in ast.walk(statement):
                hit = None
                if isinstance(node, ast.Attribute):
                    dotted = _dotted(node)
                    root = dotted.split(".")[0] if dotted else ""
                    for base, _ in imported.get(root, []):
                        full = base + dotted[len(root) :] if dotted else ""
                        if _denied(full, set_name):
                            hit = full
                elif isinstance(node, ast.Call):
                    hit = _dynamic_reach(node, imported)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value.strip()
                    if _denied(text, set_name):
                        hit = text
                elif isinstance(node, ast.Subscript) and _resolved(node.value, imported) == (
                    "sys.modules"
                ):
                    hit = "sys.modules (a module looked up by name at run time)"
                elif isinstance(node, ast.Name) and node.id != name and node.id not in local:
                    todo.append(node.id)  # a helper, a constant, an imported name
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    for alias in node.names:
                        module = node.module if isinstance(node, ast.ImportFrom) else None
                        full = f"{module}.{alias.name}" if module else alias.name
                        if not getattr(node, "level", 0) and _denied(full, set_name):
                            hit = full
                if hit is not None:
                    return f"{hit}, line {getattr(node, 'lineno', '?')}"
    return None
