"""What a student installs holds no reference solution: the library's wheel, built from this
checkout as ``pip install .`` would, has no file of the grader, no body of a graded function of
the reference solutions, requires numpy alone, and none of its modules imports the grader or
the book's laboratory."""

from __future__ import annotations

import ast
import email.parser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mcts_course.grading.sets import SETS

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "grader" / "mcts_grader" / "solutions"
EXERCISES = ROOT / "exercises"
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv", "_build", "build", "dist", ".cache", "*.egg-info", "__pycache__", "*.pyc"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The library's wheel, built from a copy of the checkout (the grader and the laboratory
    included, so that a packaging rule that picked them up would show)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "checkout"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT)
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp)]
    done = subprocess.run([*command, str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (found,) = tmp.glob("mcts_course-*.whl")
    return found


def python_files(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".py")}


def _body(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A function's body without its docstring, as ast.unparse writes it (layout and comments
    do not count)."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.unparse(ast.Module(body, []))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def answers() -> dict[str, str]:
    """``set.function`` -> the reference's body of every function a student writes: those
    whose body in the exercise file is a stub (``raise NotImplementedError``)."""
    found = {}
    for name in SETS:
        stubs = ast.parse((EXERCISES / f"{name}.py").read_text())
        graded = {f.name for f in _functions(stubs) if "NotImplementedError" in _body(f)}
        reference = ast.parse((SOLUTIONS / f"{name}.py").read_text())
        for function in _functions(reference):
            if function.name in graded:
                found[f"{name}.{function.name}"] = _body(function)
    return found


def _blocks(tree: ast.AST) -> list[list[ast.stmt]]:
    """Every list of statements in ``tree``: a module's, a function's body, a branch, a loop's."""
    found = []
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
    return found


def holding_answers(files: dict[str, str]) -> list[tuple[str, str]]:
    """``(file, set.function)`` for every reference body found in ``files``: as consecutive
    statements of any block (a function's whole body, or a copy with something around it)."""
    wanted = {name: (answer, len(ast.parse(answer).body)) for name, answer in answers().items()}
    found = set()
    for path, text in files.items():
        blocks = _blocks(ast.parse(text))
        for name, (answer, size) in wanted.items():
            for block in blocks:
                runs = (block[i : i + size] for i in range(len(block) - size + 1))
                if any(ast.unparse(ast.Module(run, [])) == answer for run in runs):
                    found.add((path, name))
                    break
    return sorted(found)


# Reference bodies the library holds on purpose, with the reason: the exercise asks for a
# function the book has already shown, and the library's search uses.
ON_PURPOSE = {
    ("mcts_course/agents/bandits.py", "ttt_mcts.ucb1"): "UCB1, the library's selection score "
    "(mcts_course.agents.bandits.ucb1); exercise 1 has the student write it again",
}


def test_the_detector_finds_the_reference_solutions():
    """The check below can fail: on the grader's own folder it finds every answer."""
    files = {p.name: p.read_text() for p in SOLUTIONS.glob("*.py")}
    found = {name for _, name in holding_answers(files)}
    assert found == set(answers()) and len(found) >= 20, sorted(set(answers()) - found)
    # and inside a larger function, re-indented
    (name, answer), *_ = answers().items()
    wrapped = "def outer(x):\n    if x:\n" + "".join(
        f"        {line}\n" for line in answer.split("\n")
    )
    assert (("wrapped.py", name)) in holding_answers({"wrapped.py": wrapped})


def test_the_wheel_holds_no_reference_solution(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert any(n.startswith("mcts_course/grading/tests/test_") for n in names)  # public checks
    tops = {n.split("/")[0] for n in names}
    assert tops == {
        "mcts_course",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }, tops
    leaks = [n for n in names if "solutions" in n or "mcts_grader" in n or "mcts_lab" in n]
    assert not leaks, leaks
    found = set(holding_answers(python_files(wheel)))
    assert found <= set(ON_PURPOSE), f"reference solutions in the wheel: {found - set(ON_PURPOSE)}"
    assert set(ON_PURPOSE) <= found  # an allowance no longer needed goes


def test_the_wheel_requires_numpy_only(wheel):
    with zipfile.ZipFile(wheel) as z:
        (metadata,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        message = email.parser.Parser().parsestr(z.read(metadata).decode())
    required = [r for r in message.get_all("Requires-Dist") or [] if "extra ==" not in r]
    names = {r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].strip() for r in required}
    assert names == {"numpy"}, required


def test_the_library_never_imports_the_grader_or_the_laboratory(wheel):
    imports = []
    for path, text in python_files(wheel).items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            else:
                continue
            imports += [
                (path, m) for m in modules if m.split(".")[0] in ("mcts_grader", "mcts_lab")
            ]
    assert not imports, imports
    # nor by a name computed at run time: importlib is given no such string either
    named = [
        path
        for path, text in python_files(wheel).items()
        if 'import_module("mcts_grader' in text or "import_module('mcts_grader" in text
    ]
    assert not named, named
