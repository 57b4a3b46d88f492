"""RAVE: AMAF statistics counted as the definition says, beta's schedule, and play that exact
search agrees with."""

from __future__ import annotations

import math
import random

import pytest

from mcts_course.agents import make_agent
from mcts_course.agents.exact import move_values
from mcts_course.agents.mcts import MCTSAgent, Node
from mcts_course.agents.rave import RAVEAgent, rave_beta, recorded_playout
from mcts_course.arena import play_game
from mcts_course.games import ConnectFour, Othello, TicTacToe


def test_amaf_counts_the_moves_each_player_made_later():
    # X at a1 (0), O at b2 (4); X to move.  Tree: X plays b1 (1), then O plays c1 (2); the
    # playout: X c3 (8), O a2 (3), X b3 (7): X wins on the bottom row... not needed, we give
    # the result: X wins.
    state = TicTacToe.from_moves([0, 4])
    root = Node(state)
    for action in (1, 2, 8):
        root.children[action] = Node(state.play(action), action, 0)
    middle = root.children[1]
    for action in (2, 3, 8):
        middle.children[action] = Node(middle.state.play(action), action, 1)
    path = [root, middle, middle.children[2]]
    agent = RAVEAgent(1, rave=100)
    agent.backpropagate(path, (1, -1), [(0, 8), (1, 3), (0, 7)])
    # At the root (X to move): X played b1 (tree) and c3 (playout); c1 was O's, not X's.
    assert agent.amaf(root.children[1]) == (1.0, 1)
    assert agent.amaf(root.children[8]) == (1.0, 1)
    assert agent.amaf(root.children[2]) == (0.0, 0)
    # Below b1 (O to move): O played c1 (tree) and a2 (playout), and lost; c3 was X's.
    assert agent.amaf(middle.children[2]) == (0.0, 1)
    assert agent.amaf(middle.children[3]) == (0.0, 1)
    assert agent.amaf(middle.children[8]) == (0.0, 0)
    # UCT's own statistics are untouched by AMAF: one visit each on the path, none elsewhere.
    assert [n.visits for n in path] == [1, 1, 1] and root.children[8].visits == 0


def test_a_move_played_twice_counts_once():
    state = ConnectFour()
    root = Node(state)
    root.children[3] = Node(state.play(3), 3, 0)
    agent = RAVEAgent(1, rave=100)
    agent.backpropagate([root], (0, 0), [(0, 3), (1, 3), (0, 3)])
    assert agent.amaf(root.children[3]) == (0.5, 1)


def test_beta_falls_from_one_to_zero_and_is_one_half_at_k_visits():
    assert rave_beta(300, 0) == 1.0
    assert rave_beta(300, 300) == pytest.approx(0.5)
    values = [rave_beta(300, n) for n in (1, 10, 100, 1000, 10_000)]
    assert values == sorted(values, reverse=True)
    assert rave_beta(300, 10**9) < 1e-3
    assert rave_beta(0, 0) == rave_beta(0, 50) == 0.0


def test_k_zero_is_plain_uct():
    state = ConnectFour.from_moves("4 4 3")
    rave, uct = RAVEAgent(300, rave=0, seed=3), MCTSAgent(300, seed=3)
    rave_root, uct_root = rave.search(state), uct.search(state)
    visits = {a: ch.visits for a, ch in rave_root.children.items()}
    assert visits == {a: ch.visits for a, ch in uct_root.children.items()}


def test_the_recorded_playout_is_a_legal_game_to_its_end():
    state = Othello()
    returns, moves = recorded_playout(state, random.Random(1))
    for player, action in moves:
        assert state.current_player == player
        state = state.play(action)
    assert state.is_terminal() and returns == state.returns()
    _, cut = recorded_playout(Othello(), random.Random(1), max_plies=5)
    assert len(cut) == 5


def wins_or_blocks(k: int, seed: int) -> list:
    """``k`` tic-tac-toe positions where the player to move can win at once, or must stop
    the opponent's immediate win (and where the choice of move matters)."""
    from mcts_lab.experiments import decisive_positions

    def can_win(s) -> bool:
        return any(s.play(a).winner() == s.current_player for a in s.legal_actions())

    def threatened(s) -> bool:
        return can_win(s.play(s.legal_actions()[0])) if s.legal_actions() else False

    found = [s for s in decisive_positions() if can_win(s) or threatened(s)]
    return random.Random(seed).sample(found, k)


def test_rave_takes_wins_and_blocks_as_exact_search_does():
    for i, state in enumerate(wins_or_blocks(40, seed=7)):
        values = move_values(state)
        move = RAVEAgent(500, rave=300, seed=i).select_action(state)
        assert values[move] == max(values.values()), f"RAVE went wrong here:\n{state}"


def test_rave_plays_all_three_games_through_othello_passes():
    for game, iterations in ((TicTacToe, 50), (ConnectFour, 30), (Othello, 8)):
        record = play_game(game(), RAVEAgent(iterations, seed=1), RAVEAgent(iterations, seed=2))
        assert record.states[-1].is_terminal()
    # A position just before a forced pass: the search goes through the pass.
    rng = random.Random(0)
    while True:
        state, history = Othello(), [Othello()]
        while not state.is_terminal() and not state.must_pass():
            state = state.play(rng.choice(state.legal_actions()))
            history.append(state)
        if not state.is_terminal():
            break
    before = history[-2]  # the opponent's move, after which ``state``'s mover must pass
    agent = RAVEAgent(200, seed=0)
    root = agent.search(before)
    assert root.visits == 200 and agent.select_action(before) in before.legal_actions()


def test_a_seeded_search_repeats():
    state = Othello.from_moves("f5 d6 c3")
    first, second = RAVEAgent(150, seed=4), RAVEAgent(150, seed=4)
    a, b = first.search(state), second.search(state)
    assert [(x, c.visits, c.wins) for x, c in a.children.items()] == [
        (x, c.visits, c.wins) for x, c in b.children.items()
    ]
    assert [first.amaf(c) for c in a.children.values()] == [
        second.amaf(c) for c in b.children.values()
    ]


def test_the_spec_picks_rave_and_refuses_bad_keys():
    agent = make_agent("mcts:iterations=50,rave=250")
    assert isinstance(agent, RAVEAgent) and agent.rave == 250 and agent.iterations == 50
    assert type(make_agent("mcts:rave=0")) is MCTSAgent
    for spec, words in (
        ("mcts:rave=-1", "rave"),
        ("mcts:rave=10,transpositions=1", "combined"),
        ("mcts:rave=10,policy=softmax", "policy"),
        ("mcts:rave=x", "number"),
        ("mcts:rave=nan", "rave"),
        ("mcts:rave=inf", "rave"),
    ):
        with pytest.raises(ValueError, match=words):
            make_agent(spec)
    assert math.isclose(make_agent("mcts:rave=2.5").rave, 2.5)
