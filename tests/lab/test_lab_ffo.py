"""The FFO endgame positions #1-19: the file parses, and its moves are the engine's moves."""

from __future__ import annotations

import pytest
from mcts_lab.ffo import load_ffo, parse_obf_line, solved_shares

from mcts_course.agents import AlphaBetaAgent, MCTSAgent
from mcts_course.games import Othello

POSITIONS = load_ffo()


def test_nineteen_positions_with_14_to_16_empty_squares():
    assert [p.number for p in POSITIONS] == list(range(1, 20))
    assert {p.empties for p in POSITIONS} == {14, 15, 16}
    assert all(isinstance(p.state, Othello) and not p.state.is_terminal() for p in POSITIONS)


@pytest.mark.parametrize("position", POSITIONS, ids=lambda p: f"ffo{p.number}")
def test_every_legal_move_has_its_exact_margin(position):
    # A real check of both the file and the engine's move generator: the moves the file
    # solved are exactly the legal moves of the parsed position.
    assert sorted(position.margins) == position.state.legal_actions()
    assert all(m % 2 == 0 for m in position.margins.values())  # 64 squares: margins are even


def test_the_first_position_as_published():
    first = POSITIONS[0]
    assert first.state.current_player == 0  # black (X) to move
    assert [first.state.action_to_string(a) for a in first.best_moves] == ["g8"]
    assert first.best == 18
    assert first.keeps_outcome(first.state.parse_action("a3"))  # +4: still a win
    assert not first.keeps_outcome(first.state.parse_action("b1"))  # -4: a loss


def test_white_to_move_and_a_bad_line():
    assert POSITIONS[7].state.current_player == 1  # #8: white (O) to move
    with pytest.raises(ValueError):
        parse_obf_line("XO- X; A1:+2;", 1)


def test_shares_count_best_and_kept_moves():
    positions = POSITIONS[:2]
    shares = solved_shares(
        positions,
        {"ab": lambda s: AlphaBetaAgent(2), "mcts": lambda s: MCTSAgent(20, seed=s)},
        {"ab": 1, "mcts": 2},
        n_jobs=1,
    )
    ab, mcts = shares
    assert ab.trials == 2 and mcts.trials == 4
    for s in shares:
        assert 0 <= s.best <= s.kept <= s.trials
        low, high = s.best_interval
        assert low <= s.best_share <= high


def test_tables_have_a_row_per_player_and_position():
    from mcts_lab.ffo import Share, positions_table, share_table

    table = share_table([Share("x", 1, 2, 4, 0, 0.1)])
    assert len(table.rows) == 1 and "50%" in table._repr_markdown_()
    assert len(positions_table(POSITIONS).rows) == 19
    short = share_table([Share("x", 1, 2, 4, 0, 0.1)], kept=False)
    assert "outcome kept" not in short._repr_markdown_() and "100" in short._repr_markdown_()


def test_position_interval_is_a_bootstrap_over_positions():
    from mcts_lab.ffo import Share

    from mcts_course.stats import bootstrap_interval, wilson_interval

    spread = Share("x", 3, 4, 8, 1, 0.1, (1.0, 0.5, 0.0, 0.0), (1.0, 1.0, 0.0, 0.0))
    assert spread.position_interval() == bootstrap_interval([1.0, 0.5, 0.0, 0.0])
    assert spread.position_interval(kept=True) == bootstrap_interval([1.0, 1.0, 0.0, 0.0])
    # the same share everywhere: the bootstrap would be a point, Wilson over positions stands in
    flat = Share("y", 4, 4, 4, 4, 0.1, (1.0,) * 4, (1.0,) * 4)
    low, high = flat.position_interval()
    assert (low, high) == wilson_interval(1.0, 4) and low < 1.0 == high
    wider = flat.position_interval(confidence=0.99)
    assert wider[0] < low
    table = share_table_markdown([spread], by_position=True)
    low, high = spread.position_interval()
    assert f"{low:.0%} to {high:.0%}" in table


def share_table_markdown(shares, by_position):
    from mcts_lab.ffo import share_table

    return share_table(shares, by_position=by_position)._repr_markdown_()
