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

from typing import Any


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
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        return value
    myst_glue(name, value, display=False)
    return value
