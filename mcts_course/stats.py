"""Statistics of match results: the intervals and a Bradley-Terry fit of Elo ratings.

The one home of the interval rule: a win rate (a proportion) gets its Wilson score interval
(:func:`wilson_interval`), a mean of independent runs the normal interval
(:func:`mean_interval`, :func:`half_width`); both take ``confidence`` (0.95 by default) and turn
it into the normal quantile with :func:`z_value`.  The arena, the laboratory and the pictures
call these; none writes 1.96 itself.

When the unit is a position (or a game, a bandit), two methods are compared on the *same* units
and the comparison is made on the paired differences: :func:`paired_interval` bootstraps the mean
difference over the units (a percentile bootstrap, seeded), :func:`sign_flip_p_value` tests it.
"No difference" is said only after an equivalence check (:func:`equivalence`, two one-sided
tests: the 1 - 2 alpha interval lies inside a bound stated beforehand).  When several budgets are
scanned, :func:`holm` corrects the p-values and :func:`corrected_confidence` widens the
intervals (Bonferroni), so that the scan as a whole keeps its 95%.

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
    "Equivalence",
    "Ratings",
    "bootstrap_interval",
    "bradley_terry",
    "corrected_confidence",
    "crosstable",
    "difference_interval",
    "equivalence",
    "half_width",
    "holm",
    "mean_interval",
    "paired_interval",
    "sign_flip_p_value",
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


def detection_chance(share: float, n: int, confidence: float = CONFIDENCE) -> float:
    """The chance that ``n`` trials whose true success rate is ``share`` give a Wilson interval
    that excludes 50%: the power of "one side is better" at this sample size, summed exactly over
    the binomial distribution (so a reader can ask how often a match of ``n`` games would show an
    edge of a given size, rather than only whether one match did)."""
    if not 0 < share < 1:
        raise ValueError(f"share must lie strictly between 0 and 1, not {share}")
    log_p, log_q = math.log(share), math.log(1 - share)
    total = 0.0
    for k in range(n + 1):
        low, high = wilson_interval(k / n, n, confidence)
        if high < 0.5 or low > 0.5:
            log_pmf = (
                math.lgamma(n + 1)
                - math.lgamma(k + 1)
                - math.lgamma(n - k + 1)
                + k * log_p
                + (n - k) * log_q
            )
            total += math.exp(log_pmf)
    return total


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


def _chunks(resamples: int, units: int, cells: int = 2_000_000) -> list[int]:
    """Resamples split into chunks of at most ``cells`` drawn numbers each."""
    size = max(1, cells // max(units, 1))
    return [min(size, resamples - start) for start in range(0, resamples, size)]


def bootstrap_interval(
    values: Sequence[float],
    confidence: float = CONFIDENCE,
    resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``, one value per unit (a position,
    a game): the units are resampled with replacement, never the draws inside a unit."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or len(array) < 2:
        raise ValueError("a bootstrap needs a flat sequence of at least two units")
    rng = np.random.default_rng(seed)
    means = np.concatenate(
        [  # in chunks, so that many units need little memory
            array[rng.integers(0, len(array), size=(size, len(array)))].mean(axis=1)
            for size in _chunks(resamples, len(array))
        ]
    )
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def paired_interval(
    a: Sequence[float],
    b: Sequence[float],
    confidence: float = CONFIDENCE,
    resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap interval of mean(a - b) over paired units: ``a[i]`` and ``b[i]`` were measured
    on the same unit (position, seed), so what the units share cancels out."""
    if len(a) != len(b):
        raise ValueError(f"paired values need the same units: {len(a)} against {len(b)}")
    difference = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return bootstrap_interval(difference, confidence, resamples, seed)


def sign_flip_p_value(
    differences: Sequence[float], resamples: int = 10_000, seed: int = 0
) -> float:
    """Two-sided p-value of "the mean paired difference is 0", by random sign flips (under that
    hypothesis each unit's difference is as likely to have the other sign)."""
    d = np.asarray(differences, dtype=float)
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    extreme = 0
    for size in _chunks(resamples, len(d)):
        signs = rng.choice((-1.0, 1.0), size=(size, len(d)))
        extreme += int((np.abs((signs * d).mean(axis=1)) >= observed - 1e-12).sum())
    return (extreme + 1) / (resamples + 1)  # the observed sample counts as one resample


@dataclass(frozen=True)
class Equivalence:
    """Two one-sided tests at level ``alpha``: ``interval`` is the 1 - 2 alpha interval of the
    difference, ``equivalent`` says whether it lies inside (-bound, bound)."""

    interval: tuple[float, float]
    bound: float
    alpha: float

    @property
    def equivalent(self) -> bool:
        return -self.bound < self.interval[0] and self.interval[1] < self.bound


def equivalence(
    a: Sequence[float],
    b: Sequence[float],
    bound: float,
    alpha: float = 1 - CONFIDENCE,
    resamples: int = 10_000,
    seed: int = 0,
) -> Equivalence:
    """TOST on paired units: ``a`` and ``b`` are equivalent within ``bound`` (a difference of
    means that matters, stated before looking) when the 1 - 2 alpha bootstrap interval of
    mean(a - b) lies inside (-bound, bound)."""
    if bound <= 0:
        raise ValueError(f"an equivalence bound must be > 0, not {bound}")
    interval = paired_interval(a, b, 1 - 2 * alpha, resamples, seed)
    return Equivalence(interval, bound, alpha)


def holm(p_values: Sequence[float], alpha: float = 1 - CONFIDENCE) -> list[bool]:
    """Holm's step-down correction: which of the hypotheses are rejected, keeping the chance of
    any false rejection among them at most ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - rank):
            break  # this one and every larger p-value stand
        rejected[i] = True
    return rejected


def corrected_confidence(comparisons: int, confidence: float = CONFIDENCE) -> float:
    """Bonferroni: the confidence of each of ``comparisons`` intervals so that all of them hold
    together with probability at least ``confidence`` (0.99 for five at 95%)."""
    if comparisons < 1:
        raise ValueError(f"comparisons must be >= 1, not {comparisons}")
    return 1 - (1 - confidence) / comparisons


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
