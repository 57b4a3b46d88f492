"""`mcts-course perft GAME DEPTH`: count the leaves of the game tree from the start."""

from __future__ import annotations

import argparse

from mcts_course.commands import number
from mcts_course.games import GAMES
from mcts_course.games.perft import perft


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "perft",
        help="count the leaves of the game tree to a depth (checks move generation)",
        description="Print the number of leaves DEPTH plies below the start position. A pass is a "
        "ply, and a game that ends before DEPTH counts once as a leaf (Aart Bik's convention).",
    )
    parser.add_argument("game", choices=list(GAMES), metavar="GAME", help=", ".join(GAMES))
    parser.add_argument("depth", type=number(int, minimum=0), metavar="DEPTH")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(perft(GAMES[args.game](), args.depth))
    return 0
