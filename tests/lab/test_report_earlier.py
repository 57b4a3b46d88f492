"""The table of earlier results gives each difference with its two-sample interval."""

from __future__ import annotations

import re

from helpers import match_result
from mcts_lab.present import earlier_table, side_to_move, versus_reported

from mcts_course.games import Othello


def test_earlier_table_gives_the_two_sample_difference():
    rows = [("close", match_result(30, 70), 32, 67), ("far", match_result(80, 20), 25, 74)]
    table = earlier_table(rows, confidence=0.99)
    assert "99.0% interval" in table.splitlines()[0]
    close, far = table.splitlines()[2:]
    assert "30-70 (100 games)" in close
    # 30% against 32.5%: -2.5 points, an interval across zero; 80% against 25.5%: far above
    lo, hi = (float(x) for x in re.findall(r"\(([+-][\d.]+)% to ([+-][\d.]+)%\) \|$", close)[0])
    assert close.rstrip(" |").split("| ")[-1].startswith("-2.5%") and lo < 0 < hi
    lo, hi = (float(x) for x in re.findall(r"\(([+-][\d.]+)% to ([+-][\d.]+)%\) \|$", far)[0])
    assert 0 < lo < 54.5 < hi


def test_versus_reported_widens_with_the_confidence():
    ours = match_result(60, 40)
    narrow, wide = versus_reported(ours, 50, 50, 0.95), versus_reported(ours, 50, 50, 0.99)
    assert wide[0] < narrow[0] < 0.10 < narrow[1] < wide[1]


def test_running_position_has_white_to_move():
    position = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    assert side_to_move(position) == "White"
    moves = {position.action_to_string(a) for a in position.legal_actions()}
    assert moves == {"d1", "d2", "e3", "b4", "e6", "f6"}
