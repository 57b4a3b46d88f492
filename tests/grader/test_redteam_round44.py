"""Red team round 44: what a submission could make the grader's own process do."""

from __future__ import annotations

import ast

from mcts_course.grading import copies


# -- 09: the static copy check's work grew with the square of the nesting ---------------------
def nested(depth: int, lines: int) -> str:
    """``depth`` functions, each defined inside the one before, ``lines`` statements each."""
    out = []
    for d in range(depth):
        out.append("    " * d + f"def f{d}(a, b):")
        out.extend(
            "    " * (d + 1) + f"x{i} = a + b * {i} - (a - {i}) * (b + {d})" for i in range(lines)
        )
    out.append("    " * depth + "return 0")
    return "\n".join(out) + "\n"


def test_09_each_node_of_a_file_is_read_once_by_the_copy_check(monkeypatch):
    """90 nested definitions in a 224 KB file cost the grader 40 s: each definition's subtree was
    unparsed, parsed and dumped again (90 times the file)."""
    source = nested(30, 5)
    nodes = sum(1 for _ in ast.walk(ast.parse(source)))
    read: list[int] = []
    real = ast.iter_fields
    monkeypatch.setattr(ast, "iter_fields", lambda node: read.append(1) or real(node))
    found = copies.fingerprints(source)
    assert sorted(found.values()) == sorted(f"f{d}" for d in range(30))
    assert len(read) <= 2 * nodes  # the parser's depth check, then the hashes: 15 times more before


def test_09_a_copy_renamed_and_redocumented_is_still_found():
    (path,) = [p for m, p in copies._module_files("mcts_course.agents") if m.endswith(".mcts")]
    library = ast.parse(path.read_text(encoding="utf-8"))
    simulate = next(
        n for n in ast.walk(library) if isinstance(n, ast.FunctionDef) and n.name == "simulate"
    )
    simulate.name = "my_playout"
    simulate.returns = None
    for arg in simulate.args.args:
        arg.annotation = ast.Name("object")
    assert isinstance(simulate.body[0], ast.Expr)  # its docstring, rewritten
    simulate.body[0] = ast.Expr(ast.Constant("Play it out, my own way."))
    copy = "import random\n\n\n" + ast.unparse(simulate) + "\n"
    assert "my_playout (a copy of mcts_course.agents.mcts.simulate)" in str(
        copies.library_copy(copy, "ttt_mcts")
    )
