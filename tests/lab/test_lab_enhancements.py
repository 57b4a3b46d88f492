"""The chapter's experiments on RAVE and transpositions, on small budgets."""

from __future__ import annotations

import pytest
from mcts_lab.enhancements import (
    agreement_table,
    alphabeta_nodes,
    amaf_agreement,
    graph_savings,
    nodes_table,
    random_positions,
    savings_table,
)

from mcts_course.games import ConnectFour, Othello, TicTacToe


def test_random_positions_are_distinct_and_unfinished():
    found = random_positions(ConnectFour, 6, 5, seed=1)
    assert len(set(found)) == 5 and not any(s.is_terminal() for s in found)
    assert all(sum(cell >= 0 for row in s.board() for cell in row) == 6 for s in found)


def test_amaf_gives_several_samples_per_visit():
    row = amaf_agreement(random_positions(ConnectFour, 4, 3, seed=2), iterations=200)
    assert row.positions == 3 and 0 <= row.same_best <= 3
    assert row.amaf_per_visit > 1  # a playout updates many moves, a visit one
    assert "Connect Four" in agreement_table([row])._repr_markdown_()


def test_the_table_saves_nodes_and_keeps_the_moves():
    row = alphabeta_nodes(random_positions(TicTacToe, 2, 3, seed=3), depth=7)
    assert row.same_moves and row.fixed[1] < row.fixed[0]
    assert "iterative deepening" in nodes_table([row])._repr_markdown_()


def test_the_graph_has_fewer_nodes_than_the_tree():
    row = graph_savings(random_positions(TicTacToe, 1, 2, seed=4), iterations=300)
    assert row.graph_nodes < row.tree_nodes and row.shared > 0
    assert row.graph_nodes + row.shared <= 2 * (300 + 1)  # per position: a node or a link
    othello = graph_savings(random_positions(Othello, 4, 1, seed=4), iterations=50)
    assert othello.graph_nodes <= othello.tree_nodes
    assert "graph / tree" in savings_table([row, othello])._repr_markdown_()


def test_amaf_exact_scores_both_moves_of_the_same_searches_against_the_truth():
    from mcts_lab.enhancements import amaf_exact, amaf_exact_table
    from mcts_lab.rave_scan import tictactoe_positions

    result = amaf_exact(iterations=60, count=40, seed=3)
    assert result.positions == 40
    # A position where the choice matters has a non-optimal move, so neither share is forced
    # to 1; the same searches give both flags, so the two lists pair up position by position.
    assert len(result.uct_right) == len(result.amaf_right) == 40
    diff, (low, high), p = result.difference()
    assert diff == result.share(False) - result.share(True)
    assert low <= diff <= high and 0 < p <= 1
    # The same seed draws the same positions and gives the same flags.
    assert amaf_exact(iterations=60, count=40, seed=3) == result
    assert len(tictactoe_positions().numbers) > 40
    table = amaf_exact_table([result], 0.975)
    assert "97.5%" in table.columns[-1]


def test_amaf_exact_with_one_iteration_leaves_one_move_sampled():
    from mcts_lab.enhancements import amaf_exact

    # One iteration visits one child and its playout AMAF-samples it and the root player's
    # later moves; the most visited child is then sampled too, so both picks exist.
    result = amaf_exact(iterations=1, count=10, seed=0)
    assert result.positions == 10


def test_the_growth_of_the_gap_is_paired_over_the_same_positions():
    from mcts_lab.enhancements import AmafExact, amaf_exact, gap_growth

    small = AmafExact(10, [True, True, False, True], [True, True, True, True], (1, 2, 3, 4))
    large = AmafExact(30, [False, True, False, False], [True, True, True, True], (1, 2, 3, 4))
    growth, (low, high), p = gap_growth(small, large)
    assert growth == 2 / 4  # positions 1 and 4: the gap went from 0 to 1
    assert low <= growth <= high
    assert gap_growth(small, small)[0] == 0 and gap_growth(small, small)[2] == 1.0
    other = AmafExact(30, large.amaf_right, large.uct_right, (1, 2, 3, 5))
    with pytest.raises(ValueError):
        gap_growth(small, other)  # other positions: nothing to pair
    a, b = amaf_exact(20, 12, seed=1), amaf_exact(40, 12, seed=1)
    assert a.numbers == b.numbers and len(a.numbers) == 12  # one seed, the same positions
