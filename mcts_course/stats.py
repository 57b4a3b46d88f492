"""Statistics of match results: Wilson intervals, Elo differences and a Bradley-Terry fit.

A match between two agents gives a score (wins plus half the draws, over the games).  Many
matches between many agents (a round robin) give a crosstable; the **Bradley-Terry** model
explains it with one rating per agent: agent i scores against agent j, on average,

    P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400)),

the logistic curve of the Elo scale (400 points = odds of 10 to 1).  :func:`bradley_terry`
finds the ratings by maximum likelihood (Newton's method, numpy only) and their 95% intervals
from the Fisher information (the inverse of the Hessian of the log-likelihood).

An agent that won every game it played has an infinite maximum-likelihood rating.  Like
BayesElo we add a weak prior: ``prior_draws`` virtual drawn games between every pair that met,
which keeps every rating finite and moves well-measured ratings very little.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mcts_course.arena import wilson_interval

__all__ = [
    "Ratings",
    "bradley_terry",
    "crosstable",
    "difference_interval",
    "elo_difference",
    "wilson_interval",
]

ELO = 400 / math.log(10)  # Elo points per unit of the natural logit


def elo_difference(score: float) -> float:
    """The Elo difference that predicts ``score`` (between 0 and 1, exclusive)."""
    if not 0 < score < 1:
        raise ValueError(f"score must be strictly between 0 and 1, not {score}")
    return 400 * math.log10(score / (1 - score))


def difference_interval(
    p1: float, n1: int, p2: float, n2: int, confidence: float = 0.95
) -> tuple[float, float]:
    """95% interval of the difference p1 - p2 of two independent proportions, from their
    Wilson intervals (Newcombe's hybrid score method, 1998): sound near 0 and 1."""
    l1, u1 = wilson_interval(p1, n1, confidence)
    l2, u2 = wilson_interval(p2, n2, confidence)
    d = p1 - p2
    return (d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2))


@dataclass
class Ratings:
    """Elo ratings of a Bradley-Terry fit (mean 0) with their 95% intervals."""

    names: list[str]
    elo: np.ndarray  # one rating per agent, the ratings sum to 0
    se: np.ndarray  # standard error of each rating
    iterations: int  # Newton steps until convergence

    @property
    def low(self) -> np.ndarray:
        return self.elo - 1.96 * self.se

    @property
    def high(self) -> np.ndarray:
        return self.elo + 1.96 * self.se

    def expected(self, i: int, j: int) -> float:
        """The score the fit predicts for agent i against agent j."""
        score: float = 1 / (1 + 10 ** ((self.elo[j] - self.elo[i]) / 400))  # numpy's Any
        return score

    def order(self) -> list[int]:
        """Agent indices from the highest rating to the lowest."""
        return [int(i) for i in np.argsort(-self.elo, kind="stable")]


def bradley_terry(
    names: Sequence[str],
    points: np.ndarray,
    games: np.ndarray,
    prior_draws: float = 1.0,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> Ratings:
    """Fit Elo ratings to a crosstable.

    ``points[i, j]``: the points agent i scored against agent j (win 1, draw 1/2);
    ``games[i, j]``: the games they played (symmetric).  Returns ratings with mean 0.
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    k = len(names)
    if points.shape != (k, k) or games.shape != (k, k):
        raise ValueError("points and games must be square, one row per agent")
    if not np.allclose(games, games.T):
        raise ValueError("games must be symmetric")
    if np.any(points + points.T > games + 1e-9):
        raise ValueError("a pair scored more points than the games they played")
    met = games > 0
    # The prior: prior_draws virtual draws, half a point each way, between every pair that met.
    s = points + np.where(met, prior_draws / 2, 0.0)
    n = games + np.where(met, prior_draws, 0.0)
    np.fill_diagonal(n, 0.0)
    np.fill_diagonal(s, 0.0)
    theta = np.zeros(k)  # natural-logit strengths; Elo = ELO * theta
    iterations = 0
    while iterations < max_iter:
        iterations += 1
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        gradient = (s - n * p).sum(axis=1)
        w = n * p * (1 - p)
        hessian = np.diag(w.sum(axis=1)) - w  # minus the second derivative (a Laplacian)
        # The likelihood does not change when every strength moves by the same amount, so the
        # Hessian is singular along (1, ..., 1); the pseudo-inverse steps orthogonally to it.
        step = np.linalg.pinv(hessian) @ gradient
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < tol:
            break
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    w = n * p * (1 - p)
    covariance = np.linalg.pinv(np.diag(w.sum(axis=1)) - w)  # of the mean-zero strengths
    se = np.sqrt(np.clip(np.diag(covariance), 0, None))
    return Ratings(list(names), ELO * theta, ELO * se, iterations)


def crosstable(
    names: Sequence[str], results: dict[tuple[int, int], tuple[float, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """``points`` and ``games`` matrices from ``{(i, j): (points of i, games)}``."""
    k = len(names)
    points, games = np.zeros((k, k)), np.zeros((k, k))
    for (i, j), (scored, played) in results.items():
        points[i, j] += scored
        points[j, i] += played - scored
        games[i, j] += played
        games[j, i] += played
    return points, games
