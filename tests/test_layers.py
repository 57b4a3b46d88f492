"""The package's layers, read from the source: games, then agents, then arena and pictures,
then the command line.  Every import counts, also one inside a function (a "lazy" import) and
one under ``if TYPE_CHECKING``: a lower layer never imports a higher one, and no two modules
import each other, directly or round a longer loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcts_course"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """The package modules that module ``name`` imports, wherever the import statement is."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # "from package import module" imports the module; "from module import name" not.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # mcts_course.games.othello.PASS -> module
                target = target.rpartition(".")[0]
            if target.startswith("mcts_course") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports(name) for name in MODULES}


# The shipped network's forward pass, which PUCT's prior=net plays with (its training is layer 2).
LEARNED_PLAY = ("mcts_course.learn", "mcts_course.learn.network", "mcts_course.learn.shipped")


def layer(name: str) -> int:
    """0 games, 1 agents, 2 arena, pictures and the like, 3 the command line, 4 the book's
    laboratory (``mcts_lab``: experiments and claims that only the chapters use)."""
    if name.startswith("mcts_lab"):
        return 4
    if name.startswith("mcts_course.games"):
        return 0
    if name.startswith("mcts_course.agents") or name in LEARNED_PLAY:
        return 1
    if name.startswith(("mcts_course.commands", "mcts_course.cli", "mcts_course.__main__")):
        return 3
    return 2


def test_the_graph_was_read():
    assert "mcts_course.games.base" in GRAPH["mcts_course.games.othello"]
    assert "mcts_course.games" in GRAPH["mcts_course.arena"]
    assert "mcts_course.errors" in GRAPH["mcts_course.cli"]
    assert "mcts_course.render" in GRAPH["mcts_course.widgets"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_a_higher_layer(name):
    if name in ("mcts_course", "mcts_course.errors"):
        return  # the root package (imports nothing) and the errors module (imports nothing)
    higher = sorted(
        t
        for t in GRAPH[name]
        if t != "mcts_course" and layer(t) > layer(name) and t != "mcts_course.errors"
    )
    assert not higher, f"{name} (layer {layer(name)}) imports {higher}"


def test_the_command_line_modules_never_import_the_cli():
    for name, targets in GRAPH.items():
        if name.startswith("mcts_course.commands"):
            assert "mcts_course.cli" not in targets, name


def test_games_and_agents_leave_numpy_to_the_functions_that_need_it():
    """numpy may be imported only inside a function (Othello's batched rollouts) or by the
    batch module itself, which those functions import lazily."""
    for name, path in MODULES.items():
        if layer(name) > 1 or name == "mcts_course.games.othello_batch":
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level statements only
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                assert not any(m.split(".")[0] == "numpy" for m in modules), name


def test_no_import_cycles():
    """Tarjan's strongly connected components: a component of more than one module is a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert not loops, f"import cycles: {loops}"
