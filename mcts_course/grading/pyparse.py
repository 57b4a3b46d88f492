"""``ast.parse`` for the grader's threads, one at a time.

``mcts-course grade --jobs N`` grades submissions in threads, and each reads student code with
``ast``.  CPython 3.11 (3.11.7 here) can fail with "SystemError: AST constructor recursion
depth mismatch" when two threads build ASTs at the same moment: the parser's recursion counter
is shared interpreter state.  Parsing is a tiny part of grading, so a lock costs nothing.
"""

from __future__ import annotations

import ast
import importlib.util
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


def python_text(data: bytes) -> str:
    """A Python file's bytes as the text Python reads: a UTF-8 byte-order mark dropped, a
    coding cookie honoured, line ends made ``\\n`` (:func:`importlib.util.decode_source`, what
    the import system uses).  A file Python itself could not decode is decoded as UTF-8 with
    replacement characters, so that it fails later with the parser's message.  Decoding with
    plain UTF-8 kept the mark, which ``compile`` of a string refuses ("invalid non-printable
    character U+FEFF"): a valid file saved by a Windows editor scored 0 (red team 9's 05)."""
    try:
        return importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")
