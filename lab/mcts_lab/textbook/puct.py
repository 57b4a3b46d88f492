"""PUCT and AlphaZero's self-play as a textbook writes them (Rosin 2011; Silver et al. 2017, 2018).

Each function is short enough to read in one look; the tests hold each against the package's
engine (:class:`~mcts_course.agents.puct.PUCTAgent`, :class:`~mcts_course.learn.selfplay.
SelfPlayPUCT`, :func:`~mcts_course.learn.selfplay.self_play_game`,
:class:`~mcts_course.learn.network.PolicyValueNet`) on the same positions and seeds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_course.games.base import GameState


def puct_score(q: float, prior: float, visits: int, parent_visits: int, c: float) -> float:
    """Q(a) + U(a), with U(a) = c P(a) sqrt(N) / (1 + n(a))."""
    return q + c * prior * math.sqrt(parent_visits) / (1 + visits)


def puct_select(
    children: dict[int, tuple[float, int, float]], parent_visits: int, c: float, fpu: float = 0.5
) -> int:
    """The action to descend: ``children`` maps an action to (prior, visits, reward sum); an
    unvisited move's Q is ``fpu``; ties go to the smallest action."""

    def score(action: int) -> float:
        prior, visits, wins = children[action]
        q = wins / visits if visits else fpu
        return puct_score(q, prior, visits, parent_visits, c)

    return max(sorted(children), key=score)


def root_noise(
    priors: dict[int, float], alpha: float, fraction: float, rng: random.Random
) -> dict[int, float]:
    """(1 - fraction) P(a) + fraction eta_a, eta ~ Dirichlet(alpha) (gamma draws, normalised)."""
    gammas = {a: rng.gammavariate(alpha, 1.0) for a in sorted(priors)}
    total = sum(gammas.values()) or 1.0
    return {a: (1 - fraction) * priors[a] + fraction * gammas[a] / total for a in sorted(priors)}


def predict(
    params: dict[str, Any], x: list[float], legal: list[int]
) -> tuple[dict[int, float], float]:
    """The network's prior over the legal moves and its value, for one encoded position."""
    h = np.asarray(x, dtype=float)
    layer = 1
    while f"W{layer}" in params:  # hidden layers of rectified linear units
        h = np.maximum(h @ params[f"W{layer}"] + params[f"b{layer}"], 0.0)
        layer += 1
    logits = (h @ params["Wp"] + params["bp"])[legal]  # the policy head, legal moves only
    e = np.exp(logits - logits.max())
    value = float(np.tanh(h @ params["Wv"] + params["bv"])[0])  # the value head
    return dict(zip(legal, (e / e.sum()).tolist(), strict=True)), value


def self_play_game(
    game: type[GameState],
    search: Callable[[GameState], dict[int, int]],
    rng: random.Random,
    sample_moves: int = 4,
    temperature: float = 1.0,
) -> list[tuple[GameState, list[float], float]]:
    """One game of the searcher against itself: each position, its visit shares (the policy
    target) and the game's result for the player to move there (the value target)."""
    state, record = game(), []
    while not state.is_terminal():
        visits = search(state)  # action -> root visits, after the search with root noise
        total = sum(visits.values())
        policy = [visits.get(a, 0) / total for a in range(game.NUM_ACTIONS)]
        record.append((state, policy))
        if len(record) <= sample_moves:  # the opening: a move drawn from the visits
            weights = [p ** (1 / temperature) for p in policy]
            action = rng.choices(range(len(policy)), weights=weights)[0]
        else:  # then the most visited move
            action = max(sorted(visits), key=visits.__getitem__)
        state = state.play(action)
    returns = state.returns()
    return [(s, p, float(returns[s.current_player])) for s, p in record]
