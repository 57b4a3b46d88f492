"""Transpositions: MCTS on a graph shares its nodes, keeps its counts consistent and plays as
exact search does; alpha-beta with a table returns the values and moves of alpha-beta without
one, having searched fewer nodes."""

from __future__ import annotations

import pytest
from helpers import positions

from mcts_course.agents import make_agent
from mcts_course.agents.evaluation import cell_score
from mcts_course.agents.exact import move_values
from mcts_course.agents.mcts import MCTSAgent
from mcts_course.agents.minimax import AlphaBetaAgent, SearchStats, alphabeta_value
from mcts_course.agents.transpositions import TranspositionMCTSAgent
from mcts_course.games import ConnectFour, Othello, TicTacToe


def graph_nodes(root) -> list:
    """Every node reachable from ``root``, each once (by identity)."""
    seen, stack = {id(root): root}, [root]
    while stack:
        for child in stack.pop().children.values():
            if id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return list(seen.values())


def test_two_move_orders_reach_one_node():
    agent = TranspositionMCTSAgent(3000, seed=0)
    root = agent.search(TicTacToe())
    # X a1, O b2, X c3 and X c3, O b2, X a1: the same position, so the same node.
    one = root.children[0].children[4].children[8]
    other = root.children[8].children[4].children[0]
    assert one is other and one.state == TicTacToe.from_moves([8, 4, 0])
    nodes = graph_nodes(root)
    assert len({node.state for node in nodes}) == len(nodes) == agent.nodes
    assert agent.shared > 0
    tree = MCTSAgent(3000, seed=0)
    assert len(graph_nodes(tree.search(TicTacToe()))) > agent.nodes


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_visits_add_up_along_the_edges(game):
    agent = TranspositionMCTSAgent(400, seed=1)
    root = agent.search(game())
    assert root.visits == 400
    incoming: dict[int, int] = {}
    for (parent, child), n in agent.edge_visits.items():
        assert any(ch is child for ch in parent.children.values())
        incoming[id(child)] = incoming.get(id(child), 0) + n
    for node in graph_nodes(root):
        out = sum(agent.edge_visits.get((node, ch), 0) for ch in node.children.values())
        assert out <= node.visits  # each visit goes on by one edge at most
        if node is not root:  # and each visit came in by exactly one edge
            assert incoming[id(node)] == node.visits


def test_it_takes_wins_and_blocks_as_exact_search_does():
    from test_rave import wins_or_blocks

    for i, state in enumerate(wins_or_blocks(40, seed=8)):
        values = move_values(state)
        move = TranspositionMCTSAgent(300, seed=i).select_action(state)
        assert values[move] == max(values.values()), f"MCTS-TT went wrong here:\n{state}"


def test_a_seeded_graph_search_repeats_and_the_spec_builds_it():
    state = ConnectFour.from_moves("4 4 3")
    a, b = TranspositionMCTSAgent(300, seed=5), TranspositionMCTSAgent(300, seed=5)
    ra, rb = a.search(state), b.search(state)
    assert [(x, c.visits) for x, c in ra.children.items()] == [
        (x, c.visits) for x, c in rb.children.items()
    ]
    assert (a.nodes, a.shared) == (b.nodes, b.shared)
    agent = make_agent("mcts:iterations=20,transpositions=1")
    assert isinstance(agent, TranspositionMCTSAgent) and agent.iterations == 20
    assert type(make_agent("mcts:transpositions=0")) is MCTSAgent
    with pytest.raises(ValueError, match="tree_reuse"):
        make_agent("mcts:transpositions=1,tree_reuse=1")


ALPHABETA_CASES = [(TicTacToe, 2, 6), (ConnectFour, 6, 5), (Othello, 12, 4)]


@pytest.mark.parametrize(("game", "plies", "depth"), ALPHABETA_CASES)
def test_alphabeta_with_a_table_finds_the_same_value_and_move_with_fewer_nodes(game, plies, depth):
    with_table = without = 0
    for state in positions(game, plies, 4, seed=plies):
        player = state.current_player
        plain, stats = alphabeta_value(state, depth, cell_score, player), SearchStats()
        table: dict = {}
        assert alphabeta_value(state, depth, cell_score, player, stats=stats, table=table) == plain
        assert table  # it was used
        a, b = AlphaBetaAgent(depth), AlphaBetaAgent(depth, tt=True)
        assert a.select_action(state) == b.select_action(state)
        without, with_table = without + a.nodes, with_table + b.nodes
    assert with_table < without


def test_iterative_deepening_with_a_table_plays_the_fixed_depth_move():
    for state in positions(ConnectFour, 8, 4, seed=3):
        fixed = AlphaBetaAgent(6).select_action(state)
        deepening = AlphaBetaAgent(6, time_limit=1000.0, tt=True)
        assert deepening.select_action(state) == fixed and deepening.depth_reached == 6
    assert make_agent("alphabeta:depth=3,tt=1").tt is True
