"""The mcts-course command line.

Each subcommand lives in its own module under :mod:`mcts_course.commands` and exposes
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` (taking the parsed
arguments, returning an exit status).  Bad arguments print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import entry_points
from typing import NoReturn

from mcts_course.errors import MissingExtra, UsageError

__all__ = ["COMMANDS", "UsageError", "build_parser", "main"]

# Subcommand modules, in the order `mcts-course --help` lists them.
COMMANDS = ["perft", "bench", "match", "play", "check", "train"]
# Commands other distributions add (the grader's `grade`), found by entry point, never imported
# by name: the library does not know the grader.
ENTRY_POINTS = "mcts_course.commands"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage block, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mcts-course", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"mcts_course.commands.{name}").add_parser(sub)
    plugged = set()
    for entry in entry_points(group=ENTRY_POINTS):
        try:
            entry.load().add_parser(sub)
        except ImportError:  # metadata left behind by an uninstalled distribution
            continue
        plugged.add(entry.name)
    if "grade" not in plugged:
        _moved(
            sub,
            "grade",
            "the grader is its own distribution: pip install ./grader (from a "
            "checkout of the course), then mcts-course grade ... or mcts-course-grade ...",
        )
    return parser


def _moved(sub: argparse._SubParsersAction[_Parser], name: str, message: str) -> None:
    """A command that left the library: one line saying where it went, exit status 2."""

    def refuse(args: argparse.Namespace) -> int:
        raise UsageError(message)

    parser = sub.add_parser(name, help=f"(not installed) {message}", add_help=False)
    parser.set_defaults(func=refuse, passes_options_on=True, pytest_args=[])


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # check and grade pass the options they do not know on to pytest (-x, -k, --exercise...)
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "passes_options_on", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if unknown:
        args.pytest_args = unknown
    try:
        return int(args.func(args) or 0)
    except (UsageError, MissingExtra) as error:
        from mcts_course.grading.report import one_line  # a message may quote a folder's name

        print(f"mcts-course {args.command}: error: {one_line(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or the grader's SIGTERM (its ``signum``)
        return 128 + int(getattr(stop, "signum", 2))
    except Exception as error:
        # The grader's refusal (it cannot confine student code, or the batch is not private):
        # the message is for the instructor, not a traceback; no grade was written.
        from mcts_course.grading.sandbox import SandboxError

        if not isinstance(error, SandboxError):
            raise
        from mcts_course.grading.report import one_line

        print(f"mcts-course {args.command}: refused: {one_line(str(error))}", file=sys.stderr)
        return 3
