"""Paired comparisons over positions: the position is the unit, the interval a bootstrap.

Two agents (or one agent at two budgets) decide the same positions; each position gives a pair
of results, and the difference of the two means is what is compared.  Resampling whole
positions keeps each pair together, so what two searches share on one position (how hard it
is) cancels instead of counting as independent evidence twice.  When several comparisons are
read from one experiment (a scan over budgets), :func:`corrected` widens each interval so that
the chance of any false finding among them stays at most 5% (Bonferroni).

These helpers live in the laboratory for the MCTS-experiments chapter; ``mcts_course.stats``
keeps the library's single-sample rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mcts_course.stats import CONFIDENCE, corrected_confidence

BOOTSTRAP_SAMPLES = 4000


# The chapters' short name for the library's Bonferroni rule (one home: mcts_course.stats).
corrected = corrected_confidence


@dataclass(frozen=True)
class PairedDifference:
    """mean(a) - mean(b) over the positions, with a bootstrap interval over positions."""

    difference: float
    low: float
    high: float
    positions: int
    confidence: float

    def within(self, bound: float) -> bool:
        """Equivalence: the whole interval lies inside (-bound, bound)."""
        return -bound < self.low and self.high < bound

    @property
    def largest(self) -> float:
        """The largest difference, either way, that the interval leaves possible."""
        return max(abs(self.low), abs(self.high))


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    confidence: float = CONFIDENCE,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> PairedDifference:
    """The percentile bootstrap of mean(a - b), resampling positions (pairs stay together)."""
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if len(diffs) == 0 or len(a) != len(b):
        raise ValueError("one result of each side per position, and at least one position")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(diffs), size=(samples, len(diffs)))
    means = diffs[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return PairedDifference(float(diffs.mean()), float(low), float(high), len(diffs), confidence)
