"""Connect Four endgames solved by the package's exact search, and MCTS-Solver checked on them."""

from __future__ import annotations

from mcts_lab.solved import (
    connect4_endgames,
    solver_check,
    solver_proofs,
    winning_with_losing_moves,
)

from mcts_course.agents.exact import move_values
from mcts_course.games import ConnectFour, TicTacToe


def test_endgames_have_a_single_right_move_and_no_immediate_win():
    positions = connect4_endgames(3, 26, seed=2)
    assert len({p.state for p in positions}) == 3
    for p in positions:
        assert p.margins == move_values(p.state)
        assert len(p.best_moves) == 1
        me = p.state.current_player
        assert not any(p.state.play(a).winner() == me for a in p.state.legal_actions())


def test_solver_check_counts_agreeing_proofs():
    positions = [TicTacToe.from_moves("a1 b2 c3"), TicTacToe.from_moves("a1 a2 b1 b2")]
    check = solver_check(positions, 3_000)
    assert check.proven == 2 and check.agree == 2
    assert sum(check.values.values()) == 2


def test_proofs_never_contradict_exact_values():
    positions = [p.state for p in connect4_endgames(4, 26, seed=3)]
    proofs = solver_proofs(positions[0], 500, seed=0)
    for a, v in proofs.proofs.items():
        assert v != v or v == proofs.exact[a]  # NaN: not proven
    state = winning_with_losing_moves([TicTacToe.from_moves("a1 b1 a2")] + positions)
    values = move_values(state)
    assert max(values.values()) == 1 and min(values.values()) == -1
    assert isinstance(state, (TicTacToe, ConnectFour))


def test_an_interval_end_at_zero_is_printed_without_a_sign():
    from mcts_lab.solved import SolverAgainstUCT

    # UCT errs in one position of four, the solver never: the bootstrap's low end is exactly 0.
    duel = SolverAgainstUCT((10,), 1, {10: [0.0, 0.0, 0.0, 0.0]}, {10: [1.0, 0.0, 0.0, 0.0]})
    low, high = duel.difference(10, 0.95)
    assert low == 0 and high > 0
    cell = duel.table(0.95).rows[0][-1]
    assert cell.startswith("0 to +") and "+0.0%" not in cell


def test_mirror_pairs_finds_left_right_mirror_images():
    from mcts_lab.solved import mirror_pairs

    from mcts_course.games import ConnectFour, TicTacToe

    states = [
        ConnectFour.from_moves("1 2"),
        ConnectFour.from_moves("4"),
        ConnectFour.from_moves("7 6"),
        ConnectFour.from_moves("1 3"),
    ]
    assert mirror_pairs(states) == ([(0, 2)], 1)  # "4" is its own mirror image
    ttt = [
        TicTacToe.from_moves("a1 b2"),
        TicTacToe.from_moves("c1 b2"),
        TicTacToe.from_moves("a1 c3"),
    ]
    assert mirror_pairs(ttt) == ([(0, 1)], 0)  # a1 and c1 are mirror images; c3 is not
