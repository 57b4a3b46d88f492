"""The earlier course's agents differ from the package's exactly where the book says."""

from __future__ import annotations

from mcts_lab.earlier import EarlierMCTS, disc_count_minimax, earlier_flat, lecture_minimax

from mcts_course.agents import MCTSAgent
from mcts_course.games import Othello, TicTacToe


def path_of(state, moves):
    from mcts_course.agents.mcts import Node

    nodes = [Node(state)]
    for move in moves:
        state = state.play(state.parse_action(move))
        nodes.append(Node(state, None, 1 - state.current_player))
    return nodes


def test_earlier_mcts_adds_the_root_players_reward_at_every_level():
    start = TicTacToe.from_moves("b2")  # O to move at the root
    me = start.current_player
    win_for_me = (1, -1) if me == 0 else (-1, 1)
    earlier_path = path_of(start, ["a1", "c3", "a3"])
    EarlierMCTS(10).backpropagate(earlier_path, win_for_me)
    assert [n.wins for n in earlier_path] == [1.0, 1.0, 1.0, 1.0]
    ours_path = path_of(start, ["a1", "c3", "a3"])
    MCTSAgent(10).backpropagate(ours_path, win_for_me)
    # The package flips: the root's own node belongs to the opponent, then me, opponent, me.
    assert [n.wins for n in ours_path] == [0.0, 1.0, 0.0, 1.0]


def test_earlier_mcts_with_flip_backpropagates_as_the_package_and_keeps_the_global_count():
    start = TicTacToe.from_moves("b2")
    win_for_x = (1, -1)
    flipped, ours = path_of(start, ["a1", "c3", "a3"]), path_of(start, ["a1", "c3", "a3"])
    agent = EarlierMCTS(10, flip=True)
    agent.backpropagate(flipped, win_for_x)
    MCTSAgent(10).backpropagate(ours, win_for_x)
    assert [n.wins for n in flipped] == [n.wins for n in ours]
    assert [n.wins for n in flipped] != [1.0] * 4  # not the root player's reward everywhere
    # a search with the flip still runs their selection and counts every iteration
    state = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    root = EarlierMCTS(60, threshold=0, flip=True, seed=3).search(state)
    assert root.visits == 60 and "flip" in agent.name


def test_earlier_mcts_counts_visits_and_plays_legal_moves():
    state = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    agent = EarlierMCTS(200, seed=3)
    move = agent.select_action(state)
    assert move in state.legal_actions()
    assert agent.last_root.visits == 200
    assert agent.expand_threshold == 21 and agent.playout_depth == 21


def test_lecture_minimax_searches_three_plies_and_flat_counts_in_total():
    assert lecture_minimax().depth == 3
    assert earlier_flat(20).playout_depth == 21


def test_disc_count_minimax_evaluates_discs():
    from mcts_course.agents.evaluation import disc_count

    agent = disc_count_minimax()
    assert agent.depth == 2 and agent.evaluate is disc_count
