"""Self-play examples and a tiny training run (issue 17's learning loop)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mcts_course.games import ConnectFour, TicTacToe
from mcts_course.learn.network import PolicyValueNet, Predictor
from mcts_course.learn.selfplay import NetGuide, SelfPlayPUCT, self_play_game
from mcts_course.learn.train import Config, train


def predictor(game, seed: int = 0) -> Predictor:
    return Predictor(PolicyValueNet.for_game(game, hidden=(16,), seed=seed).to_json())


def test_a_self_play_game_records_every_position_with_its_targets():
    examples = self_play_game(TicTacToe, predictor(TicTacToe), iterations=12, seed=3)
    assert 5 <= len(examples) <= 9
    for example in examples:
        legal = [a for a, m in enumerate(example.mask) if m]
        assert sum(example.policy) == pytest.approx(1.0)
        assert all(p == 0 for a, p in enumerate(example.policy) if a not in legal)
        assert example.value in (-1.0, 0.0, 1.0)
    # The players alternate, so consecutive examples see the result from opposite sides.
    assert all(a.value == -b.value for a, b in zip(examples, examples[1:], strict=False))
    again = self_play_game(TicTacToe, predictor(TicTacToe), iterations=12, seed=3)
    assert [e.policy for e in again] == [e.policy for e in examples]


def test_the_guide_values_positions_for_the_player_to_move():
    guide = NetGuide(predictor(ConnectFour))
    state = ConnectFour().play(3)  # the second player to move
    _, value = guide.predict(state)
    assert guide.evaluate(state, random.Random(0)) == (-value, value)
    won = TicTacToe.from_moves("a1 a2 b1 b2 c1")
    assert NetGuide(predictor(TicTacToe)).evaluate(won, random.Random(0)) == won.returns()


def test_root_noise_keeps_the_prior_a_distribution_and_changes_it():
    guide = NetGuide(predictor(TicTacToe))
    noisy = SelfPlayPUCT(guide, 5, seed=1)
    noisy.search(TicTacToe())
    root = noisy.last_root
    priors = [noisy.priors[child] for child in root.children.values()]
    assert sum(priors) == pytest.approx(1.0)
    plain = guide.prior(TicTacToe())
    assert any(abs(noisy.priors[root.children[a]] - p) > 1e-6 for a, p in plain.items())


def test_a_tiny_training_run_lowers_the_loss_on_its_own_games():
    config = Config(generations=3, games=6, iterations=10, steps=60, batch=32, hidden=(16,), seed=5)
    net, log = train(TicTacToe, config)
    assert [g.generation for g in log] == [1, 2, 3] and log[-1].games == 18
    examples = [
        e
        for s in range(4)
        for e in self_play_game(TicTacToe, Predictor(net.to_json()), 10, seed=100 + s)
    ]
    x = np.array([e.features for e in examples])
    mask = np.array([e.mask for e in examples])
    target = np.array([e.policy for e in examples])
    z = np.array([e.value for e in examples])
    untrained = PolicyValueNet.for_game(TicTacToe, hidden=(16,), seed=5)
    assert net.loss(x, mask, target, z) < untrained.loss(x, mask, target, z)
