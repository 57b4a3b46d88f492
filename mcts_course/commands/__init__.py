"""Subcommands of the ``mcts-course`` command line, one module each."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import overload


@overload
def number(
    kind: type[int] = ..., minimum: float | None = None, positive: bool = False
) -> Callable[[str], int]: ...
@overload
def number(
    kind: type[float], minimum: float | None = None, positive: bool = False
) -> Callable[[str], float]: ...
def number(
    kind: type[int] | type[float] = int, minimum: float | None = None, positive: bool = False
) -> Callable[[str], float]:
    """An argparse ``type``: a number of ``kind`` (int or float), at least ``minimum``, or above
    zero with ``positive``; a bad value becomes argparse's one-line error."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None
        if positive and value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, not {text}")
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, not {text}")
        return value

    return parse
