"""Issue 17's interface: ``mcts_course.learn.load(game).predict(state)``, the agent spec
``puct:prior=net`` and ``mcts-course train``."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from mcts_course.agents import make_agent
from mcts_course.cli import main
from mcts_course.games import GAMES, TicTacToe
from mcts_course.learn import available, load
from mcts_course.learn.network import PolicyValueNet, Predictor
from mcts_course.learn.selfplay import self_play_game
from mcts_course.learn.shipped import shipped_text
from mcts_course.learn.train import CONFIGS, Config, config_of, read_log


def positions(game, count: int, seed: int) -> list:
    """Positions of random games, every ply of them, the start and the end included."""
    rng, states = random.Random(seed), []
    while len(states) < count:
        state = game()
        states.append(state)
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
            states.append(state)
    return states[:count]


def test_networks_are_shipped_for_tictactoe_and_connect_four():
    assert {"tictactoe", "connect4"} <= set(available())
    with pytest.raises(ValueError, match="networks exist for: .*connect4.*tictactoe"):
        load("othello")


@pytest.mark.parametrize("name", available())
def test_predict_gives_priors_over_exactly_the_legal_moves_and_a_value(name):
    game = GAMES[name]
    net = load(name)
    assert load(game) is net and load(game()) is net  # by name, class or state; loaded once
    for state in positions(game, 60, seed=1):
        if state.is_terminal():
            continue
        priors, value = net.predict(state)
        assert sorted(priors) == state.legal_actions()
        assert all(p >= 0 for p in priors.values())
        assert sum(priors.values()) == pytest.approx(1.0, abs=1e-12)
        assert -1.0 <= value <= 1.0


@pytest.mark.parametrize("name", available())
def test_numpy_and_plain_python_give_the_same_numbers(name):
    fast, plain = load(name, backend="numpy"), load(name, backend="python")
    assert (fast.backend, plain.backend) == ("numpy", "python")
    for state in positions(GAMES[name], 30, seed=2):
        if state.is_terminal():
            continue
        (p1, v1), (p2, v2) = fast.predict(state), plain.predict(state)
        assert list(p1) == list(p2)
        assert [p1[a] for a in p1] == pytest.approx([p2[a] for a in p2], rel=1e-12, abs=1e-15)
        assert v1 == pytest.approx(v2, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", available())
def test_the_shipped_file_records_the_recipe_train_uses(name):
    text = shipped_text(name)
    data = json.loads(text)
    assert data["game"] == name
    assert config_of(text) == CONFIGS[name]
    assert load(name).parameters == PolicyValueNet.from_json(text).parameter_count()


def test_puct_with_the_network_plays_legal_seeded_moves_without_playouts():
    for name in available():
        game = GAMES[name]
        moves = []
        for _ in range(2):
            agent, state, played = make_agent("puct:prior=net,iterations=30,seed=4"), game(), []
            while not state.is_terminal() and len(played) < 6:
                action = agent.select_action(state)
                assert action in state.legal_actions()
                played.append(action)
                state = state.play(action)
            moves.append(played)
        assert moves[0] == moves[1]
        assert agent.name.startswith("PUCT(net,")
        # The leaves are valued by the network: the root's children carry its values, which a
        # random playout (results in {0, 0.5, 1}) would not give.
        root = agent.last_root
        assert any(
            child.wins not in (0, 0.5, 1) and child.visits == 1 for child in root.children.values()
        )


def test_the_net_prior_refuses_playouts_and_games_without_a_network():
    with pytest.raises(ValueError, match="no evaluator or playout_depth"):
        make_agent("puct:prior=net,playout_depth=5")
    with pytest.raises(ValueError, match="unknown prior"):
        make_agent("puct:prior=nett")
    agent = make_agent("puct:prior=net,iterations=5")
    with pytest.raises(ValueError, match="networks exist for"):
        agent.select_action(GAMES["othello"]())


TINY = Config(generations=3, games=6, iterations=10, steps=60, batch=32, hidden=(16,), seed=5)


def test_the_train_command_writes_the_network_and_its_log(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(CONFIGS, "tictactoe", TINY)
    out = tmp_path / "ttt.json"
    assert main(["train", "tictactoe", "--out", str(out), "--jobs", "1", "--no-progress"]) == 0
    assert "wrote" in capsys.readouterr().out
    text = out.read_text()
    assert config_of(text) == TINY
    log = read_log(out.with_suffix(".csv"))
    assert [row["generation"] for row in log] == [1, 2, 3] and log[-1]["games"] == 18
    # The trained network fits the games it now plays better than the untrained one did.
    examples = [
        e for s in range(4) for e in self_play_game(TicTacToe, Predictor(text), 10, seed=100 + s)
    ]
    x, mask = np.array([e.features for e in examples]), np.array([e.mask for e in examples])
    target = np.array([e.policy for e in examples])
    z = np.array([e.value for e in examples])
    untrained = PolicyValueNet.for_game(TicTacToe, hidden=(16,), seed=5)
    trained = PolicyValueNet.from_json(text)
    assert trained.loss(x, mask, target, z) < untrained.loss(x, mask, target, z)
    # Seeded: two processes instead of one remake the file byte for byte.
    again = tmp_path / "again.json"
    assert main(["train", "tictactoe", "--out", str(again), "--jobs", "2", "--no-progress"]) == 0
    assert again.read_text() == text
    # --seed and --games change the run: another seed, another network; fewer games, one
    # generation.
    other = tmp_path / "other.json"
    assert (
        main(
            [
                "train",
                "tictactoe",
                "--out",
                str(other),
                "--seed",
                "6",
                "--games",
                "4",
                "--jobs",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    assert config_of(other.read_text()) == dataclasses.replace(TINY, seed=6, generations=1, games=4)
    assert other.read_text() != text


def test_the_train_command_names_its_errors(tmp_path, capsys):
    assert main(["train", "othello", "--out", str(tmp_path / "o.json")]) == 2
    assert "choose one of: tictactoe, connect4" in capsys.readouterr().err
    assert main(["train", "tictactoe", "--out", str(tmp_path / "o.txt")]) == 2
    assert ".json" in capsys.readouterr().err
    assert main(["train", "tictactoe", "--out", str(tmp_path / "no" / "o.json")]) == 2
    assert "no folder" in capsys.readouterr().err
