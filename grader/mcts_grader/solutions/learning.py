"""Reference solution: training targets from a search, and PUCT's selection (exercise 8)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from mcts_course.games.base import GameState
from mcts_course.given import Node, reward

Predict = Callable[[GameState], tuple[dict[int, float], float]]


# -- the training targets ---------------------------------------------------------------------
def policy_target(visits: dict[int, int], temperature: float) -> dict[int, float]:
    """Each move's share of ``visits[a] ** (1 / temperature)``; at temperature 0, equal shares
    of the most visited moves (the limit)."""
    top = max(visits.values())
    if temperature == 0:
        best = [a for a, n in visits.items() if n == top]
        return {a: (1 / len(best) if a in best else 0.0) for a in visits}
    # (n / top) ** (1 / temperature): the same shares as n ** (1 / temperature), no overflow
    weights = {a: (n / top) ** (1 / temperature) for a, n in visits.items()}
    total = sum(weights.values())
    return {a: w / total for a, w in weights.items()}


def value_targets(positions: Sequence[GameState], final: GameState) -> list[float]:
    """The game's result for the player to move at each position."""
    returns = final.returns()
    return [float(returns[position.current_player]) for position in positions]


# -- PUCT's selection -------------------------------------------------------------------------
def puct_score(
    wins: float, visits: int, parent_visits: int, prior: float, c: float, fpu: float = 0.5
) -> float:
    """Q + c * P * sqrt(N) / (1 + n), with Q = fpu for a child never visited."""
    q = wins / visits if visits else fpu
    return q + c * prior * math.sqrt(parent_visits) / (1 + visits)


def puct_select(node: Node, priors: dict[int, float], c: float, fpu: float = 0.5) -> Node:
    """The child with the highest PUCT score; ties go to the smallest action."""
    action = max(
        sorted(node.children),
        key=lambda a: puct_score(
            node.children[a].wins, node.children[a].visits, node.visits, priors[a], c, fpu
        ),
    )
    return node.children[action]


def uniform_predict(state: GameState) -> tuple[dict[int, float], float]:
    """A network that knows nothing (given): the same prior for every move, value 0."""
    moves = state.legal_actions()
    return {a: 1 / len(moves) for a in moves}, 0.0


def puct_search(
    state: GameState, iterations: int, predict: Predict, c: float = 1.5, fpu: float = 0.5
) -> Node:
    """AlphaZero's search with YOUR ``puct_select`` (given): the network's priors guide the
    selection, and its value replaces the random playout.

    ``predict(state)`` returns ``(priors, value)``: {legal move: probability} and the expected
    result in [-1, 1] for the player to move, as ``mcts_course.learn.load(game).predict`` does.
    Returns the root; its children's visits are what ``policy_target`` turns into a target.
    """
    root = Node(state)
    priors: dict[Node, dict[int, float]] = {}  # a node's prior of each of its moves
    for _ in range(iterations):
        node, path = root, [root]
        while node.children:  # selection: the best PUCT score, down to a leaf
            node = puct_select(node, priors[node], c, fpu)
            path.append(node)
        if node.state.is_terminal():  # a finished game: its result
            returns = node.state.returns()
        else:  # expansion of every move at once, and the network's value instead of a playout
            priors[node], value = predict(node.state)
            for action in node.untried:
                node.children[action] = Node(node.state.play(action), node, action)
            node.untried = []
            returns = (value, -value) if node.state.current_player == 0 else (-value, value)
        for visited in path:  # backpropagation, as in exercise 2 (rewards in [0, 1])
            visited.visits += 1
            visited.wins += reward(returns, visited.player)
    return root


def self_play(
    game: Callable[[], GameState],
    predict: Predict,
    iterations: int = 100,
    temperature: float = 1.0,
    sampled_moves: int = 4,
    seed: int = 0,
) -> list[tuple[GameState, dict[int, float], float]]:
    """One game of ``puct_search`` against itself, as training examples (given).

    At each position the root's visit shares (YOUR ``policy_target`` at temperature 1) are the
    policy target, as in AlphaZero; the move is drawn from ``policy_target`` at ``temperature``
    for the first ``sampled_moves`` moves, then at 0 (the most visited).  Once the game is over
    YOUR ``value_targets`` gives each position its value target.  No Dirichlet noise is added at
    the root (chapter 15's engine adds it).  Returns ``(position, policy target, value target)``
    for every position.
    """
    rng = random.Random(seed)
    state, positions, targets = game(), [], []
    while not state.is_terminal():
        root = puct_search(state, iterations, predict)
        visits = {a: child.visits for a, child in sorted(root.children.items())}
        play = policy_target(visits, temperature if len(positions) < sampled_moves else 0.0)
        positions.append(state)
        targets.append(policy_target(visits, 1.0))  # the target: the visit shares
        state = state.play(rng.choices(list(play), weights=list(play.values()))[0])
    values = value_targets(positions, state)
    return list(zip(positions, targets, values, strict=True))
