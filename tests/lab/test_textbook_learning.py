"""The textbook functions of the enhancements and learning chapters agree with the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest
from mcts_lab.textbook import puct as tb_puct
from mcts_lab.textbook import rave as tb_rave

from mcts_course.agents.puct import PUCTAgent, uniform_prior
from mcts_course.agents.rave import RAVEAgent, recorded_playout
from mcts_course.games import ConnectFour, TicTacToe
from mcts_course.learn.network import NetGuide, PolicyValueNet, encode, legal_mask
from mcts_course.learn.selfplay import SelfPlayPUCT, self_play_game


def _searched_rave(state, iterations=300, seed=3, amaf_unvisited=False):
    agent = RAVEAgent(iterations, rave=30, seed=seed, amaf_unvisited=amaf_unvisited)
    return agent, agent.search(state)


@pytest.mark.parametrize("amaf_unvisited", [False, True])
@pytest.mark.parametrize("state", [ConnectFour.from_moves("4 4 3"), TicTacToe.from_moves("b2")])
def test_rave_score_is_the_engines_on_every_child(state, amaf_unvisited):
    agent, root = _searched_rave(state, amaf_unvisited=amaf_unvisited)
    table = {node: agent.amaf(node) for node in agent._amaf}
    assert table, "the search collected AMAF statistics"
    compared = unvisited = 0
    for node in [root, *root.children.values()]:
        for child in node.children.values():
            if node.visits:
                assert tb_rave.rave_score(node, child, table, 30, agent.c, agent.fpu) == (
                    pytest.approx(agent.score(node, child))
                )
                compared += 1
                unvisited += child.visits == 0
    assert compared > len(root.children)
    assert (unvisited > 0) == amaf_unvisited  # only MoGo's mode keeps children never visited


def test_rave_score_without_k_is_uct():
    agent, root = _searched_rave(ConnectFour.from_moves("4"), iterations=100)
    child = max(root.children.values(), key=lambda n: n.visits)
    table = {node: agent.amaf(node) for node in agent._amaf}
    uct = child.mean + agent.c * (np.log(root.visits) / child.visits) ** 0.5
    assert tb_rave.rave_score(root, child, table, 0, agent.c) == pytest.approx(uct)
    assert tb_rave.rave_score(root, child, table, 30, agent.c) != pytest.approx(uct)


@pytest.mark.parametrize("amaf_unvisited", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_amaf_backup_updates_what_the_engine_updates(seed, amaf_unvisited):
    agent, root = _searched_rave(
        ConnectFour.from_moves("4 4"), iterations=200, seed=seed, amaf_unvisited=amaf_unvisited
    )
    path = [root]
    while path[-1].children:  # down the most visited line
        path.append(max(path[-1].children.values(), key=lambda n: (n.visits, -n.action)))
    returns, moves = recorded_playout(path[-1].state, random.Random(seed))
    table = {node: agent.amaf(node) for node in agent._amaf}
    tb_rave.amaf_backup(path, moves, returns, table)
    agent.backpropagate(path, returns, moves)
    engine = {node: agent.amaf(node) for node in agent._amaf}
    assert table.keys() == engine.keys()
    for node, (wins, count) in engine.items():
        assert table[node][1] == count and table[node][0] == pytest.approx(wins)


def test_puct_select_is_the_engines_choice():
    state = TicTacToe.from_moves("b2 a1")
    agent = PUCTAgent(40, prior=uniform_prior, c=1.5, seed=4)
    root = agent.search(state)
    children = {a: (agent.priors[n], n.visits, n.wins) for a, n in root.children.items()}
    chosen = tb_puct.puct_select(children, root.visits, 1.5, agent.fpu)
    assert chosen == agent.select_child(root).action
    prior, visits, wins = children[chosen]
    assert tb_puct.puct_score(wins / max(visits, 1), prior, visits, root.visits, 1.5) == (
        pytest.approx(agent.score(root, root.children[chosen]))
    )


def test_root_noise_is_the_engines():
    net = PolicyValueNet.for_game(TicTacToe, hidden=(8,), seed=1)
    guide = NetGuide(_Predictor(net))
    state = TicTacToe.from_moves("b2")
    agent = SelfPlayPUCT(guide, 1, seed=11)
    root = agent.search(state)  # one iteration: the root's children are made, with noise
    noisy = {a: agent.priors[n] for a, n in root.children.items()}
    rng = random.Random(11)
    ours = tb_puct.root_noise(guide.prior(state), agent.alpha, agent.fraction, rng)
    assert ours == pytest.approx(noisy)
    assert ours != pytest.approx(guide.prior(state))
    assert sum(ours.values()) == pytest.approx(1.0)


class _Predictor:
    """A training network as a predictor of (prior, value) for one state."""

    def __init__(self, net):
        self.net = net

    def predict(self, state):
        policy, value, _ = self.net.forward(
            np.array([encode(state)]), np.array([legal_mask(state)])
        )
        legal = state.legal_actions()
        return {a: float(policy[0, a]) for a in legal}, float(value[0])


@pytest.mark.parametrize("moves", ["", "b2 a1", "a1 b2 c3"])
def test_predict_is_the_networks_forward_pass(moves):
    net = PolicyValueNet.for_game(TicTacToe, hidden=(16, 16), seed=2)
    state = TicTacToe.from_moves(moves)
    prior, value = tb_puct.predict(net.params, encode(state), state.legal_actions())
    engine_prior, engine_value = _Predictor(net).predict(state)
    assert value == pytest.approx(engine_value)
    assert prior == pytest.approx(engine_prior)


@pytest.mark.parametrize("seed", [0, 5])
def test_self_play_game_is_the_engines(seed):
    net = PolicyValueNet.for_game(TicTacToe, hidden=(8,), seed=3)
    guide = NetGuide(_Predictor(net))
    engine = self_play_game(TicTacToe, guide, iterations=12, seed=seed, sample_moves=3)
    rng = random.Random(seed)
    agent = SelfPlayPUCT(guide, 12, seed=rng.randrange(2**31))

    def search(state):
        root = agent.search(state)
        return {a: n.visits for a, n in root.children.items()}

    ours = tb_puct.self_play_game(TicTacToe, search, rng, sample_moves=3)
    assert len(ours) == len(engine) > 4
    for (state, policy, z), example in zip(ours, engine, strict=True):
        assert encode(state) == example.features
        assert policy == pytest.approx(example.policy)
        assert z == example.value
