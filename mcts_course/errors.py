"""Errors shared by the command line and its subcommands (a module of its own, so that the
subcommands never import :mod:`mcts_course.cli`, which imports them)."""


class UsageError(Exception):
    """A bad argument found after parsing (an unknown agent, say); exits with status 2."""
