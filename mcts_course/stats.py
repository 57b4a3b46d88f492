"""Statistics of match results: the intervals and a Bradley-Terry fit of Elo ratings.

The one home of the interval rule: a win rate (a proportion) gets its Wilson score interval
(:func:`wilson_interval`), a mean of independent runs the normal interval
(:func:`mean_interval`, :func:`half_width`); both take ``confidence`` (0.95 by default) and turn
it into the normal quantile with :func:`z_value`.  The arena, the laboratory and the pictures
call these; none writes 1.96 itself.

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
from statistics import NormalDist

import numpy as np

__all__ = [
    "CONFIDENCE",
    "Ratings",
    "bradley_terry",
    "crosstable",
    "difference_interval",
    "half_width",
    "mean_interval",
    "wilson_interval",
    "z_value",
]

ELO = 400 / math.log(10)  # Elo points per unit of the natural logit
CONFIDENCE = 0.95  # the confidence of every interval the course prints


def z_value(confidence: float = CONFIDENCE) -> float:
    """The normal quantile of a two-sided interval: 1.959963984540054 for 95%."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(score: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed in ``n`` trials.

    Unlike the textbook ``score ± z·sqrt(score(1-score)/n)`` it stays inside [0, 1] and is
    sensible for 0 or n successes (Wilson, 1927).
    """
    if n == 0:
        return (0.0, 1.0)
    z = z_value(confidence)
    denominator = 1 + z * z / n
    centre = (score + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def half_width(std: float, n: int, confidence: float = CONFIDENCE) -> float:
    """Half the width of the normal interval of a mean of ``n`` independent values whose
    standard deviation is ``std`` (infinite for fewer than two values: no spread is known)."""
    return z_value(confidence) * std / math.sqrt(n) if n > 1 else math.inf


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The normal interval of the mean of ``values`` (independent runs)."""
    array = np.asarray(values, dtype=float)
    half = (
        half_width(float(array.std(ddof=1)), len(array), confidence) if len(array) > 1 else math.inf
    )
    return float(array.mean() - half), float(array.mean() + half)


def difference_interval(
    p1: float, n1: int, p2: float, n2: int, confidence: float = CONFIDENCE
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
        return self.elo - z_value() * self.se

    @property
    def high(self) -> np.ndarray:
        return self.elo + z_value() * self.se

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
