"""Exercise 8: training targets from a search, and PUCT's selection with a network's prior.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/learning.py

AlphaZero learns from its own games: at each position a search is run, and the network is
trained to predict (1) the search's root visit counts, turned into a distribution over the moves
(the *policy target*), and (2) the result of the game for the player to move there (the *value
target*).  The search itself is PUCT: UCT's selection with the network's prior probability of
each move.  ``puct_search`` and ``self_play`` (given) put your functions together.
"""

from __future__ import annotations

import math  # noqa: F401 - for puct_score
import random
from collections.abc import Callable, Sequence

from mcts_course.games.base import GameState

# Given (do not change them): the search tree's ``Node`` of exercises 1-4 (``visits``, ``wins``
# for ``node.player``, the player who moved INTO the node, ``children`` a dict action -> Node)
# and ``reward(returns, player)``, a result's reward in [0, 1].
from mcts_course.given import Node, reward

Predict = Callable[[GameState], tuple[dict[int, float], float]]


# -- the training targets ---------------------------------------------------------------------
def policy_target(visits: dict[int, int], temperature: float) -> dict[int, float]:
    """The policy target of a search: the root's visit counts as probabilities over its moves.

    Contract: ``visits`` maps each move of the root to its visit count (at least one count is
    above 0).  Return ``{move: probability}`` over the same moves, each probability proportional
    to ``visits[move] ** (1 / temperature)``: temperature 1 gives the visit shares themselves,
    a lower temperature sharpens them towards the most visited move.  Temperature 0 is the
    limit: all the probability on the most visited move, in equal shares when several moves tie
    for the most visits.  Must not overflow for a small temperature such as 0.01.  Leave
    ``visits`` unchanged.

    Example: ``policy_target({0: 3, 1: 1}, 0.5)`` is ``{0: 0.9, 1: 0.1}`` (9 and 1, out of 10).

    Hint: ``(visits[move] / most) ** (1 / temperature)``, with ``most`` the largest count, gives
    the same probabilities and stays at most 1.
    """
    raise NotImplementedError


def value_targets(positions: Sequence[GameState], final: GameState) -> list[float]:
    """The value targets of a finished game: what the value head should have predicted.

    Contract: ``positions`` are positions of one game (any of them, in any order: a game
    recorded from its start, from its middle, or a sample of it) and ``final`` is the position
    where that game ended (``final.is_terminal()``).  Return one number per position, in the
    same order: the game's result ``final.returns()`` for the player to move at that position
    (+1 a win, 0 a draw, -1 a loss; the value head predicts the result for the player to move).

    Example: in a game X wins, every position with X to move gets +1 and every position with
    O to move gets -1, whoever moved last.
    """
    raise NotImplementedError


# -- PUCT's selection -------------------------------------------------------------------------
def puct_score(
    wins: float, visits: int, parent_visits: int, prior: float, c: float, fpu: float = 0.5
) -> float:
    """The PUCT score of a child with ``visits`` visits, reward sum ``wins`` (in [0, 1] per
    visit) and prior probability ``prior``, whose parent has ``parent_visits`` visits.

    Contract: ``Q + c * prior * sqrt(parent_visits) / (1 + visits)``, where ``Q`` is the mean
    reward ``wins / visits``, or ``fpu`` (first-play urgency) when ``visits == 0``.

    Hint: unlike UCB1 an unvisited child does not score infinity: its prior decides how soon it
    is tried.
    """
    raise NotImplementedError


def puct_select(node: Node, priors: dict[int, float], c: float, fpu: float = 0.5) -> Node:
    """The child of ``node`` with the highest
    ``puct_score(child.wins, child.visits, node.visits, priors[action], c, fpu)``.

    Contract: ``priors`` maps each action of ``node.children`` to its prior probability; return
    one of the Node objects in ``node.children``.  Ties go to the child with the smallest
    action, whatever the order in which the children were added to the dict.
    """
    raise NotImplementedError


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


if __name__ == "__main__":
    from mcts_course.games import TicTacToe

    for position, pi, z in self_play(TicTacToe, uniform_predict, iterations=50):
        print(position, {a: round(p, 2) for a, p in pi.items()}, z, sep="\n", end="\n\n")
