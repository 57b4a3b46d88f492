"""The textbook graph search (Algorithm 13.3, mcts_lab.textbook.graph): shared nodes, edge
counts that add up, fewer nodes than a tree, and the engine's choices where they are forced."""

from __future__ import annotations

from random import Random

import pytest
from mcts_lab.textbook.graph import graph_picture, graph_search
from mcts_lab.textbook.uct import uct_search

from mcts_course.agents.exact import move_values
from mcts_course.agents.transpositions import TranspositionMCTSAgent
from mcts_course.games import ConnectFour, TicTacToe


def test_two_move_orders_reach_one_node():
    _, table, _ = graph_search(TicTacToe(), 3000, Random(0))
    root = table[TicTacToe()]
    one = root.children[0].children[4].children[8]  # X a1, O b2, X c3 ...
    other = root.children[8].children[4].children[0]  # ... and X c3, O b2, X a1
    assert one is other and one.state == TicTacToe.from_moves([8, 4, 0])
    assert len({id(node) for node in table.values()}) == len(table)


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour])
def test_visits_add_up_along_the_edges(game):
    _, table, edges = graph_search(game(), 400, Random(1))
    root = table[game()]
    assert root.visits == 400
    incoming: dict[int, int] = {}
    for (parent, child), n in edges.items():
        assert any(ch is child for ch in parent.children.values())
        incoming[id(child)] = incoming.get(id(child), 0) + n
    for node in table.values():
        out = sum(edges.get((node, ch), 0) for ch in node.children.values())
        assert out <= node.visits  # each visit goes on by one edge at most
        if node is not root:  # and each visit came in by exactly one edge
            assert incoming[id(node)] == node.visits


def test_the_graph_has_fewer_nodes_than_the_tree_as_the_engines_does():
    budget = 1000
    _, table, _ = graph_search(TicTacToe(), budget, Random(2))
    _, tree = uct_search(TicTacToe(), budget, Random(2))
    tree_nodes, stack = 0, [tree]
    while stack:
        tree_nodes += 1
        stack.extend(stack.pop().children.values())
    engine = TranspositionMCTSAgent(budget, seed=2)
    engine.search(TicTacToe())
    assert len(table) < tree_nodes and engine.nodes < tree_nodes


@pytest.mark.parametrize("moves", [[0, 3, 1, 4], [0, 4, 1], [4, 0, 8, 2]])
def test_it_plays_the_forced_move_as_the_engine_and_exact_search_do(moves):
    # X can win at once, or O must block, or X must block: one optimal move
    state = TicTacToe.from_moves(moves)
    values = move_values(state)
    best = {a for a, v in values.items() if v == max(values.values())}
    move, _, _ = graph_search(state, 500, Random(3))
    assert move in best
    assert TranspositionMCTSAgent(500, seed=3).select_action(state) in best


def test_the_picture_draws_the_shared_node_and_its_two_edges():
    import matplotlib

    matplotlib.use("Agg")
    fig = graph_picture(budget=500, seed=0)
    _, table, edges = graph_search(TicTacToe(), 500, Random(0))
    shared = table[TicTacToe.from_moves([0, 4, 8])]
    texts = [t.get_text() for t in fig.texts]
    counts = [edges[table[TicTacToe.from_moves(m)], shared] for m in ([0, 4], [8, 4])]
    assert all(f"n = {n:,}" in texts for n in counts)
    titles = [ax.get_title() for ax in fig.axes]
    assert f"N = {shared.visits:,}" in titles and sum(counts) == shared.visits
    assert len(fig.axes) == 6
