"""MCTS-Solver: the values it proves agree with exact search, and it never plays a proven loss."""

from __future__ import annotations

import pytest
from helpers import positions

from mcts_course.agents.exact import exact_value
from mcts_course.agents.solver import LOSS, MCTSSolverAgent
from mcts_course.games import ConnectFour, TicTacToe


def exact(state) -> float:
    """The game value for the player to move on the solver's scale (1 win, 0.5 draw, 0 loss),
    from the package's exact solver."""
    return (exact_value(state) + 1) / 2


CASES = [(TicTacToe, 1, 3, 30_000), (TicTacToe, 3, 12, 3_000), (ConnectFour, 30, 12, 5_000)]


@pytest.mark.parametrize(("game", "plies", "count", "iterations"), CASES)
def test_the_solver_proves_the_exact_game_value(game, plies, count, iterations):
    proven = 0
    for i, state in enumerate(positions(game, plies, count, seed=plies)):
        agent = MCTSSolverAgent(iterations, seed=i)
        agent.search(state)
        value = agent.root_value()
        assert value is not None, f"not proven in {iterations} iterations:\n{state}"
        assert value == exact(state), f"wrong proof:\n{state}"
        proven += 1
    assert proven == count


def test_the_empty_tic_tac_toe_board_is_a_proven_draw():
    agent = MCTSSolverAgent(100_000, seed=0)  # about 3 s: a draw needs a proof for both sides
    agent.search(TicTacToe())
    assert agent.root_value() == 0.5


@pytest.mark.parametrize(("game", "plies"), [(TicTacToe, 2), (TicTacToe, 4), (ConnectFour, 28)])
def test_the_solver_never_plays_a_proven_loss_when_something_else_exists(game, plies):
    checked = 0
    for i, state in enumerate(positions(game, plies, 15, seed=100 + plies)):
        agent = MCTSSolverAgent(2_000, seed=i)
        action = agent.select_action(state)
        root = agent.last_root
        mover = state.current_player
        values = {}
        for a, child in root.children.items():
            v = agent.proven(child)
            values[a] = None if v is None else (v if child.player == mover else 1 - v)
        if any(v != LOSS for v in values.values()):
            assert values[action] != LOSS, f"played a proven loss:\n{state}"
        # Against exact search: the move played keeps the position's value whenever the root
        # is proven (a win stays a win, a draw a draw).
        if agent.root_value() is not None:
            assert exact(state.play(action)) == 1 - exact(state)
            checked += 1
    assert checked > 0  # the budget proves some positions, so the second check did run


def test_the_solver_takes_the_same_arguments_and_is_reproducible():
    state = ConnectFour.from_moves("4 4 3")
    a = MCTSSolverAgent(300, seed=3, c=1.0, expand_threshold=2)
    b = MCTSSolverAgent(300, seed=3, c=1.0, expand_threshold=2)
    assert a.select_action(state) == b.select_action(state)
    assert a.name.startswith("MCTS-Solver(")


def test_the_command_line_plays_the_new_agents(capsys):
    from mcts_course.cli import main

    spec_a, spec_b = "mcts-solver:iterations=300", "puct:iterations=100,prior=uniform"
    assert main(["match", "tictactoe", spec_a, spec_b, "--games", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "MCTS-Solver(300)" in out and "PUCT(uniform,100)" in out
