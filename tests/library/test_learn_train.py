"""Training options for the shipped recipes: mirror images and the falling learning rate."""

from __future__ import annotations

import dataclasses

import pytest

from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.learn.network import encode, legal_mask
from mcts_course.learn.selfplay import Example
from mcts_course.learn.train import Config, mirror_actions, mirrored, train


@pytest.mark.parametrize("game, moves", [(ConnectFour, "1 2 1 7 7 6 3"), (TicTacToe, "a1 c2 b3")])
def test_a_mirrored_example_is_the_mirror_positions(game, moves):
    flip = mirror_actions(game)
    plain, image = game(), game()
    for move in moves.split():
        action = plain.parse_action(move)
        plain, image = plain.play(action), image.play(flip[action])
    policy = [float(a + 1) for a in range(game.NUM_ACTIONS)]
    example = Example(encode(plain), legal_mask(plain), policy, 1.0)
    seen = mirrored(example, game, flip)
    assert seen.features == encode(image) and seen.mask == legal_mask(image)
    assert all(seen.policy[flip[a]] == policy[a] for a in range(game.NUM_ACTIONS))
    assert mirrored(seen, game, flip) == example


def test_othello_has_no_mirror_of_its_actions():
    with pytest.raises(ValueError, match="no left-right mirror"):
        mirror_actions(Othello)


def test_mirror_doubles_the_examples_and_the_schedule_changes_the_network():
    tiny = Config(generations=2, games=3, iterations=8, steps=10, batch=16, hidden=(8,), seed=2)
    _, plain = train(TicTacToe, tiny)
    _, doubled = train(TicTacToe, dataclasses.replace(tiny, mirror=True))
    assert doubled[0].examples == 2 * plain[0].examples  # the same games, and their images
    fixed, _ = train(TicTacToe, tiny)
    falling, _ = train(TicTacToe, dataclasses.replace(tiny, final_learning_rate=0.0))
    assert (fixed.params["W1"] != falling.params["W1"]).any()
