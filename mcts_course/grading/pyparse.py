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
    """``ast.parse(source)``, never in two threads at once.  Code the parser cannot hold
    (nested too deeply, too big, a NUL byte) raises SyntaxError like any unparsable file, so
    that every reader reports "could not be parsed" and no grader traceback reaches a
    student's feedback."""
    with _LOCK:
        try:
            return ast.parse(source)
        except SyntaxError:
            raise
        except (RecursionError, MemoryError, ValueError) as error:
            raise SyntaxError(
                f"your file could not be parsed ({type(error).__name__}: nested too deeply "
                "or too big)"
            ) from None
