"""The learning chapter's pictures and worked PUCT step (mcts_lab.alphazero)."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab import alphazero as az
from mcts_lab.learning import Truth

from mcts_course.games import TicTacToe
from mcts_course.learn.network import PolicyValueNet, Predictor


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    return Predictor(PolicyValueNet.for_game(TicTacToe, hidden=(16,), seed=4).to_json())


def _gids(fig) -> set[str]:
    return {a.get_gid() for ax in fig.axes for a in ax.get_children() if a.get_gid()}


def test_the_loop_has_four_boxes_joined_in_a_cycle():
    gids = _gids(az.loop_figure())
    assert {"self-play", "buffer", "training", "network"} <= gids
    assert {f"arrow-{label}" for label in az.LOOP_ARROWS} <= gids


@pytest.mark.parametrize(("moves", "iterations"), [("b2 a1 c1", 20), ("", 7), ("a1 b2", 13)])
def test_the_step_worked_by_hand_is_the_engines_selection(predictor, moves, iterations):
    state = TicTacToe.from_moves(moves)
    step = az.puct_step(predictor, state, iterations)
    assert step.chosen == step.engine_choice
    assert [r[0] for r in step.rows] == [state.action_to_string(a) for a in state.legal_actions()]
    assert sum(r[1] for r in step.rows) == pytest.approx(1.0)
    assert sum(r[2] for r in step.rows) == iterations  # the root has its children at once
    for _move, p, n, q, u, total in step.rows:
        assert u == pytest.approx(step.c * p * np.sqrt(iterations) / (1 + n))
        assert total == pytest.approx(q + u)
        assert n > 0 or q == 0.5  # an unvisited move counts a draw (first play urgency)
    assert step.row(step.chosen)[5] == max(r[5] for r in step.rows)


def test_prior_and_visits_are_distributions_pictured_on_the_board(predictor):
    state = TicTacToe.from_moves("b1 c1 b3")  # the chapter's position: only b2 is optimal
    prior, visits = az.prior_and_visits(predictor, state, 30)
    assert set(prior) == set(visits) == set(state.legal_actions())
    assert sum(prior.values()) == pytest.approx(1.0) == sum(visits.values())
    fig = az.prior_and_visits_figure(state, [(prior, "prior"), (visits, "visits")])
    assert len(fig.axes) == 2
    assert [ax.get_title() for ax in fig.axes] == ["prior", "visits"]
    for ax in fig.axes:
        assert any(a.get_gid() == "overlay" for a in ax.get_children())


def test_value_check_against_the_constant_predictor():
    truth = Truth(TicTacToe)
    net = PolicyValueNet.for_game(TicTacToe, hidden=(8,), seed=1)
    net.params["Wv"][:] = 0.0
    net.params["bv"][:] = 0.0  # a value head that always answers 0, a draw
    check = az.value_check(truth, net)
    exact = truth.values.astype(float)
    assert check.squared == pytest.approx(float((exact**2).mean()))
    assert check.constant_squared == pytest.approx(float(exact.var()))
    assert check.constant_squared < check.squared  # the mean beats 0: wins outnumber losses
    assert check.right == pytest.approx(float((truth.values == 0).mean()))
    assert check.constant_right == max(float((truth.values == v).mean()) for v in (1, 0, -1))


def _knows_nothing(state):
    moves = state.legal_actions()
    return {a: 1 / len(moves) for a in moves}, 0.0


def test_alphazero_order_spends_its_first_simulation_on_the_root():
    # One simulation values the root and gives it children: none of them is visited yet.
    assert set(az.alphazero_order_visits(_knows_nothing, TicTacToe(), 1, c=1.0).values()) == {0}
    # With equal priors and a value of 0 (a draw, like fpu), the next nine go one to each move.
    visits = az.alphazero_order_visits(_knows_nothing, TicTacToe(), 10, c=1.0)
    assert list(visits.values()) == [1] * 9


def test_alphazero_order_and_the_package_differ_by_the_roots_own_visit(predictor):
    positions = [TicTacToe(), TicTacToe.from_moves("a1 b1 a2 b2")]
    check = az.order_check(predictor, positions, [10, 40], c=1.5)
    assert check.searches == 4
    assert (check.package_sum, check.alphazero_sum) == (40, 39)
    assert check.same >= 3 and check.moved <= 1
