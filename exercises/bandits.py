"""Exercise 7: bandit policies, at the root of flat Monte Carlo and in the tree of MCTS.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/bandits.py

Flat Monte Carlo spends its random playouts on the moves at the root only.  Each move is an
arm of a multi-armed bandit: ``counts[i]`` playouts of move i so far and ``sums[i]`` the sum of
their rewards (win 1, draw 0.5, loss 0 for the player to move).  A policy picks the arm that gets
the next playout: UCB1, epsilon-greedy or softmax (Boltzmann) exploration.
``BanditMCTSPlayer`` (given) puts the same policies inside MCTS, at every node of the tree.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from mcts_course.agents import MCTSAgent
from mcts_course.agents import Node as AgentNode  # the library's, not the exercises' Node
from mcts_course.games import TicTacToe
from mcts_course.games.base import GameState

Policy = Callable[[Sequence[int], Sequence[float], random.Random], int]


def ucb1_choice(counts: Sequence[int], sums: Sequence[float], c: float = math.sqrt(2)) -> int:
    """The index of the arm to play next by UCB1.

    Contract: the first arm (smallest index) with ``counts[i] == 0`` if there is one; else
    the arm maximising ``sums[i] / counts[i] + c * sqrt(ln(sum(counts)) / counts[i])``; ties go
    to the smallest index.
    """
    raise NotImplementedError


def epsilon_greedy_choice(
    counts: Sequence[int], sums: Sequence[float], epsilon: float, rng: random.Random
) -> int:
    """The index of the arm to play next by epsilon-greedy.

    Contract: the first unplayed arm if there is one; else draw ``rng.random()``: below
    ``epsilon``, return ``rng.randrange(len(counts))`` (explore: any arm, the best included);
    otherwise return the arm of best mean ``sums[i] / counts[i]`` (ties: smallest index).
    """
    raise NotImplementedError


def softmax_choice(
    counts: Sequence[int], sums: Sequence[float], temperature: float, rng: random.Random
) -> int:
    """The index of the arm to play next by softmax (Boltzmann) exploration.

    Contract: the first unplayed arm if there is one; else arm i with probability
    ``exp(mean_i / temperature) / sum_j exp(mean_j / temperature)``, drawn with ``rng``.
    Must not overflow for a tiny ``temperature`` such as 0.001.

    Hint: ``exp((mean_i - max_mean) / temperature)`` gives the same probabilities without overflow;
    draw ``u = rng.random() * total`` and walk the cumulative sum.
    """
    raise NotImplementedError


def make_policy(name: str, **params: float) -> Policy:
    """The policy ``name`` ("uniform", "ucb1", "egreedy", "softmax") as f(counts, sums, rng)
    (given)."""
    if name == "uniform":  # round robin: the least played arm
        return lambda counts, sums, rng: min(range(len(counts)), key=lambda i: counts[i])
    if name == "ucb1":
        return lambda counts, sums, rng: ucb1_choice(counts, sums, params.get("c", math.sqrt(2)))
    if name == "egreedy":
        return lambda counts, sums, rng: epsilon_greedy_choice(
            counts, sums, params.get("epsilon", 0.1), rng
        )
    if name == "softmax":
        return lambda counts, sums, rng: softmax_choice(
            counts, sums, params.get("temperature", 0.1), rng
        )
    raise ValueError(f"unknown policy {name!r}; choose uniform, ucb1, egreedy or softmax")


def monte_carlo_move(state: GameState, playouts: int, policy: Policy, rng: random.Random) -> int:
    """Flat Monte Carlo: spend ``playouts`` playouts on the moves of ``state``.

    Contract: with ``actions = state.legal_actions()``, repeat ``playouts`` times: ``i =
    policy(counts, sums, rng)``; play ``actions[i]`` and a random playout
    (``state.play(actions[i]).rollout(rng)``); add 1 to ``counts[i]`` and the reward of the
    player to move at ``state`` to ``sums[i]``.  Return the action of the best mean reward
    among the arms played (ties: smallest action); not the most played arm.
    """
    raise NotImplementedError


class MonteCarloPlayer:
    """Flat Monte Carlo with a bandit policy at the root (given)."""

    def __init__(self, playouts: int = 200, policy: str = "ucb1", seed: int | None = None, **kw):
        self.playouts = playouts
        self.policy = make_policy(policy, **kw)
        self.rng = random.Random(seed)
        self.name = f"MC-{policy}({playouts})"

    def select_action(self, state: GameState) -> int:
        return monte_carlo_move(state, self.playouts, self.policy, self.rng)


class BanditMCTSPlayer(MCTSAgent):
    """The course's MCTS with a policy of this exercise choosing the child at every node of the
    tree, where UCT uses UCB1 (given).  Each node is a bandit: its children are the arms."""

    def __init__(self, iterations: int = 200, policy: str = "ucb1", seed: int | None = None, **kw):
        super().__init__(iterations, seed=seed)
        self.bandit = make_policy(policy, **kw)
        self.name = f"MCTS-{policy}({iterations})"

    def select_child(self, node: AgentNode) -> AgentNode:
        children = sorted(node.children.values(), key=lambda child: child.action)
        counts = [child.visits for child in children]
        sums = [child.wins for child in children]  # rewards of the player choosing at node
        return children[self.bandit(counts, sums, self.rng)]


def compare_policies(
    policies: Sequence[str] = ("uniform", "ucb1", "egreedy", "softmax"),
    game: type[GameState] = TicTacToe,
    playouts: int = 100,
    games: int = 20,
    seed: int = 0,
    opponent=None,
) -> dict[str, float]:
    """The strength of each policy: its score against ``opponent``.

    Contract: returns ``{policy name: score}`` where the score is the mean reward (win 1, draw
    0.5, loss 0) of ``MonteCarloPlayer(playouts, name, seed=...)`` over ``games`` games
    against ``opponent``: an object with ``select_action(state)`` (a player of this course or
    an agent of ``mcts_course.agents``), or None for a player choosing uniformly at random
    (the default).  Game ``g`` (0, 1, ..., games - 1) starts
    from ``game()``; the policy's player moves first when ``g`` is even, second when it is odd
    (with an odd number of games it moves first once more).  Seeds: one
    ``rng = random.Random(seed)``; for each policy in order, the player gets
    ``seed=rng.randrange(2**31)``, and the random opponent (None) draws its moves with
    ``rng.choice(state.legal_actions())``.  The same ``seed`` (and opponent) gives the same
    scores.
    """
    raise NotImplementedError


if __name__ == "__main__":
    print(compare_policies())
