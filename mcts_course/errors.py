"""Errors shared by the command line and its subcommands (a module of its own, so that the
subcommands never import :mod:`mcts_course.cli`, which imports them), and the one message for
a missing optional dependency."""

from __future__ import annotations

import importlib
from typing import Any


class UsageError(Exception):
    """A bad argument found after parsing (an unknown agent, say); exits with status 2."""


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def needs(module: str, extra: str) -> Any:
    """``module`` imported, or an ImportError that names the extra that installs it: the library
    requires numpy alone, and pictures, parallel matches and widgets are extras."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtra(
            f"{module} is needed here and is not installed: pip install 'mcts-course[{extra}]'"
        ) from error
