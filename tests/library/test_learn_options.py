"""Training options for tic-tac-toe: the 8 board symmetries, the self-play temperature, the
value's weight in the loss, and seeded reproducibility (issue 17)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from mcts_course.agents.exact import exact_value, move_values
from mcts_course.games import ConnectFour, TicTacToe
from mcts_course.learn.network import NetGuide, PolicyValueNet, Predictor, encode, legal_mask
from mcts_course.learn.selfplay import self_play_game
from mcts_course.learn.train import Config, _symmetry_indices, square_symmetries, train


def random_position(seed: int, plies: int) -> list[int]:
    rng, state, moves = random.Random(seed), TicTacToe(), []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        moves.append(action)
        state = state.play(action)
    return moves


def test_the_square_has_eight_distinct_symmetries():
    perms = square_symmetries(3)
    assert len({tuple(p) for p in perms}) == 8
    assert list(range(9)) in perms and all(sorted(p) == list(range(9)) for p in perms)
    assert [6, 3, 0, 7, 4, 1, 8, 5, 2] in perms  # a quarter turn: the new top row was the left
    # A group: each symmetry's inverse and every composition are symmetries too.
    for p in perms:
        for q in perms:
            assert [p[q[i]] for i in range(9)] in perms


@pytest.mark.parametrize("seed", range(6))
def test_a_symmetry_maps_a_position_to_one_with_the_same_value(seed):
    inputs, actions = _symmetry_indices(TicTacToe)
    moves = random_position(seed, plies=seed % 6 + 1)
    for k, perm in enumerate(square_symmetries(3)):
        # perm[i] is the original cell shown at cell i, so the original cell j goes to inverse[j]
        inverse = {cell: i for i, cell in enumerate(perm)}
        plain, image = TicTacToe(), TicTacToe()
        for action in moves:
            plain, image = plain.play(action), image.play(inverse[action])
        assert list(np.array(encode(plain))[inputs[k]]) == encode(image)
        assert list(np.array(legal_mask(plain))[actions[k]]) == legal_mask(image)
        if not plain.is_terminal():
            assert exact_value(plain) == exact_value(image)
            values = move_values(plain)
            assert move_values(image) == {inverse[a]: v for a, v in values.items()}


def test_symmetries_are_refused_for_a_board_that_is_not_a_square_of_cells():
    with pytest.raises(ValueError, match="square board"):
        _symmetry_indices(ConnectFour)


def test_a_low_temperature_plays_a_most_visited_move():
    predictor = Predictor(PolicyValueNet.for_game(TicTacToe, hidden=(16,), seed=1).to_json())
    guide = NetGuide(predictor)
    for seed in range(3):
        examples = self_play_game(TicTacToe, guide, 30, seed=seed, sample_moves=9, temperature=0.02)
        state = TicTacToe()
        for example, after in zip(examples, examples[1:], strict=False):
            played = [a for a in state.legal_actions() if encode(state.play(a)) == after.features]
            assert len(played) == 1 and example.policy[played[0]] == max(example.policy)
            state = state.play(played[0])


def test_the_value_weight_scales_the_value_gradient_as_finite_differences_say():
    rng = np.random.default_rng(0)
    states = [TicTacToe().play(a) for a in range(5)]
    x = np.array([encode(s) for s in states])
    mask = np.array([legal_mask(s) for s in states])
    target = rng.random(mask.shape) * mask
    target /= target.sum(axis=1, keepdims=True)
    z = np.array([1.0, 0.0, -1.0, 0.0, 1.0])
    net = PolicyValueNet(18, 9, (6, 5), seed=3)
    _, grads = net.gradients(x, mask, target, z, value_weight=3.0)
    eps = 1e-6
    for name in ("W1", "Wv", "bv", "Wp"):
        param = net.params[name]
        index = tuple(0 for _ in param.shape)
        old = param[index]
        param[index] = old + eps
        up = net.loss(x, mask, target, z, value_weight=3.0)
        param[index] = old - eps
        down = net.loss(x, mask, target, z, value_weight=3.0)
        param[index] = old
        assert grads[name][index] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)
    assert net.loss(x, mask, target, z, 3.0) > net.loss(x, mask, target, z, 1.0)


def test_training_is_seeded_and_does_not_depend_on_the_number_of_workers():
    tiny = Config(
        generations=2,
        games=4,
        iterations=8,
        steps=10,
        batch=16,
        hidden=(8,),
        seed=4,
        symmetries=True,
        sample_moves=9,
        temperature=0.7,
    )
    first, log = train(TicTacToe, tiny)
    again, _ = train(TicTacToe, tiny, n_jobs=2)
    assert all(np.array_equal(first.params[k], again.params[k]) for k in first.params)
    other, _ = train(TicTacToe, dataclasses.replace(tiny, seed=5))
    assert not np.array_equal(first.params["W1"], other.params["W1"])
    plain, _ = train(TicTacToe, dataclasses.replace(tiny, symmetries=False))
    assert not np.array_equal(first.params["W1"], plain.params["W1"])
    assert log[-1].games == 8
