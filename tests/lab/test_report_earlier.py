"""The table of earlier results says inside or outside as the intervals do."""

from __future__ import annotations

from helpers import match_result
from mcts_lab.present import earlier_table, side_to_move

from mcts_course.games import Othello


def test_earlier_table_marks_outside_scores():
    rows = [("close", match_result(30, 70), 32, 67), ("far", match_result(80, 20), 25, 74)]
    table = earlier_table(rows)
    close, far = table.splitlines()[2:]
    assert close.endswith("| yes |") and "30-70 (100 games)" in close
    assert far.endswith("| **no** |")


def test_running_position_has_white_to_move():
    position = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    assert side_to_move(position) == "White"
    moves = {position.action_to_string(a) for a in position.legal_actions()}
    assert moves == {"d1", "d2", "e3", "b4", "e6", "f6"}
