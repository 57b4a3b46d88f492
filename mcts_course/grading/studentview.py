"""The package as a graded submission sees it: the given code and the games, no solver.

The student's process imports a copy of ``mcts_course`` (:func:`write`), never the installed
package.  Red-team attack 01 (second round) reached the library's own answers by module names
built at run time (``importlib.import_module("mcts_" + "course.agents.bandits")``) and earned
29 points; no static check sees such a name.  So the copy holds only what the exercises' given
code and the grading server import (:data:`KEPT`): a module that is not copied does not exist
in the student's root (namespaces), whatever name is built.

The given code of exercise 7 subclasses the course's MCTS skeleton (``MCTSAgent``) and
replaces its selection: the skeleton stays, but the bandit rules it would call (the answers of
exercises 1 and 7: UCB1, epsilon-greedy, softmax) are copied with bodies that raise
(:data:`ANSWERS`), so that the default UCT of ``MCTSAgent`` is not an MCTS player either.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

# Files (or folders) of the package the copy keeps, relative to the package folder.
KEPT = (
    "__init__.py",
    "py.typed",
    "given.py",
    "games",
    "grading",
    "agents/base.py",
    "agents/rollout.py",
    "agents/mcts.py",
    "agents/bandits.py",
)
# Functions of agents/bandits.py that answer an exercise: copied with a body that raises.
ANSWERS = ("ucb1", "ucb1_arm", "epsilon_greedy", "softmax")
AGENTS_INIT = '''"""The agents a graded submission may use: the course's MCTS skeleton
(for the given code of exercise 7, which chooses its own children) and the base class.  The
library's solvers are not part of a graded run."""

from mcts_course.agents.base import Agent, RandomAgent
from mcts_course.agents.mcts import MCTSAgent, Node

__all__ = ["Agent", "MCTSAgent", "Node", "RandomAgent"]
'''
REFUSED = "not available to graded code: the library's answer to an exercise"
# Appended to the copy's mcts_course/__init__.py: importing what was left out says why (a
# finder consulted last, once the copy's own folders had no such module).
LEFT_OUT = """

def _say_what_is_left_out() -> None:
    import sys

    class LeftOut:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name.startswith("mcts_course."):
                raise ModuleNotFoundError(
                    f"{name} is not part of a graded run: the library's solvers, experiments "
                    "and pictures are left out of the package a submission is graded with; "
                    "import it inside a function that is not graded, or under "
                    "if __name__ == '__main__'",
                    name=name,
                )
            return None

    sys.meta_path.append(LeftOut())


_say_what_is_left_out()
"""
AGENTS_LEFT_OUT = """

def __getattr__(name: str):
    if name.startswith("__"):  # hasattr(), inspect...: the usual answer
        raise AttributeError(name)
    raise ImportError(
        f"mcts_course.agents.{name} is not part of a graded run: of the library's agents only "
        "MCTSAgent (the skeleton the given code subclasses), Node, Agent and RandomAgent are; "
        "import it inside a function that is not graded, or under if __name__ == '__main__'"
    )
"""


def _without_answers(source: str) -> str:
    """``source`` with the bodies of :data:`ANSWERS` replaced by a ``raise``."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in ANSWERS:
            message = f"mcts_course.agents.bandits.{node.name} is {REFUSED}"
            node.body = [
                ast.Raise(
                    exc=ast.Call(
                        func=ast.Name("NotImplementedError", ast.Load()),
                        args=[ast.Constant(message)],
                        keywords=[],
                    ),
                    cause=None,
                )
            ]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def write(package: Path, dest: Path, set_name: str | None = None) -> None:
    """Write the student's view of ``package`` (the ``mcts_course`` folder) into ``dest``
    (the new ``mcts_course`` folder); with ``set_name``, the view of that exercise set, whose
    files hold only what the set may use (:func:`mcts_course.grading.narrow.narrow_source`:
    the text a run reads back from a class's file is the class it was given)."""
    from mcts_course.grading.narrow import cuts, narrow_source

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith(".pyc")}
        if Path(folder) == package / "grading":
            skip.add("tests")
        return skip

    dest.mkdir()
    for name in KEPT:
        source, target = package / name, dest / name
        if not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore, symlinks=True)
        else:
            shutil.copyfile(source, target)
    bandits = dest / "agents" / "bandits.py"
    bandits.write_text(_without_answers((package / "agents" / "bandits.py").read_text()))
    (dest / "agents" / "__init__.py").write_text(AGENTS_INIT + AGENTS_LEFT_OUT)
    init = dest / "__init__.py"
    init.write_text(init.read_text() + LEFT_OUT)
    for module in sorted({cut.module for cut in cuts(set_name)}):
        path = dest.joinpath(*module.split(".")[1:]).with_suffix(".py")
        path.write_text(narrow_source(module, path.read_text(), set_name))
