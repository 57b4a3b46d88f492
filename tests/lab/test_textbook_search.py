"""The textbook search functions (mcts_lab.textbook.search) agree with the package's engine.

The engine orders moves, keeps tables and counts nodes; the textbook functions do none of it.
Both must give the same values and, where a move is defined, the same move (ties: the smallest),
on tic-tac-toe searched to the end and on Othello at small depths.
"""

from __future__ import annotations

import random

import pytest
from mcts_lab.textbook import search as tb

from mcts_course.agents import AlphaBetaAgent, MinimaxAgent
from mcts_course.agents import minimax as engine
from mcts_course.agents.evaluation import cell_score
from mcts_course.agents.exact import exact_value
from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.games.base import random_position
from mcts_course.trees import RUSSELL_NORVIG, ExplicitTree, search_trace


def positions(game, count, plies, seed):
    rng, found = random.Random(seed), []
    while len(found) < count:
        state = random_position(game, rng.randint(*plies), rng)
        if state is not None and state not in found:
            found.append(state)
    return found


def result(state, player):
    return float(state.returns()[player]) if state.is_terminal() else 0.0


TTT = positions(TicTacToe, 25, (2, 6), seed=11)
OTHELLO = positions(Othello, 12, (4, 40), seed=12)


@pytest.mark.parametrize("state", TTT)
def test_tictactoe_values_to_the_end_equal_the_exact_solver(state):
    p = state.current_player
    assert tb.negamax(state) == exact_value(state)
    assert tb.value(state, 9, result, p) == exact_value(state)
    assert tb.ab_value(state, 9, result, p) == exact_value(state)


@pytest.mark.parametrize("state", TTT[:10])
def test_tictactoe_moves_equal_the_engine_agents(state):
    assert tb.minimax_search(state, 9, cell_score) == MinimaxAgent(9).select_action(state)
    assert tb.alphabeta_search(state, 9, cell_score) == AlphaBetaAgent(9).select_action(state)


@pytest.mark.parametrize("state", OTHELLO)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_othello_values_equal_the_engine(state, depth):
    p = state.current_player
    want = engine.minimax_value(state, depth, cell_score, p)
    assert tb.value(state, depth, cell_score, p) == want
    assert tb.ab_value(state, depth, cell_score, p) == want
    assert engine.alphabeta_value(state, depth, cell_score, p) == want


@pytest.mark.parametrize("state", OTHELLO)
def test_othello_moves_equal_the_engine_agents(state):
    for depth in (1, 2, 3):
        want = MinimaxAgent(depth).select_action(state)
        assert tb.minimax_search(state, depth, cell_score) == want
        assert tb.alphabeta_search(state, depth, cell_score) == want
        assert AlphaBetaAgent(depth).select_action(state) == want


def test_negamax_handles_othello_passes_like_the_exact_solver():
    # late positions, small enough to solve, some with a forced pass on the way
    late = positions(Othello, 40, (50, 54), seed=3)
    with_pass = [s for s in late if _meets_a_pass(s)]
    assert with_pass, "the sample must contain a line with a pass"
    for state in with_pass[:4] + late[:4]:
        assert tb.negamax(state) == exact_value(state)


def _meets_a_pass(state, plies=3):
    if state.is_terminal() or plies == 0:
        return False
    if state.legal_actions() == [state.PASS]:
        return True
    return any(_meets_a_pass(state.play(a), plies - 1) for a in state.legal_actions())


def test_negamax_on_connect_four_late_positions():
    for state in positions(ConnectFour, 5, (30, 34), seed=4):
        assert tb.negamax(state) == exact_value(state)


def test_alphabeta_prunes_what_the_engine_prunes_on_the_textbook_tree():
    tree = ExplicitTree.from_nested(RUSSELL_NORVIG)
    seen: list[tuple[int, ...]] = []

    def payoff(state, player):
        seen.append(state.path)
        return state.value() if player == 0 else -state.value()

    assert tb.ab_value(tree, 9, payoff, 0) == 3
    trace = search_trace(ExplicitTree.from_nested(RUSSELL_NORVIG))
    leaves = {p for p in trace.visited if len(p) == 2}
    assert set(seen) == leaves  # the same leaves evaluated, in the same (given) order
    assert len(seen) == 7


def test_iterative_deepening_plays_the_deepest_finished_search():
    state = OTHELLO[0]
    move, depth = tb.iterative_deepening(state, 60.0, cell_score, max_depth=3)
    assert depth == 3
    assert move == AlphaBetaAgent(3).select_action(state)
    move, depth = tb.iterative_deepening(state, 0.0, cell_score)  # no time: depth 1 only
    assert depth == 1
    assert move == MinimaxAgent(1).select_action(state)


def test_iterative_deepening_stops_when_no_line_met_the_horizon():
    for state in TTT:
        empty = len(state.legal_actions())
        move, depth = tb.iterative_deepening(state, 60.0, result)
        assert depth <= empty  # not 64: a search that saw only finished games ends it (line 5)
        best = max(-exact_value(state.play(a)) for a in state.legal_actions())
        assert -exact_value(state.play(move)) == best
        assert move == AlphaBetaAgent(time_limit=60.0, evaluate=result).select_action(state)


def test_iterative_deepening_abandons_a_search_the_deadline_interrupts(monkeypatch):
    state, ticks, leaves = OTHELLO[0], [0], []

    def clock():  # a fake clock: one second per reading
        ticks[0] += 1
        return float(ticks[0])

    def counted(s, p):
        leaves.append(s)
        return cell_score(s, p)

    monkeypatch.setattr(tb.time, "perf_counter", clock)
    move, depth = tb.iterative_deepening(state, 3.0, counted)
    first = len(state.legal_actions())  # depth 1: one leaf per move, untimed
    assert (move, depth) == (tb.alphabeta_search(state, 1, cell_score), 1)
    assert len(leaves) == first + 3  # the depth-2 search stopped at the deadline, mid-way
    leaves.clear()
    tb.alphabeta_search(state, 2, counted)
    assert len(leaves) > 3  # a whole depth-2 search evaluates more
