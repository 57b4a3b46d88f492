"""The three homes and the library's layers, read from the source.

* **Three homes**: the library (``mcts_course``), the book's laboratory (``mcts_lab``, in
  ``lab/``) and the grader (``mcts_grader``, in ``grader/``).  The laboratory and the grader
  import the library; the library imports neither, and neither imports the other.
* **Layers inside the library**: games, then agents, then everything built on agents (arena,
  pictures, learning, the exercise checks), then the command line.  A module never imports one of
  a higher layer.
* **No import cycle** anywhere in the three homes.

Every import counts, also one inside a function (a "lazy" import) and one under ``if
TYPE_CHECKING``.  There is no list of exceptions: a module that needs one is in the wrong place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOMES = {  # top-level package -> the folder that holds it
    "mcts_course": ROOT,
    "mcts_lab": ROOT / "lab",
    "mcts_grader": ROOT / "grader",
}


def module_name(path: Path, base: Path) -> str:
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path, base): path
    for package, base in HOMES.items()
    for path in sorted((base / package).rglob("*.py"))
}


def home(name: str) -> str:
    return name.split(".")[0]


def imports(name: str) -> set[str]:
    """The modules of the three homes that module ``name`` imports, wherever the statement is."""
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
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: imports(name) for name in MODULES}

# Which home may import which: the library stands alone, the two others stand on it.
MAY_IMPORT = {
    "mcts_course": {"mcts_course"},
    "mcts_lab": {"mcts_lab", "mcts_course"},
    "mcts_grader": {"mcts_grader", "mcts_course"},
}

# The library's layers, by module prefix; the longest matching prefix decides.
LAYERS = {
    "mcts_course": 0,  # the version string
    "mcts_course.errors": 0,  # the exceptions every layer raises
    "mcts_course.games": 0,
    "mcts_course.agents": 1,
    "mcts_course.commands": 3,
    "mcts_course.cli": 4,
    "mcts_course.__main__": 4,
}
BUILT_ON_AGENTS = 2  # arena, render, trees, stats, learn, grading, widgets, bench, ...


def layer(name: str) -> int:
    matches = [p for p in LAYERS if name == p or name.startswith(p + ".")]
    if name != "mcts_course" and matches == ["mcts_course"]:
        return BUILT_ON_AGENTS
    return LAYERS[max(matches, key=len)]


def test_the_graph_was_read():
    assert "mcts_course.games.base" in GRAPH["mcts_course.games.othello"]
    assert "mcts_course.games" in GRAPH["mcts_course.arena"]
    assert "mcts_course.errors" in GRAPH["mcts_course.cli"]
    assert "mcts_course.render" in GRAPH["mcts_course.widgets"]
    assert "mcts_course.arena" in GRAPH["mcts_lab.present"]
    assert any(t.startswith("mcts_grader.solutions") for n in MODULES for t in GRAPH[n])
    assert layer("mcts_course") == 0 and layer("mcts_course.arena") == BUILT_ON_AGENTS
    assert layer("mcts_course.games.othello") == 0 and layer("mcts_course.cli") == 4


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_home_imports_only_what_it_stands_on(name):
    strays = sorted(t for t in GRAPH[name] if home(t) not in MAY_IMPORT[home(name)])
    assert not strays, f"{name} ({home(name)}) imports {strays}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if home(n) == "mcts_course"))
def test_no_library_module_imports_a_higher_layer(name):
    higher = sorted(t for t in GRAPH[name] if layer(t) > layer(name))
    assert not higher, f"{name} (layer {layer(name)}) imports {higher}"


def test_games_and_agents_leave_numpy_to_the_functions_that_need_it():
    """numpy may be imported only inside a function (Othello's batched rollouts) or by the
    batch module itself, which those functions import lazily."""
    for name, path in MODULES.items():
        if home(name) != "mcts_course" or layer(name) > 1:
            continue
        if name == "mcts_course.games.othello_batch":
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level statements only
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                else:
                    modules = [node.module or ""]
                assert not any(m.split(".")[0] == "numpy" for m in modules), name


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module: the import loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
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

    for node in graph:
        if node not in index:
            visit(node)
    return loops


def test_the_cycle_finder_finds_a_planted_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    loops = strongly_connected(GRAPH)
    assert not loops, f"import cycles: {loops}"
