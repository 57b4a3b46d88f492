"""A submission that hands an exercise to the library's own agents earns nothing (red-team
attack 09: the stubs plus ``from mcts_course.agents.bandits import ucb1`` and an MCTSPlayer
wrapping ``mcts_course.agents.MCTSAgent`` took 12/99 with no exercise code)."""

from __future__ import annotations

import shutil
from pathlib import Path

import mcts_grader
import pytest
from mcts_grader.batch import grade

from mcts_course.grading.delegation import library_delegation
from mcts_course.grading.sets import SETS

ATTACK = Path(__file__).parent / "attacks" / "library-delegation"
SOLUTIONS = Path(mcts_grader.__file__).parent / "solutions"
EXERCISES = Path(__file__).parents[2] / "exercises"


def test_the_delegating_submission_earns_nothing(tmp_path):
    sub = tmp_path / "delegate"
    shutil.copytree(ATTACK, sub, ignore=shutil.ignore_patterns("README.txt"))
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
