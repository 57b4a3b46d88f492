"""The horizon-effect finder (mcts_lab.horizon) finds what its docstring promises."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from mcts_lab import horizon

from mcts_course.agents.exact import move_values as exact_values
from mcts_course.games import ConnectFour

# A position the finder returns (seed 4): Yellow to move, every move loses.
MOVES = "1 5 5 2 2 2 1 7 2 5 7 2 2 1 6 5 4 4 4 6 5 6 3 7 4"


def test_threats_and_immediate_wins():
    state = ConnectFour.from_moves("1 1 2 2 3")  # Red has three on the bottom row
    assert horizon.wins_now(state) == []  # Yellow cannot win at once
    assert horizon.wins_now(state.play(state.parse_action("7"))) == [3]  # Red wins in column 4
    assert not horizon.is_threat(state, state.parse_action("7"))  # it leaves Red a win
    before = ConnectFour.from_moves("1 1 2 2")
    assert horizon.is_threat(before, before.parse_action("3"))  # Yellow must block


def test_the_known_position_shows_the_horizon_effect():
    state = ConnectFour.from_moves(MOVES)
    assert all(v == -1 for v in exact_values(state).values())
    found = horizon.check(state, depth=4, proof_depth=8)
    assert found is not None
    shallow, deep, choice = found
    assert not horizon.loses(shallow[choice]) and horizon.is_threat(state, choice)
    assert all(horizon.loses(v) for v in deep.values())
    assert horizon.check(ConnectFour(), depth=4, proof_depth=8) is None


def test_the_finder_plays_the_delaying_moves_out():
    found = horizon.find_horizon_effect(depth=4, proof_depth=8, seed=4)
    assert found is not None and found.state == ConnectFour.from_moves(MOVES)
    assert found.delays == 2 and found.threats[:2] == [True, True]
    assert all(horizon.loses(v) for v in found.values[2:])
    end = found.state
    for action in found.line:
        end = end.play(action)
    assert end.returns()[found.state.current_player] == -1  # the loss came all the same
    table = found.table()
    assert table.columns == ["column", "threat?", "2 plies", "4 plies", "8 plies"]
    assert len(table.rows) == len(found.state.legal_actions())
    fig = found.boards()
    numbers = [[t for t in ax.texts if t.get_gid() == "move-number"] for ax in fig.axes]
    assert [len(n) for n in numbers] == [0, 2 * found.delays, len(found.line)]
    assert [t.get_text() for t in numbers[1]] == ["1", "2", "3", "4"]
    ax = found.board()
    rings = [a for a in ax.patches if a.get_gid() == "mark"]
    assert len(rings) == 1 and rings[0].center == (found.choice + 0.5, -1.16 + 0.5)
