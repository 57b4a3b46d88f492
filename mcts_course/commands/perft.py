"""Count the leaves of the game tree to a depth (checks move generation).

`mcts-course perft GAME DEPTH`: count the leaves of the game tree from the start.

Print the number of leaves DEPTH plies below the start position. A pass is a ply, and a game that
ends before DEPTH counts once as a leaf (Aart Bik's convention).
"""

from __future__ import annotations

import argparse

from mcts_course.commands import add_game, number, subcommand
from mcts_course.games import GAMES
from mcts_course.games.perft import perft


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommand(subparsers, run)
    add_game(parser)
    parser.add_argument("depth", type=number(int, minimum=0), metavar="DEPTH")


def run(args: argparse.Namespace) -> int:
    print(perft(GAMES[args.game](), args.depth))
    return 0
