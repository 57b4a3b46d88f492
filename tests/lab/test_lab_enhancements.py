"""The chapter's experiments on RAVE and transpositions, on small budgets."""

from __future__ import annotations

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
