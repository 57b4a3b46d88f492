"""Minimax and alpha-beta: the same values, fewer nodes, sensible moves."""

from __future__ import annotations

import random

import pytest

from mcts_course.agents import (
    AlphaBetaAgent,
    MinimaxAgent,
    SearchStats,
    alphabeta_value,
    minimax_value,
)
from mcts_course.agents.evaluation import WIN_SCORE, cell_score, disc_count, mobility
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe


def random_positions(game, count, seed):
    """``count`` non-terminal positions reached by random play (at random lengths)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = game()
        for _ in range(rng.randrange(0, 60)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            positions.append(state)
    return positions


# Othello positions just before a forced pass, where max and min do not simply alternate.
OTHELLO_PASS = Othello.from_moves(
    "d3 c3 b3 d2 f5 b2 c2 f6 e2 c5 b1 a1 b5 f4 b4 c1 g3 f2 f7 e6 e1 c6 f1 g7 h7 f3 a2 h3 h4 h8 "
    "g4 a3 c7 b6 g6 h2 d7 g8 a5 d1 c4 g2 e7 a4 e3 d6 g5 a7 h1 g1 b7"
)


@pytest.mark.parametrize(
    "game, count, depths",
    [(TicTacToe, 12, (1, 2, 3, 4)), (ConnectFour, 8, (1, 2, 3, 4)), (Othello, 4, (1, 2, 3, 4))],
)
def test_alphabeta_value_equals_minimax_value(game, count, depths):
    positions = random_positions(game, count, seed=42)
    if game is Othello:
        positions.append(OTHELLO_PASS)
    total_minimax = total_alphabeta = 0
    for state in positions:
        player = state.current_player
        for depth in depths:
            for evaluate in (cell_score, disc_count, mobility):
                if evaluate is not cell_score and depth > 2:
                    continue
                mm, ab = SearchStats(), SearchStats()
                expected = minimax_value(state, depth, evaluate, player, mm)
                assert alphabeta_value(state, depth, evaluate, player, stats=ab) == expected
                assert ab.nodes <= mm.nodes  # alpha-beta visits a subset of the minimax tree
                total_minimax += mm.nodes
                total_alphabeta += ab.nodes
                if depth <= 2:  # and from the other side of the board
                    assert alphabeta_value(state, depth, evaluate, 1 - player) == minimax_value(
                        state, depth, evaluate, 1 - player
                    )
    assert total_alphabeta < total_minimax / 2


def test_pass_is_just_an_action():
    state = OTHELLO_PASS.play(OTHELLO_PASS.parse_action("a6"))
    assert state.legal_actions() == [PASS]
    player = state.current_player
    for depth in (1, 2, 3):
        assert alphabeta_value(state, depth, cell_score, player) == minimax_value(
            state, depth, cell_score, player
        )
    # after the pass the other player moves again: depth 1 takes White's best reply
    after = state.play(PASS)
    assert minimax_value(state, 2, disc_count, player) == min(
        disc_count(after.play(a), player) for a in after.legal_actions()
    )


@pytest.mark.slow
def test_node_counts_on_the_full_tic_tac_toe_tree():
    stats = SearchStats()
    # A known count: the full tic-tac-toe game tree has 549,946 nodes (root included).
    assert minimax_value(TicTacToe(), 9, cell_score, 0, stats) == 0  # a draw
    assert stats.nodes == 549_946
    assert stats.horizon == 0


def test_alphabeta_solves_tic_tac_toe():
    stats = SearchStats()
    assert alphabeta_value(TicTacToe(), 9, cell_score, 0, stats=stats) == 0
    assert stats.nodes < 549_946 / 10
    # O to move after "b2 b1 a1": O must block c3, then X forks with a3: a loss for O
    x_wins = TicTacToe.from_moves("b2 b1 a1")
    assert alphabeta_value(x_wins, 9, cell_score, 1) == -WIN_SCORE


def test_depth_zero_is_the_static_evaluation():
    state = Othello.from_moves("d3 c5")
    assert minimax_value(state, 0, cell_score, 0) == cell_score(state, 0)
    assert alphabeta_value(state, 0, cell_score, 1) == cell_score(state, 1)


@pytest.mark.parametrize("agent_class", [MinimaxAgent, AlphaBetaAgent])
def test_agents_take_a_win_and_block_a_loss(agent_class):
    win = TicTacToe.from_moves("a1 a2 b1 b2")
    block = TicTacToe.from_moves("b2 a1 c3 a2")
    for seed in range(3):
        assert agent_class(depth=1, seed=seed).select_action(win) == win.parse_action("c1")
        assert agent_class(depth=2, seed=seed).select_action(block) == block.parse_action("a3")
    c4 = ConnectFour.from_moves("1 2 1 2 1")
    assert agent_class(depth=2, seed=0).select_action(c4) == 0


def test_alphabeta_finds_a_connect_four_double_threat():
    # Red has 3 and 4 on the bottom row; 2 or 5 makes an open three that cannot be stopped.
    state = ConnectFour.from_moves("3 3 4 4")
    for seed in range(3):
        agent = AlphaBetaAgent(depth=3, seed=seed)
        assert state.action_to_string(agent.select_action(state)) in ("2", "5")
        assert agent.nodes > 0


def test_agent_choices_agree_and_alphabeta_is_cheaper():
    for state in random_positions(Othello, 4, seed=7):
        mm, ab = MinimaxAgent(depth=3, seed=1), AlphaBetaAgent(depth=3, seed=1)
        a, b = mm.select_action(state), ab.select_action(state)
        value = {
            x: minimax_value(state.play(x), 2, cell_score, state.current_player) for x in (a, b)
        }
        assert value[a] == value[b]  # both best moves (ties may differ)
        assert ab.nodes < mm.nodes


def test_iterative_deepening_under_a_time_limit():
    agent = AlphaBetaAgent(depth=None, time_limit=0.05, seed=0)
    state = Othello()
    assert agent.select_action(state) in state.legal_actions()
    assert 1 <= agent.depth_reached < 60
    # a small game is searched to the end and then stops deepening
    solver = AlphaBetaAgent(depth=None, time_limit=30, seed=0)
    block = TicTacToe.from_moves("b2 a1 c3 a2")
    assert solver.select_action(block) == block.parse_action("a3")
    assert solver.depth_reached <= 5


def test_depth_and_time_together_stop_at_the_depth():
    agent = AlphaBetaAgent(depth=2, time_limit=30, seed=0)
    agent.select_action(Othello())
    assert agent.depth_reached == 2


def test_same_seed_same_moves():
    def game(seed):
        agents = [AlphaBetaAgent(depth=2, seed=seed), MinimaxAgent(depth=1, seed=seed)]
        state, moves = Othello(), []
        while not state.is_terminal():
            moves.append(agents[state.current_player].select_action(state))
            state = state.play(moves[-1])
        return moves

    assert game(3) == game(3)


def test_budgets_and_keyword_only():
    assert AlphaBetaAgent().depth == 4  # neither depth nor time: the default depth
    assert AlphaBetaAgent(time_limit=0.1).depth is None  # time alone: deepen until it is up
    with pytest.raises(TypeError):
        AlphaBetaAgent(3, 0.1)
    with pytest.raises(TypeError):
        MinimaxAgent(2, cell_score)


def test_ties_go_to_the_smallest_action():
    # From the Othello start every move is worth the same by symmetry: d3 (19), the smallest.
    for seed in range(3):
        assert MinimaxAgent(depth=2, seed=seed).select_action(Othello()) == 19
        assert AlphaBetaAgent(depth=3, seed=seed).select_action(Othello()) == 19


def test_bad_parameters():
    with pytest.raises(ValueError):
        MinimaxAgent(depth=0)
    with pytest.raises(ValueError):
        AlphaBetaAgent(time_limit=-1)
