"""Flat Monte Carlo: the bandit rules, the budget, the playout cut-off, the moves it finds."""

from __future__ import annotations

import math
import random
import time
from collections import Counter

import pytest

from mcts_course.agents import MonteCarloAgent, epsilon_greedy, softmax, ucb1
from mcts_course.agents.bandits import first_max, ucb1_arm
from mcts_course.agents.rollout import RandomRollout, playout, reward
from mcts_course.games import ConnectFour, Othello, TicTacToe

POLICIES = ["uniform", "ucb1", "egreedy", "softmax"]


def test_ucb1_is_the_formula():
    assert ucb1(3.0, 4, 16, c=1.0) == pytest.approx(0.75 + math.sqrt(math.log(16) / 4))
    assert ucb1(3.0, 4, 16) == pytest.approx(0.75 + math.sqrt(2 * math.log(16) / 4))
    assert ucb1(0.0, 0, 16) == math.inf  # never tried: first in line
    assert ucb1(2.0, 4, 1, c=5.0) == 0.5  # ln 1 = 0: no bonus


def test_ucb1_explores_the_less_tried_arm_and_exploits_the_better_one():
    assert ucb1_arm([5.0, 1.0], [10, 2]) == 1  # equal means: the rarely tried arm
    assert ucb1_arm([8.0, 2.0], [10, 10]) == 0  # equal counts: the better mean
    assert ucb1_arm([9.0, 0.5], [10, 1], c=0.0) == 0  # c = 0: pure greed
    assert ucb1_arm([1.0, 2.0, 2.0], [4, 4, 4]) == 1  # ties: the first arm
    assert first_max([1, 3, 3, 2]) == 1


def test_epsilon_greedy():
    rng = random.Random(1)
    assert all(epsilon_greedy([1.0, 3.0, 2.0], [4, 4, 4], rng, epsilon=0.0) == 1 for _ in range(50))
    assert epsilon_greedy([3.0, 3.0], [4, 4], rng, epsilon=0.0) == 0  # ties: the first arm
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
def test_budget_is_playouts_per_decision_in_total(policy):
    agent = MonteCarloAgent(playouts=10, policy=policy, seed=0)
    state = Othello()
    agent.select_action(state)
    visits = [row["visits"] for row in agent.last_stats]
    assert sum(visits) == 10
    assert min(visits) >= 1
    if policy == "uniform":
        assert visits == [3, 3, 2, 2]  # round robin over the four moves


@pytest.mark.parametrize("policy", POLICIES)
def test_playouts_per_move(policy):
    agent = MonteCarloAgent(playouts_per_move=10, policy=policy, seed=0)
    agent.select_action(Othello())
    visits = [row["visits"] for row in agent.last_stats]
    assert sum(visits) == 40
    if policy == "uniform":
        assert visits == [10] * 4


def test_default_budget_and_a_budget_below_the_moves():
    assert MonteCarloAgent().budget(7) == 200
    agent = MonteCarloAgent(playouts=2, seed=0)
    state = ConnectFour()
    action = agent.select_action(state)
    assert [row["visits"] for row in agent.last_stats] == [1, 1, 0, 0, 0, 0, 0]
    assert action in (0, 1)  # only tried moves can be chosen


@pytest.mark.parametrize("policy", POLICIES)
def test_final_choice_is_the_best_mean_ties_smallest(policy):
    # Two moves left for O and both draw: equal means, so the smaller action.
    state = TicTacToe.from_moves("a1 b1 c1 c3 b3 a2 c2")
    assert len(state.legal_actions()) == 2
    agent = MonteCarloAgent(playouts=8, policy=policy, seed=0)
    assert agent.select_action(state) == state.legal_actions()[0]
    for seed in range(5):  # in general: the smallest action of the best mean
        agent = MonteCarloAgent(playouts=30, policy=policy, seed=seed)
        chosen = agent.select_action(Othello())
        best = max(row["mean"] for row in agent.last_stats)
        assert chosen == min(row["action"] for row in agent.last_stats if row["mean"] == best)


@pytest.mark.parametrize("policy", POLICIES)
def test_same_seed_same_moves(policy):
    def game(seed):
        agents = [
            MonteCarloAgent(3, policy=policy, seed=seed),
            MonteCarloAgent(3, policy=policy, playout_depth=10, seed=seed),
        ]
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
    assert 4 <= sum(row["visits"] for row in agent.last_stats) < 10**7


def test_time_alone_searches_for_that_time():
    agent = MonteCarloAgent(time_limit=0.1, seed=0)
    started = time.perf_counter()
    agent.select_action(Othello())
    assert time.perf_counter() - started >= 0.1
    assert agent.playouts is None  # no hidden budget


def test_keyword_only():
    with pytest.raises(TypeError):
        MonteCarloAgent(3, "ucb1")


def test_bad_parameters():
    with pytest.raises(ValueError, match="uniform, ucb1, egreedy, softmax"):
        MonteCarloAgent(policy="greedy")
    with pytest.raises(ValueError):
        MonteCarloAgent(playouts=0)
    with pytest.raises(ValueError):
        MonteCarloAgent(temperature=0)
    with pytest.raises(ValueError, match="not both"):
        MonteCarloAgent(playouts=10, playouts_per_move=2)
