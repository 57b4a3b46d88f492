"""Red team round 44: what a submission could make the grader's own process do."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from mcts_course.grading import copies
from mcts_course.grading.proxies import Connection


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


# -- 07: the names of the functions that ran, kept from every answer until the test ended -----
def test_07_only_the_watched_functions_names_are_kept_from_an_answer():
    """50 names of 150 KB with each of 800 answers grew the grader's process to 3.7 GB."""
    transport = SimpleNamespace(alive=lambda: True, functions=["ucb1", "select_child"])
    connection = Connection(transport)
    connection.begin_test(1.0)
    junk = [f"{k}" + "x" * 150_000 for k in range(49)]
    reply = {"ok": 7, "called": ["ucb1", *junk]}
    assert connection._answer(reply, connection.encoder(), [], keep=False) == 7
    assert connection.called == {"ucb1"}
    notebook = Connection(SimpleNamespace(alive=lambda: True))  # the student's own process
    notebook._answer({"ok": 1, "called": ["mine", *junk]}, notebook.encoder(), [], keep=False)
    assert notebook.called == {"mine"}


# -- 08: the "release" at the start of each test ran the student's code on no test's time -----
def test_08_the_release_at_a_tests_start_is_the_tests_time():
    """The student's process answers "release" (drop what the last test lent it) as it likes:
    a handler that worked 4.5 s there, every test, was charged to nothing."""
    asked: list[tuple[str, float]] = []

    def exchange(message, budget, callback, function):
        asked.append((message["op"], budget))
        return {"ok": None}, 0.75  # the student's seconds for this answer

    connection = Connection(SimpleNamespace(alive=lambda: True, exchange=exchange))
    connection.begin_test(1.0)
    connection.request({"op": "release"}, "release")
    assert asked == [("release", 1.0)] and connection.budget == 0.25
    connection.request({"op": "call"}, "ucb1")
    assert asked[-1] == ("call", 0.25) and connection.budget == -0.5
