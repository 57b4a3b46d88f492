"""The one exact solver against facts no one here computed, and against plain minimax."""

from __future__ import annotations

import random

import pytest

from mcts_course.agents.exact import PerfectAgent, best_actions, exact_value, move_values
from mcts_course.arena import match
from mcts_course.games import ConnectFour, Othello, TicTacToe


def plain_negamax(state) -> int:
    """Full-width negamax, no bounds, no table: slow, and obviously right."""
    if state.is_terminal():
        return state.returns()[state.current_player]
    values = []
    for action in state.legal_actions():
        child = state.play(action)
        v = plain_negamax(child)
        values.append(v if child.current_player == state.current_player else -v)
    return max(values)


def random_position(game, plies: int, rng: random.Random):
    while True:
        state = game()
        for _ in range(plies):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


def test_tic_tac_toe_is_a_draw():
    assert exact_value(TicTacToe()) == 0
    assert set(move_values(TicTacToe()).values()) == {0}  # every first move draws


def test_an_edge_reply_to_the_centre_loses_for_o():
    # The classic trap: X takes the centre, O answers on an edge; X then forces a win.
    state = TicTacToe().play(4).play(1)
    assert exact_value(state) == 1


@pytest.mark.parametrize(
    ("game", "plies", "count"), [(TicTacToe, 3, 30), (ConnectFour, 32, 12), (Othello, 54, 4)]
)
def test_values_agree_with_plain_negamax(game, plies, count):
    rng = random.Random(7)
    for _ in range(count):
        state = random_position(game, plies, rng)
        assert exact_value(state) == plain_negamax(state), state
        values = move_values(state)
        for action in best_actions(state):
            assert values[action] == exact_value(state)


def test_the_perfect_agent_never_loses_tic_tac_toe_and_varies_its_games():
    result = match(TicTacToe, PerfectAgent(seed=1), PerfectAgent(seed=2), games=20, seed=3)
    assert result.wins == result.losses == 0
    agent = PerfectAgent(seed=4)
    assert len({agent.select_action(TicTacToe()) for _ in range(30)}) > 1
