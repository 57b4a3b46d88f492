"""Flat Monte Carlo: the bandit rules, the budget, the playout cut-off, the moves it finds."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from mcts_course.agents import MonteCarloAgent, epsilon_greedy, softmax, ucb1
from mcts_course.agents.rollout import RandomRollout, playout, reward
from mcts_course.games import ConnectFour, Othello, TicTacToe

POLICIES = ["uniform", "ucb1", "egreedy", "softmax"]


def test_ucb1_explores_the_less_tried_arm_and_exploits_the_better_one():
    rng = random.Random(0)
    assert ucb1([5.0, 1.0], [10, 2], rng) == 1  # equal means: the rarely tried arm
    assert ucb1([8.0, 2.0], [10, 10], rng) == 0  # equal counts: the better mean
    assert ucb1([9.0, 0.5], [10, 1], rng, c=0.0) == 0  # c = 0: pure greed


def test_epsilon_greedy():
    rng = random.Random(1)
    assert all(epsilon_greedy([1.0, 3.0, 2.0], [4, 4, 4], rng, epsilon=0.0) == 1 for _ in range(50))
    counts = Counter(epsilon_greedy([1.0, 3.0, 2.0], [4, 4, 4], rng, 1.0) for _ in range(3000))
    assert all(800 < counts[arm] < 1200 for arm in range(3))  # epsilon 1: uniform


def test_softmax_temperature():
    rng = random.Random(2)
    cold = Counter(softmax([1.0, 3.0], [4, 4], rng, temperature=0.01) for _ in range(500))
    assert cold[1] == 500
    hot = Counter(softmax([1.0, 3.0], [4, 4], rng, temperature=100.0) for _ in range(2000))
    assert 900 < hot[0] < 1100
    # temperature 0.5, means 0.25 and 0.75: P(arm 1) = 1 / (1 + e^-1) = 0.731
    warm = Counter(softmax([1.0, 3.0], [4, 4], rng, temperature=0.5) for _ in range(4000))
    assert warm[1] / 4000 == pytest.approx(0.731, abs=0.03)


def test_rewards_and_cutoff_scoring():
    assert [reward(r, 0) for r in [(1, -1), (0, 0), (-1, 1)]] == [1.0, 0.5, 0.0]
    assert reward((1, -1), 1) == 0.0
    othello = Othello.from_moves("d3")  # Black 4 discs, White 1
    assert othello.cutoff_returns() == (1, -1)
    assert playout(othello, random.Random(0), max_plies=0) == (1, -1)
    assert TicTacToe.from_moves("b2").cutoff_returns() == (0, 0)  # unfinished: a draw
    assert TicTacToe.from_moves("a1 a2 b1 b2 c1").cutoff_returns() == (1, -1)  # finished


def test_playout_depth_counts_plies():
    rng = random.Random(3)
    # Connect Four needs at least 7 plies for a win: a 6-ply playout always ends in a "draw".
    assert all(playout(ConnectFour(), rng, max_plies=6) == (0, 0) for _ in range(50))
    results = {playout(ConnectFour(), rng, max_plies=42) for _ in range(200)}
    assert (1, -1) in results and (-1, 1) in results
    assert RandomRollout(None).evaluate(TicTacToe.from_moves("a1 a2 b1 b2 c1"), rng) == (1, -1)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    "game, moves, answer",
    [(TicTacToe, "a1 a2 b1 b2", "c1"), (ConnectFour, "1 2 1 2 1 2", "1")],
)
def test_takes_an_immediate_win(policy, game, moves, answer):
    state = game.from_moves(moves)
    for seed in range(3):
        agent = MonteCarloAgent(playouts=30, policy=policy, seed=seed)
        assert state.action_to_string(agent.select_action(state)) == answer


@pytest.mark.parametrize("policy", POLICIES)
def test_budget_is_playouts_per_legal_move(policy):
    agent = MonteCarloAgent(playouts=10, policy=policy, seed=0)
    state = Othello()
    agent.select_action(state)
    visits = [row["visits"] for row in agent.last_stats]
    assert sum(visits) == 10 * len(state.legal_actions())
    assert min(visits) >= 1
    if policy == "uniform":
        assert visits == [10] * 4


def test_ucb1_spends_the_budget_on_the_winning_move():
    state = TicTacToe.from_moves("a1 a2 b1 b2")
    agent = MonteCarloAgent(playouts=50, policy="ucb1", seed=0)
    agent.select_action(state)
    stats = {row["move"]: row for row in agent.last_stats}
    assert stats["c1"]["mean"] == 1.0
    assert stats["c1"]["visits"] > sum(row["visits"] for row in agent.last_stats) / 2


@pytest.mark.parametrize("policy", POLICIES)
def test_same_seed_same_moves(policy):
    def game(seed):
        agents = [MonteCarloAgent(3, policy, seed=seed), MonteCarloAgent(3, policy, 10, seed)]
        state, moves = Othello(), []
        while not state.is_terminal() and len(moves) < 20:
            moves.append(agents[state.current_player].select_action(state))
            state = state.play(moves[-1])
        return moves

    assert game(1) == game(1)


def test_time_limit_stops_early():
    agent = MonteCarloAgent(playouts=10**7, time_limit=0.05, seed=0)
    state = Othello()
    assert agent.select_action(state) in state.legal_actions()
    assert 4 <= sum(row["visits"] for row in agent.last_stats) < 10**7 * 4


def test_bad_parameters():
    with pytest.raises(ValueError, match="uniform, ucb1, egreedy, softmax"):
        MonteCarloAgent(policy="greedy")
    with pytest.raises(ValueError):
        MonteCarloAgent(playouts=0)
    with pytest.raises(ValueError):
        MonteCarloAgent(temperature=0)
