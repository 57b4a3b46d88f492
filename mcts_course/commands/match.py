"""Play a match between two agents and print the score with a 95% interval.

`mcts-course match GAME A B`: play a seeded match between two agents and print the score.

Play GAMES games between agents A and B, alternating who moves first, and print A's wins, draws,
losses and score (a draw counts half) with its Wilson 95% interval. Agents are specs such as
random, cellscore, minimax:depth=2, alphabeta:depth=4, montecarlo:playouts=20,policy=ucb1,
mcts:iterations=200,c=1.4. Every game is seeded from --seed and its number, so a match repeats
exactly, whatever --jobs (agents with time= excepted).
"""

from __future__ import annotations

import argparse
import json

from mcts_course.commands import add_game, add_progress, number, subcommand
from mcts_course.errors import UsageError
from mcts_course.games import GAMES


def _jobs(text: str) -> int:
    value = number(int)(text)
    if value == 0:
        raise argparse.ArgumentTypeError("0 jobs: use 1 (one process) or -1 (all cores)")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommand(subparsers, run)
    add_game(parser)
    parser.add_argument("agent_a", metavar="A", help="agent spec, e.g. mcts:iterations=200")
    parser.add_argument("agent_b", metavar="B", help="agent spec, e.g. random")
    parser.add_argument(
        "--games", type=number(int, minimum=1), default=20, help="number of games (20)"
    )
    parser.add_argument(
        "--seed", type=number(int, minimum=0), default=0, help="seed of the match (0)"
    )
    parser.add_argument(
        "--jobs", type=_jobs, default=1, help="parallel worker processes; -1 for all cores (1)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON line instead of the table"
    )
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    from mcts_course.agents import make_agent
    from mcts_course.arena import match

    try:
        agent_a = make_agent(args.agent_a, game=args.game)
        agent_b = make_agent(args.agent_b, game=args.game)
    except ValueError as error:
        raise UsageError(str(error)) from None
    result = match(
        GAMES[args.game],
        agent_a,
        agent_b,
        games=args.games,
        seed=args.seed,
        n_jobs=args.jobs,
        progress=args.progress,
    )
    if args.json:
        summary = result.as_dict()
        for per_game in ("a_player", "returns"):  # a summary line; the games are in the API
            summary.pop(per_game)
        print(json.dumps(summary))
    else:
        print(result)
    return 0
