"""Exact paired comparisons over a few positions: every sign flip, not a bootstrap.

With some twenty positions a percentile bootstrap under-covers at the extreme levels a
correction asks for (99.2%, 99.6%): its resamples can only re-weight the positions there are.
The sign-flip (permutation) test needs no such approximation.  If the two players are equally
good, each position's difference is as likely to have either sign, so the observed mean is
compared with the means of all ``2**n`` sign patterns: the p-value is exact.  Inverting the test
gives the interval: the shifts ``delta`` for which "the mean difference is ``delta``" is not
rejected, found by bisection on each side of the observed mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from mcts_course.stats import CONFIDENCE

MAX_POSITIONS = 40  # 2**40 sign patterns, counted half against half (2**20 sums a side)


@cache
def _signs(n: int) -> np.ndarray:
    """All 2**n patterns of +1/-1 over n positions, one per row."""
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    return (1 - 2 * bits).astype(np.float64)


def exact_p_value(differences: Sequence[float] | np.ndarray) -> float:
    """Two-sided p-value of "the mean paired difference is 0" over every sign pattern.

    A pattern's sum is a sum from the first half of the positions plus one from the second, so
    the patterns whose |sum| reaches the observed one are counted half against half (sorted
    sums and a binary search) instead of one by one."""
    d = np.asarray(differences, dtype=float)
    if not 0 < len(d) <= MAX_POSITIONS:
        raise ValueError(f"between 1 and {MAX_POSITIONS} positions, not {len(d)}")
    observed = abs(d.sum()) - 1e-9  # the observed pattern is one of those counted
    half = len(d) // 2
    first = _signs(half) @ d[:half] if half else np.zeros(1)
    second = np.sort(_signs(len(d) - half) @ d[half:])
    at_least = len(second) - np.searchsorted(second, observed - first, side="left")
    at_most = np.searchsorted(second, -observed - first, side="right")
    extreme = np.minimum(at_least + at_most, len(second))  # observed 0: every pattern counts
    return float(extreme.sum() / (len(first) * len(second)))


def sign_test_p(plus: int, minus: int) -> float:
    """The exact two-sided sign test: ``plus`` units went one way, ``minus`` the other (units
    with no difference left out), and under "no difference" each went either way with chance
    1/2.  For differences that are all +1 or -1 (paired 0/1 results, or games won and lost)
    this is the sign-flip test counted over every pattern, computed from the binomial tail."""
    if plus < 0 or minus < 0:
        raise ValueError("counts are not negative")
    n, k = plus + minus, min(plus, minus)
    if n == 0:
        return 1.0
    return float(min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n))


@dataclass(frozen=True)
class ExactDifference:
    """mean(a) - mean(b) over the positions, the exact p-value of "no difference" and the
    interval that inverts the test at ``confidence``."""

    difference: float
    low: float
    high: float
    p_value: float
    positions: int
    confidence: float

    @property
    def largest(self) -> float:
        """The largest difference, either way, that the interval leaves possible."""
        return max(abs(self.low), abs(self.high))


def _edge(d: np.ndarray, inside: float, outside: float, alpha: float) -> float:
    """Bisection for the shift where the test at ``alpha`` starts to reject, between a shift
    it does not reject (``inside``) and one it does (``outside``)."""
    for _ in range(20):  # a millionth of a grid step: far below any printed digit
        middle = (inside + outside) / 2
        if exact_p_value(d - middle) > alpha:
            inside = middle
        else:
            outside = middle
    return inside


GRID = 1 / 600  # the step of the scan for kept shifts: a sixth of a point on a 0-1 share


def _kept_shifts(d: np.ndarray, alpha: float) -> tuple[float, float]:
    """The smallest and largest shift the test keeps.  With tied values (shares in sixths, many
    zero differences) the p-value jumps as a shift crosses a tie, so the kept shifts need not
    form one stretch: a scan on a fine grid, with 0 and the observed mean among the points,
    finds the outermost kept ones, and bisection sharpens both ends.  The interval is the hull
    of the kept shifts, so it holds zero whenever the test at zero does not reject."""
    mean = float(d.mean())
    span = float(np.abs(d).max()) + 1.0  # beyond it, all signs alike: rejected (checked)
    grid = np.concatenate([np.arange(mean - span, mean + span + GRID, GRID), [0.0, mean]])
    kept = np.sort([x for x in grid if exact_p_value(d - x) > alpha])
    low, high = float(kept[0]), float(kept[-1])
    return _edge(d, low, low - GRID, alpha), _edge(d, high, high + GRID, alpha)


def exact_difference(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> ExactDifference:
    """The paired sign-flip test of mean(a - b) = 0 over the positions, and its interval."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if len(a) != len(b) or len(d) == 0:
        raise ValueError("one result of each side per position, and at least one position")
    alpha = 1 - confidence
    mean = float(d.mean())
    if 2 / 2 ** len(d) > alpha:  # even all signs alike is not rare enough to reject
        raise ValueError(f"{len(d)} positions cannot give an interval at {confidence:.2%}")
    low, high = _kept_shifts(d, alpha)
    return ExactDifference(mean, low, high, exact_p_value(d), len(d), confidence)
