"""Subcommands of the ``mcts-course`` command line, one module each."""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Callable
from typing import overload

from mcts_course.games import GAMES


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


def subcommand(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    run: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    """Register the subcommand that ``run`` runs, named after run's module (``commands.match``
    is ``match``).  The module's docstring is its help: the first line in the command list
    (without its full stop), the last paragraph in the command's own --help."""
    doc = inspect.cleandoc(sys.modules[run.__module__].__doc__ or "")
    summary = doc.splitlines()[0].rstrip(".")
    parser: argparse.ArgumentParser = subparsers.add_parser(
        run.__module__.rpartition(".")[2],
        help=summary[0].lower() + summary[1:].replace("%", "%%"),
        description=" ".join(doc.split("\n\n")[-1].split()),
    )
    parser.set_defaults(func=run)
    return parser


def add_game(parser: argparse.ArgumentParser) -> None:
    """The GAME positional argument: one of the registered games."""
    parser.add_argument("game", choices=list(GAMES), metavar="GAME", help=", ".join(GAMES))


def add_progress(parser: argparse.ArgumentParser) -> None:
    """--progress / --no-progress; ``args.progress`` is None (a bar only on a terminal) unless
    one of them is given."""
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show a progress bar (default: only on a terminal)",
    )
    bar.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show a progress bar"
    )
