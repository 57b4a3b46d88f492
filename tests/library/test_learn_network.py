"""The policy-value network: its backward pass against finite differences, its plain-Python
forward pass against numpy's, and gradient descent lowering its loss."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.learn.network import PolicyValueNet, Predictor, encode, legal_mask


def random_states(game, count: int, seed: int) -> list:
    rng, states = random.Random(seed), []
    while len(states) < count:
        state = game()
        for _ in range(rng.randrange(0, 8)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            states.append(state)
    return states


def batch(game, count: int, seed: int):
    """Inputs, masks and made-up targets: a random distribution over the legal moves and a
    random outcome."""
    rng = np.random.default_rng(seed)
    states = random_states(game, count, seed)
    x = np.array([encode(s) for s in states])
    mask = np.array([legal_mask(s) for s in states])
    target = rng.random(mask.shape) * mask
    target /= target.sum(axis=1, keepdims=True)
    z = rng.choice([-1.0, 0.0, 1.0], size=count)
    return states, x, mask, target, z


def test_encode_sees_the_board_from_the_movers_side():
    state = TicTacToe.from_moves("a1 b2")  # X on a1, O on b2, X to move
    features = encode(state)
    assert len(features) == 18
    assert features[0] == 1.0 and features[9 + 4] == 1.0 and sum(features) == 2.0
    after = state.play(state.parse_action("c3"))  # now O moves: O's discs come first
    assert encode(after)[4] == 1.0 and encode(after)[9 + 0] == 1.0


@pytest.mark.parametrize("hidden", [(8,), (6, 5)])
def test_the_backward_pass_matches_finite_differences(hidden):
    _, x, mask, target, z = batch(TicTacToe, 6, seed=1)
    net = PolicyValueNet(18, 9, hidden, seed=2)
    _, grads = net.gradients(x, mask, target, z)
    rng = np.random.default_rng(3)
    eps = 1e-6
    for name, param in net.params.items():
        for _ in range(4):
            index = tuple(rng.integers(0, n) for n in param.shape)
            old = param[index]
            param[index] = old + eps
            up = net.loss(x, mask, target, z)
            param[index] = old - eps
            down = net.loss(x, mask, target, z)
            param[index] = old
            numeric = (up - down) / (2 * eps)
            assert grads[name][index] == pytest.approx(numeric, rel=1e-4, abs=1e-7), name


def test_illegal_actions_get_no_probability():
    states, x, mask, target, z = batch(ConnectFour, 5, seed=4)
    policy, value, _ = PolicyValueNet.for_game(ConnectFour, seed=5).forward(x, mask)
    assert np.allclose(policy.sum(axis=1), 1.0)
    assert np.all(policy[mask == 0] == 0.0)
    assert np.all(np.abs(value) <= 1.0)


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_the_plain_python_forward_pass_equals_numpys(game):
    states, x, mask, _, _ = batch(game, 4, seed=6)
    net = PolicyValueNet.for_game(game, hidden=(16, 8), seed=7)
    policy, value, _ = net.forward(x, mask)
    predictor = Predictor(net.to_json())
    for k, state in enumerate(states):
        priors, v = predictor.predict(state)
        assert sorted(priors) == state.legal_actions()
        assert [priors[a] for a in sorted(priors)] == pytest.approx(
            [policy[k, a] for a in state.legal_actions()], rel=1e-9
        )
        assert v == pytest.approx(value[k], rel=1e-9)


def test_gradient_descent_lowers_the_loss_and_json_keeps_the_weights():
    _, x, mask, target, z = batch(TicTacToe, 32, seed=8)
    net = PolicyValueNet.for_game(TicTacToe, hidden=(32,), seed=9)
    first = net.loss(x, mask, target, z)
    for _ in range(200):
        _, grads = net.gradients(x, mask, target, z)
        net.step(grads, 0.1)
    assert net.loss(x, mask, target, z) < 0.8 * first
    again = PolicyValueNet.from_json(net.to_json())
    assert again.loss(x, mask, target, z) == pytest.approx(net.loss(x, mask, target, z))
