"""Train a policy-value network by self-play (the shipped networks' recipe).

`mcts-course train GAME`: train a network by self-play, as the shipped one was trained.

Train the policy-value network of GAME by self-play with the configuration the shipped network
records (mcts_course/learn/data/GAME.json), write it as JSON to --out and its training log (one row
per generation) beside it as CSV.  With the default seed and games it remakes the shipped file
(same numpy, same machine).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mcts_course.commands import add_progress, number, subcommand
from mcts_course.errors import UsageError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from mcts_course.learn.train import CONFIGS

    games = ", ".join(CONFIGS)
    parser = subcommand(subparsers, run)
    parser.add_argument("game", metavar="GAME", help=games)
    parser.add_argument(
        "--seed",
        type=number(int, minimum=0),
        default=None,
        help="seed of the run (default: the shipped network's)",
    )
    parser.add_argument(
        "--games",
        type=number(int, minimum=1),
        default=None,
        help="self-play games in all, in whole generations (default: the shipped network's)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the network file (default: GAME.json here); the log goes to the same name with .csv",
    )
    parser.add_argument(
        "--jobs", type=number(int, minimum=1), default=2, help="parallel self-play processes (2)"
    )
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import os
    import sys

    # One BLAS thread: the gradient steps' matrices are small, and on a busy machine OpenBLAS's
    # threads wait for each other (25 times slower measured); also one summation order, so
    # that a run is remade bit for bit.  Set before numpy is first imported (the CLI does not).
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

    from mcts_course.games import GAMES
    from mcts_course.learn.train import CONFIGS, network_json, train, write_log

    if args.game not in CONFIGS:
        raise UsageError(
            f"no training recipe for {args.game!r}; choose one of: {', '.join(CONFIGS)}"
        )
    game = GAMES[args.game]
    config = CONFIGS[args.game]
    if args.seed is not None:
        config = dataclasses.replace(config, seed=args.seed)
    if args.games is not None:
        if args.games < config.games:
            config = dataclasses.replace(config, generations=1, games=args.games)
        else:
            config = dataclasses.replace(config, generations=args.games // config.games)
    out = args.out if args.out is not None else Path(f"{args.game}.json")
    if out.suffix != ".json":
        raise UsageError(f"--out must name a .json file, not {str(out)!r}")
    if not out.resolve().parent.is_dir():
        raise UsageError(f"no folder {str(out.resolve().parent)!r} to write {out.name} in")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    net, log = train(game, config, n_jobs=args.jobs, progress=progress)
    out.write_text(network_json(net, game, config))
    write_log(log, out.with_suffix(".csv"))
    last = log[-1]
    print(
        f"{game.NAME}: {last.games} self-play games in {last.seconds:.0f} s, final loss "
        f"{last.loss:.3f}; wrote {out} and {out.with_suffix('.csv')}"
    )
    return 0
