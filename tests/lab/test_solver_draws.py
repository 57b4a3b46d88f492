"""MCTS-Solver's final choice where the only safe move is a draw (chapter 12)."""

from __future__ import annotations

from mcts_lab.solver_draws import (
    DrawKeepingSolver,
    check,
    draw_proven,
    example,
    only_draw_positions,
)

from mcts_course.agents.exact import move_values
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.games import TicTacToe


def test_every_position_has_one_drawing_move_and_only_losing_others():
    positions = only_draw_positions()
    assert positions and len(set(positions)) == len(positions)
    for state in positions[::25]:
        values = sorted(move_values(state).values())
        assert values[-1] == 0 and all(v == -1 for v in values[:-1]) and len(values) > 1


def test_the_solver_throws_away_its_proven_draw_in_the_example():
    played, drawing, proven, played_visits, drawing_visits = example()
    assert (played, drawing) == ("a3", "b2") and proven and played_visits > drawing_visits
    state = TicTacToe.from_moves("a1 c2 b3")
    assert move_values(state)[state.parse_action(played)] == -1


def test_the_draw_keeping_rule_plays_the_proven_draw():
    state = TicTacToe.from_moves("a1 c2 b3")
    assert state.action_to_string(DrawKeepingSolver(200, seed=1).select_action(state)) == "b2"


def test_draw_proven_is_false_for_a_move_without_a_node():
    state = TicTacToe.from_moves("a1 c2 b3")
    agent = MCTSSolverAgent(2, seed=0)
    agent.select_action(state)
    root = agent.last_root
    assert root is not None
    missing = [a for a in state.legal_actions() if a not in root.children]
    assert missing and not draw_proven(agent, missing[0])


def test_a_check_reports_the_example_as_a_thrown_away_draw():
    result = check(TicTacToe.from_moves("a1 c2 b3"), 200, seed=1)
    assert result.solver_loses and result.draw_proven
