"""`mcts-course perft GAME DEPTH`: count the leaves of the game tree from the start."""

from __future__ import annotations

import argparse

from mcts_course.games import GAMES
from mcts_course.games.perft import perft


def _depth(text: str) -> int:
    try:
        depth = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"DEPTH must be a whole number, not {text!r}") from None
    if depth < 0:
        raise argparse.ArgumentTypeError(f"DEPTH must be >= 0, not {depth}")
    return depth


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "perft",
        help="count the leaves of the game tree to a depth (checks move generation)",
        description="Print the number of leaves DEPTH plies below the start position. A pass is a "
        "ply, and a game that ends before DEPTH counts once as a leaf (Aart Bik's convention).",
    )
    parser.add_argument("game", choices=list(GAMES), metavar="GAME", help=", ".join(GAMES))
    parser.add_argument("depth", type=_depth, metavar="DEPTH")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(perft(GAMES[args.game](), args.depth))
    return 0
