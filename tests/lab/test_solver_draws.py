"""MCTS-Solver's final choice where the only safe move is a draw (chapter 12)."""

from __future__ import annotations

from mcts_lab.solver_draws import (
    EXAMPLE,
    VisitsOnlySolver,
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


def test_visits_alone_throw_away_the_proven_draw_and_the_package_keeps_it():
    case = example(200, seed=1)
    assert (case["visits_move"], case["draw"], case["solver_move"]) == ("a3", "b2", "b2")
    assert case["visits_move_loses"] and case["draw_proven"]
    assert case["move_visits"] > case["draw_visits"]


def test_the_visits_only_rule_differs_from_the_package_only_in_the_final_choice():
    state = TicTacToe.from_moves(EXAMPLE)
    ours, theirs = VisitsOnlySolver(200, seed=1), MCTSSolverAgent(200, seed=1)
    ours.select_action(state)
    theirs.select_action(state)
    assert ours.last_root is not None and theirs.last_root is not None
    visits = {a: c.visits for a, c in ours.last_root.children.items()}
    assert visits == {a: c.visits for a, c in theirs.last_root.children.items()}


def test_draw_proven_is_false_for_a_move_without_a_node():
    state = TicTacToe.from_moves(EXAMPLE)
    agent = MCTSSolverAgent(2, seed=0)
    agent.select_action(state)
    root = agent.last_root
    assert root is not None
    missing = [a for a in state.legal_actions() if a not in root.children]
    assert missing and not draw_proven(agent, missing[0])


def test_a_check_reports_the_example_as_a_thrown_away_draw():
    result = check(TicTacToe.from_moves(EXAMPLE), 200, seed=1)
    assert result.visits_loses and result.visits_thrown and not result.solver_loses
