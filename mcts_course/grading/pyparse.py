"""``ast.parse`` for the grader's threads, one at a time.

``mcts-course grade --jobs N`` grades submissions in threads, and each reads student code with
``ast``.  CPython 3.11 (3.11.7 here) can fail with "SystemError: AST constructor recursion
depth mismatch" when two threads build ASTs at the same moment: the parser's recursion counter
is shared interpreter state.  Parsing is a tiny part of grading, so a lock costs nothing.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, never in two threads at once."""
    with _LOCK:
        return ast.parse(source)
