"""Red team round 52: each exercise set's package copy kept more than its set may use.  The
connect4 set's copy had lost Connect Four's functions but kept the rules' tables (``_LANES``,
``_LEGAL``): a helper reaching them by a built module name answered is_win, legal_columns and
drop for any board (11 of 18 points, 06).  The other sets' copies had lost MCTSAgent's methods
but kept the MCTS module's ``argmax`` and ``most_visited_child``: select_child and best_action
handed to them took their 5 points (07).  Now a module cut whole loses its private data too
(all but what the definitions it keeps read), and the skeleton's module loses its functions."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from grading_fixtures.batches import private
from mcts_grader.batch import grade

from mcts_course.grading import sandbox
from mcts_course.grading.sets import SETS

ATTACKS = Path(__file__).resolve().parent / "attacks" / "round52"
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="graded runs as root"
)


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    return sandbox.public_package(tmp_path_factory.mktemp("public"))


@pytest.mark.parametrize("set_name", sorted(SETS))
def test_06_07_what_each_sets_copy_holds(copies, set_name):
    view = sandbox.set_view(copies, set_name) / "mcts_course"
    c4 = (view / "games" / "connect4.py").read_text()
    skeleton = (view / "agents" / "mcts.py").read_text()
    # the rules' tables go with the rules' functions; the sizes the class states stay
    assert ("_LANES = " in c4 and "_LEGAL = " in c4) == (set_name != "connect4")
    assert "_WIDTH, _HEIGHT = " in c4 and "ROWS: ClassVar[int] = _HEIGHT" in c4
    # the bandits set's given code runs the whole skeleton: it keeps argmax
    for function in ("argmax", "most_visited_child", "root_table"):
        assert (f"def {function}(" in skeleton) == (set_name == "bandits"), function
    assert "class Node" in skeleton


# each attack: its exercise set, its files (name in the folder: file under attacks/round52) and
# the private name whose absence its helper's import names
ATTACKS_GRADED = {
    "06_rules_tables": (
        "connect4",
        {"connect4.py": "tables_connect4.py.txt", "rules.py": "tables_rules.py.txt"},
        "_LANES",
    ),
    "07_skeleton_choices": (
        "ttt_mcts",
        {"ttt_mcts.py": "choices_ttt_mcts.py.txt", "pick.py": "choices_pick.py.txt"},
        "argmax",
    ),
}


@as_root
@pytest.mark.parametrize("attack", sorted(ATTACKS_GRADED))
def test_the_attacks_are_out_of_reach(tmp_path, attack):
    set_name, files, missing = ATTACKS_GRADED[attack]
    sub = private(tmp_path / "subs") / attack
    sub.mkdir()
    for target, source in files.items():
        shutil.copyfile(ATTACKS / source, sub / target)
    (result,) = grade([sub], sets=[set_name])
    assert result.status == "graded", result.status
    assert result.score == 0, [(o.test, o.score) for o in result.outcomes if o.score]
    said = result.outcomes[0].output
    assert f"has no attribute '{missing}'" in said, said[:800]
