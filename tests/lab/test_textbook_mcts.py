"""The textbook functions the chapters print (lab/mcts_lab/textbook) compute what the engine
computes: the same choices and the same trees with the same seed where the random draws can
match (tic-tac-toe, Connect Four), and the same statistics where they cannot (Othello's playouts
run on bitboards and draw differently)."""

from __future__ import annotations

import random

import pytest
from mcts_lab.textbook.bandit import flat_monte_carlo, playout, ucb1, ucb1_bandit
from mcts_lab.textbook.uct import uct_search

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.agents.exact import best_actions
from mcts_course.games import Othello, TicTacToe
from mcts_course.games.connect4 import ConnectFour
from mcts_course.stats import wilson_interval

POSITIONS = [
    TicTacToe.from_moves(""),
    TicTacToe.from_moves("b2 a1"),
    TicTacToe.from_moves("a1 b2 c3"),
    TicTacToe.from_moves("a1 b2 c2 c1"),  # one move draws, four lose
    ConnectFour.from_moves(""),
    ConnectFour.from_moves("4 4 3 5"),
]


def shape(node):
    """The tree as nested (visits, wins, children by action), engine or textbook."""
    return (
        node.visits,
        node.wins,
        {a: shape(child) for a, child in sorted(node.children.items())},
    )


@pytest.mark.parametrize("position", POSITIONS, ids=str)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_grows_the_engines_tree_visit_for_visit(position, seed):
    action, root = uct_search(position, 400, rng=random.Random(seed))
    agent = MCTSAgent(400, seed=seed)
    assert action == agent.select_action(position)
    assert shape(root) == shape(agent.last_root)
    assert root.visits == 400 and sum(c.visits for c in root.children.values()) == 400


@pytest.mark.parametrize("position", POSITIONS, ids=str)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_flat_monte_carlo_chooses_the_engines_move(position, seed):
    for budget in (30, 300):
        engine = MonteCarloAgent(budget, policy="ucb1", seed=seed).select_action(position)
        assert flat_monte_carlo(position, budget, rng=random.Random(seed)) == engine


def test_a_different_seed_grows_a_different_tree():
    """(so the agreement above is not two searches that ignore their random numbers)"""
    position = ConnectFour.from_moves("4")
    trees = {str(shape(uct_search(position, 200, rng=random.Random(s))[1])) for s in range(4)}
    assert len(trees) > 1


@pytest.mark.parametrize("moves", ["a1 b2 c3", "b2 a1 c1", "a1 c3", "b2 a1 c3", "a1 b2 c2 c1"])
def test_uct_plays_a_best_move_in_solved_positions(moves):
    position = TicTacToe.from_moves(moves)
    best = set(best_actions(position))
    assert len(best) < len(position.legal_actions())  # some move is a mistake
    for seed in range(5):
        assert uct_search(position, 2000, rng=random.Random(seed))[0] in best


def test_a_forced_win_takes_every_visit_of_a_winning_line():
    """X wins at once on c3 (a1 b2 done, O elsewhere): after that child has been tried, UCB1
    keeps coming back, and its mean is exactly 1."""
    position = TicTacToe.from_moves("a1 a2 b2 a3")
    _, root = uct_search(position, 500, rng=random.Random(0))
    win = position.parse_action("c3")
    assert root.children[win].wins == root.children[win].visits
    assert max(root.children.values(), key=lambda c: c.visits) is root.children[win]


def test_othello_statistics_agree_with_the_engine():
    """Othello's engine playouts draw their moves differently, so compare what they estimate:
    White's win rate under random play from the running position, 2,000 playouts each."""
    position = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    player, n = position.current_player, 2000
    rng_a, rng_b = random.Random(1), random.Random(2)
    textbook = sum(playout(position, player, rng_a) for _ in range(n)) / n
    engine = sum((position.rollout(rng_b)[player] + 1) / 2 for _ in range(n)) / n
    low, high = wilson_interval(engine, n)
    assert low - 0.03 < textbook < high + 0.03


def test_ucb1_is_the_engines_score():
    from mcts_course.agents.bandits import ucb1 as engine_ucb1

    for w, n, big_n in [(3, 4, 16), (0, 1, 2), (6.5, 10, 30)]:
        assert ucb1(w, n, big_n) == engine_ucb1(w, n, big_n)
    assert ucb1(0, 0, 5) == float("inf")


def test_the_bandit_run_favours_the_better_arm_and_keeps_its_counts():
    run = ucb1_bandit([0.7, 0.4, 0.2], 2000, seed=3, record=range(100, 2001, 100))
    assert run.steps[-1] == 2000 and len(run.steps) == 20
    tops = run.upper(2000)
    assert max(tops) - min(tops) < 0.1  # UCB1 keeps the upper bounds nearly level
    assert all(sum(p) == s for p, s in zip(run.pulls, run.steps, strict=True))
    last = run.pulls[-1]
    assert last[0] > last[1] > last[2] > 0
    assert all(w <= n for w, n in zip(run.wins[-1], last, strict=True))
