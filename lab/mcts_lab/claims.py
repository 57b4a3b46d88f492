"""What the chapters need to keep their prose true: ``claim`` and ``glue``.

The prose of a chapter is written by hand.  Numbers inside its sentences are glued from the
cell that computed them (``{glue:text}`name:.1%``` in the Markdown), and every qualitative
statement the prose makes about the data ("MCTS beats flat Monte Carlo at 1,000 playouts") is
asserted next to the data, in a hidden cell::

    claim(result.interval[0] > 0.5, "MCTS beats flat Monte Carlo at 1,000 playouts")

A claim the data contradict stops the build with the claim's words, so a rerun with other seeds,
more games or a changed engine cannot leave a false sentence in the book.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mcts_course.stats import CONFIDENCE, equivalence, holm, paired_interval

# The book's one policy for "no difference" (chapter "How the book measures"): fixed before
# any run, on the scale of the measure (a share of best moves, a mistake rate, a score).
EQUIVALENCE_BOUND = 0.05  # two methods or settings "play equally well"
# A difference "small next to" an effect of the same measure, measured beside it: its interval
# lies within half the effect's lower confidence limit (so 9.9 points is never small next to 10.1).
BESIDE_FRACTION = 0.5


class ClaimFailed(AssertionError):
    """A sentence of the book that its data contradict."""


def claim(condition: bool, words: str) -> None:
    """Stop the build with ``words`` unless ``condition`` holds.

    ``condition`` is computed from the data shown beside the sentence; ``words`` repeat the
    sentence's claim, so the build log says which sentence is now false.
    """
    if not isinstance(condition, bool) and type(condition).__name__ not in ("bool_", "bool"):
        # (numpy's bool is named "bool_" before numpy 2, "bool" since)
        # A truthy object (a non-empty list, a result) is almost always a mistake in the check.
        raise TypeError(f"claim needs a bool, got {type(condition).__name__}: {words!r}")
    if not condition:
        raise ClaimFailed(f"the data contradict the claim: {words}")


def glue(name: str, value: Any) -> Any:
    """Make ``value`` available to the prose as ``{glue:text}`name``` (myst-nb), and return it.

    Outside a book build (Colab, a plain Jupyter kernel) myst-nb may be missing: the value is
    then only returned, and the reader sees the number in the cell that computed it.
    """
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()  # a numpy scalar: myst-nb formats Python numbers, not np.float64
    if isinstance(value, float) and math.isfinite(value):
        # One decimal number reached by two computations (19/400, and 1 - 381/400) can differ in
        # its last binary digit and then round differently when printed (4.7% and 4.8%): keep 12
        # significant digits, so that equal numbers print alike.
        value = float(f"{value:.12g}")
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        return value
    myst_glue(name, value, display=False)
    return value


def points(share: float) -> float:
    """A share (or a difference of shares) in percentage points, rounded to one decimal exactly
    as a table prints the share with ``.1%``: 0.0075 is 0.8 there, where ``100 * 0.0075`` printed
    with ``.1f`` could give 0.7 (the product is rounded in binary), and prose and table disagree."""
    return float(format(share, ".1%")[:-1])


# -- claims that need statistics (book chapter "How the book measures") ------------------------
# Each computes its interval from the units shown beside the sentence, stops the build when the
# data do not support the sentence, and returns what it computed so the prose can glue it.


def claim_better(
    a: Sequence[float],
    b: Sequence[float],
    words: str,
    *,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float]:
    """``a`` beats ``b`` on the same units (positions, games): the paired bootstrap interval of
    mean(a - b) lies above 0.  Returns the interval."""
    interval = paired_interval(a, b, confidence, seed=seed)
    claim(
        bool(interval[0] > 0), f"{words} (paired interval {interval[0]:+.3g} to {interval[1]:+.3g})"
    )
    return interval


def claim_equivalent(
    a: Sequence[float], b: Sequence[float], bound: float, words: str, *, seed: int = 0
) -> tuple[float, float]:
    """No difference that matters between ``a`` and ``b``: TOST at 5%, i.e. the 90% paired
    bootstrap interval of mean(a - b) lies inside (-bound, bound), a bound stated in the prose.
    A test that merely fails to reject is never enough for "no difference".  Returns the
    interval."""
    test = equivalence(a, b, bound, seed=seed)
    low, high = test.interval
    claim(test.equivalent, f"{words} (90% interval {low:+.3g} to {high:+.3g}, bound ±{bound:g})")
    return test.interval


def claim_within(interval: tuple[float, float], bound: float, words: str) -> None:
    """Equivalence from an interval already computed (at 1 - 2 alpha, e.g. 90% for TOST at 5%):
    it lies inside (-bound, bound)."""
    claim(
        bool(-bound < interval[0] and interval[1] < bound),
        f"{words} (interval {interval[0]:+.3g} to {interval[1]:+.3g}, bound ±{bound:g})",
    )


def claim_small_beside(
    interval: tuple[float, float], effect: tuple[float, float], words: str
) -> float:
    """A difference "small next to" an effect measured beside it: the effect's interval lies
    above 0, and ``interval`` (the difference's, at the level its section uses) lies inside
    ±``BESIDE_FRACTION`` times the effect's lower limit.  Returns that bound."""
    claim(
        bool(effect[0] > 0), f"{words} (the effect's interval {effect[0]:+.3g} to {effect[1]:+.3g})"
    )
    bound = BESIDE_FRACTION * effect[0]
    claim_within(interval, bound, f"{words} (half the effect's lower limit {effect[0]:.3g})")
    return bound


def claim_scan(p_values: Mapping[Any, float], expected: Mapping[Any, bool], words: str) -> None:
    """A scan over budgets (or settings): Holm's correction at 5% over all of ``p_values``
    rejects exactly the hypotheses ``expected`` names True; a claim about one budget of a scan is
    never judged at the uncorrected level."""
    keys = list(p_values)
    rejected = dict(zip(keys, holm([p_values[k] for k in keys]), strict=True))
    claim(rejected == dict(expected), f"{words} (Holm-corrected rejections {rejected})")
