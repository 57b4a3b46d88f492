"""Reference solution: bandit policies for flat Monte Carlo (exercise 7).

Flat Monte Carlo spends its playouts on the moves of the root only.  Each move is an arm of
a bandit: ``counts[i]`` playouts of move i so far, ``sums[i]`` the sum of their rewards (win 1,
draw 0.5, loss 0, for the player to move).  A policy picks the arm that gets the next playout.
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


def _unplayed(counts: Sequence[int]) -> int | None:
    """The first arm never played, or None."""
    for i, n in enumerate(counts):
        if n == 0:
            return i
    return None


def _greedy(counts: Sequence[int], sums: Sequence[float]) -> int:
    """The arm with the best mean reward; ties go to the smallest index."""
    means = [s / n for n, s in zip(counts, sums, strict=True)]
    return max(range(len(means)), key=lambda i: means[i])


def ucb1_choice(counts: Sequence[int], sums: Sequence[float], c: float = math.sqrt(2)) -> int:
    """The first unplayed arm, else the arm with the highest UCB1 score (ties: smallest index)."""
    first = _unplayed(counts)
    if first is not None:
        return first
    t = sum(counts)
    scores = [s / n + c * math.sqrt(math.log(t) / n) for n, s in zip(counts, sums, strict=True)]
    return max(range(len(scores)), key=lambda i: scores[i])


def epsilon_greedy_choice(
    counts: Sequence[int], sums: Sequence[float], epsilon: float, rng: random.Random
) -> int:
    """The first unplayed arm; else with probability epsilon a random arm, else the greedy one.

    Exactly one ``rng.random()`` draw decides, then ``rng.randrange(len(counts))`` picks.
    """
    first = _unplayed(counts)
    if first is not None:
        return first
    if rng.random() < epsilon:
        return rng.randrange(len(counts))
    return _greedy(counts, sums)


def softmax_choice(
    counts: Sequence[int], sums: Sequence[float], temperature: float, rng: random.Random
) -> int:
    """The first unplayed arm; else arm i with probability proportional to
    exp(mean_i / temperature).

    One ``rng.random()`` draw u picks the first arm whose cumulative probability exceeds u.
    """
    first = _unplayed(counts)
    if first is not None:
        return first
    means = [s / n for n, s in zip(counts, sums, strict=True)]
    top = max(means)  # subtracting the largest mean keeps exp from overflowing
    weights = [math.exp((m - top) / temperature) for m in means]
    u, cumulative = rng.random() * sum(weights), 0.0
    for i, w in enumerate(weights):
        cumulative += w
        if u < cumulative:
            return i
    return len(weights) - 1


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
    """Spend ``playouts`` random playouts on the root moves as ``policy`` says; return a move.

    The move returned has the best mean reward for the player to move (ties: smallest action).
    """
    actions = state.legal_actions()
    player = state.current_player
    counts, sums = [0] * len(actions), [0.0] * len(actions)
    for _ in range(playouts):
        i = policy(counts, sums, rng)
        returns = state.play(actions[i]).rollout(rng)
        counts[i] += 1
        sums[i] += (returns[player] + 1) / 2
    played = [i for i in range(len(actions)) if counts[i]]
    return actions[max(played, key=lambda i: sums[i] / counts[i])]


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
    """Score (win 1, draw 0.5) of each policy's player against ``opponent`` (anything with
    ``select_action``; None: uniformly random moves drawn from the shared rng).

    Each policy plays ``games`` games, moving first in the even-numbered ones.
    """
    rng = random.Random(seed)
    scores = {}
    for name in policies:
        player = MonteCarloPlayer(playouts, name, seed=rng.randrange(2**31))
        total = 0.0
        for g in range(games):
            me, state = g % 2, game()
            while not state.is_terminal():
                if state.current_player == me:
                    action = player.select_action(state)
                elif opponent is None:
                    action = rng.choice(state.legal_actions())
                else:
                    action = opponent.select_action(state)
                state = state.play(action)
            total += (state.returns()[me] + 1) / 2
        scores[name] = total / games
    return scores
