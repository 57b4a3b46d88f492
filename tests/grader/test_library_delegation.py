"""A submission that hands an exercise to the library's own agents earns nothing (red-team
attack 09: the stubs plus ``from mcts_course.agents.bandits import ucb1`` and an MCTSPlayer
wrapping ``mcts_course.agents.MCTSAgent`` took 12/99 with no exercise code)."""

from __future__ import annotations

import random
from pathlib import Path

import mcts_grader
import pytest
from grading_fixtures.mutants import DELEGATIONS, build
from mcts_grader.batch import grade

from mcts_course.grading.delegation import library_delegation
from mcts_course.grading.sets import SETS

SOLUTIONS = Path(mcts_grader.__file__).parent / "solutions"
EXERCISES = Path(__file__).parents[2] / "exercises"


def test_the_delegating_submission_earns_nothing(tmp_path):
    sub = build("delegate_static_imports", tmp_path / "delegate", files=("ttt_mcts", "bandits"))
    sub.chmod(0o700)
    results = grade([sub], sets=["ttt_mcts", "bandits"])
    (result,) = results
    assert result.score == 0, [(o.name, o.score) for o in result.outcomes if o.score]
    said = {o.output.splitlines()[0] for o in result.outcomes}
    assert any("mcts_course.agents.bandits.ucb1_arm" in line for line in said), said
    assert any("mcts_course.agents.MCTSAgent" in line for line in said), said


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_reference_and_the_given_code_are_not_flagged(name):
    for folder in (SOLUTIONS, EXERCISES):
        assert library_delegation((folder / f"{name}.py").read_text(), name) is None


@pytest.mark.parametrize(
    "code",
    [
        "import mcts_course.agents as lib\n\n"
        "def ucb1(w, v, p, c=1.4):\n    return lib.ucb1(w, v, p, c)\n",
        "import mcts_course.agents.bandits\n\n"
        "def ucb1(w, v, p, c=1.4):\n    return mcts_course.agents.bandits.ucb1(w, v, p, c)\n",
        "import importlib\n\ndef helper():\n"
        "    return importlib.import_module('mcts_course.agents.bandits').ucb1\n\n"
        "def ucb1(w, v, p, c=1.4):\n    return helper()(w, v, p, c)\n",
        "from mcts_course.agents.bandits import ucb1 as _u\n\nucb1 = _u\n",
    ],
)
def test_roundabout_ways_are_flagged(code):
    assert library_delegation(code, "ttt_mcts") is not None


def test_experiments_beside_the_graded_code_may_use_the_library():
    """The book's exercise notebooks compare with the library's agents in other cells."""
    code = (
        "from mcts_course.agents import MCTSAgent\n\n"
        "def ucb1(wins, visits, parent_visits, c=1.4):\n    return wins / visits\n\n"
        "def compare():\n    return MCTSAgent(100)\n"
    )
    assert library_delegation(code, "ttt_mcts") is None


# -- by mechanism: the graded run cannot reach the library's solvers at all -------------------
DELEGATED = ("ttt_mcts", "bandits", "alphabeta")


@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "uid-only"])
@pytest.mark.parametrize("name", sorted(DELEGATIONS))
def test_delegation_by_names_built_at_run_time_earns_nothing(
    tmp_path, monkeypatch, name, namespaces
):
    """Red-team round 2, attack 01: the stubs plus wrappers calling the library's UCB1, bandit
    rules, MCTSAgent and alpha-beta through ``importlib.import_module("mcts_" + ...)``, or by
    executing the library's source file found on disk (the grader's own copy, path known),
    took 29 and 24 points: the static check sees no name.  The student's process now imports
    a copy of the package without any solver (in namespaces nothing else exists; without
    them the library's solver files are covered too)."""
    from mcts_course.grading import confine

    if not namespaces:
        monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    try:
        sub = build(name, tmp_path / name, files=DELEGATED)
        sub.chmod(0o700)
        (result,) = grade([sub], sets=list(DELEGATED))
    finally:
        confine.namespaces_allowed.cache_clear()
    assert result.status == "graded", result.status
    assert result.score == 0, [(o.name, o.score) for o in result.outcomes if o.score]
    said = " ".join(o.output for o in result.outcomes)
    # failed for want of the module, not by luck; or refused before it ran, the module's
    # name being built at run time (red-team round 7)
    assert ".agents.minimax" in said or "built at run time" in said, said[:500]


def test_the_student_view_holds_no_solver(tmp_path):
    """What the copy keeps is the given code's need: the MCTS skeleton for exercise 7 (its
    bandit rules raise), the games, the grading server; no minimax, exact play, learning."""
    from mcts_course.grading import sandbox, studentview

    root = sandbox.public_package(tmp_path) / "mcts_course"
    names = {p.relative_to(root).as_posix() for p in root.rglob("*.py")}
    assert "agents/minimax.py" not in names and "agents/exact.py" not in names
    assert not any(n.startswith(("learn/", "lab/", "pictures/")) for n in names), names
    assert "explorer_functions.py" not in names and "grading/tests/__init__.py" not in names
    assert {"given.py", "agents/mcts.py", "games/tictactoe.py", "grading/server.py"} <= names
    ns: dict = {}
    exec(compile((root / "agents" / "bandits.py").read_text(), "bandits.py", "exec"), ns)
    calls = {
        "ucb1": (1.0, 2, 3),
        "ucb1_arm": ([1.0, 0.0], [2, 1]),
        "epsilon_greedy": ([1.0, 0.0], [2, 1], random.Random(0)),
        "softmax": ([1.0, 0.0], [2, 1], random.Random(0)),
    }
    assert set(calls) == set(studentview.ANSWERS)
    for answer, args in calls.items():
        with pytest.raises(NotImplementedError, match="not available to graded code"):
            ns[answer](*args)


def test_what_the_view_leaves_out_says_so(tmp_path):
    """A submission importing a left-out module or agent at its top is told why, and the
    skeleton the given code of exercise 7 subclasses still searches once it chooses children."""
    import subprocess
    import sys

    from mcts_course.grading import sandbox

    root = sandbox.public_package(tmp_path)
    code = (
        "from mcts_course.agents import MCTSAgent\n"
        "from mcts_course.games import TicTacToe\n"
        "for stmt in ('import mcts_course.arena', 'from mcts_course.agents import PerfectAgent',"
        " 'import mcts_course.agents.minimax'):\n"
        "    try:\n        exec(stmt)\n    except ImportError as e:\n        print(e)\n"
        "class First(MCTSAgent):\n"
        "    def select_child(self, node):\n"
        "        return min(node.children.values(), key=lambda c: c.action)\n"
        "print('move', First(30, seed=1).select_action(TicTacToe()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path[:0] = [{str(root)!r}]\n{code}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 4, done
    assert all("not part of a graded run" in line for line in lines[:3]), lines
    assert lines[3].startswith("move "), lines


def test_a_notebook_importing_left_out_modules_still_loads():
    """Notebook cells import the arena or the library's agents for experiments (chapters 17
    and 18): those imports are guarded, so the definitions beside them are still graded."""
    from mcts_course.grading.sources import notebook_code

    cells = [
        "from mcts_course.arena import match\nfrom mcts_course.agents import MonteCarloAgent",
        "from mcts_course.given import Node\n\ndef ucb1(w, v, p, c=1.4):\n    return w / v",
    ]
    notebook = {"cells": [{"cell_type": "code", "source": c} for c in cells]}
    code, _, _ = notebook_code(notebook)
    namespace: dict = {}
    exec(compile(code, "notebook", "exec"), namespace)  # the grader's full package: all load
    assert "try:" in code and "from mcts_course.arena import match" in code
    assert "try:\n    from mcts_course.given" not in code  # the given code is always there
