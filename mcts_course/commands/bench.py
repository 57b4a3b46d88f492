"""Measure rollouts and MCTS iterations per second (vs OpenSpiel when installed).

`mcts-course bench`: rollout and MCTS throughput, side by side with OpenSpiel if installed.

Measure random-rollout throughput for each game (single-state and batched) and MCTS iterations per
second, side by side with OpenSpiel (pip install 'mcts-course[bench]') and a list-of-lists Othello.
Figures are medians over rounds.
"""

from __future__ import annotations

import argparse
import json

from mcts_course.commands import number, subcommand


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommand(subparsers, run)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument(
        "--rounds", type=number(int, positive=True), default=5, help="rounds (default 5)"
    )
    parser.add_argument(
        "--seconds",
        type=number(float, positive=True),
        default=1.0,
        help="seconds per measurement (default 1)",
    )


def run(args: argparse.Namespace) -> int:
    from mcts_course import bench

    results = bench.run(rounds=args.rounds, min_seconds=args.seconds)
    if args.json:
        print(json.dumps([m.as_dict() for m in results]))
    else:
        print(bench.format_table(results))
    return 0
