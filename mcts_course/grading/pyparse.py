"""``ast.parse`` for the grader's threads, one at a time.

``mcts-course grade --jobs N`` grades submissions in threads, and each reads student code with
``ast``.  CPython 3.11 (3.11.7 here) can fail with "SystemError: AST constructor recursion
depth mismatch" when two threads build ASTs at the same moment: the parser's recursion counter
is shared interpreter state.  Parsing is a tiny part of grading, so a lock costs nothing.
"""

from __future__ import annotations

import ast
import codecs
import functools
import hashlib
import importlib.util
import io
import re
import threading
import tokenize
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_LOCK = threading.Lock()
# Levels of nesting of a syntax tree the grader's static checks read (ast.unparse and the
# checks recurse).  Python's parser builds deeper trees than they can walk back: a chain of 600
# attributes (`x.a.a...a = 1`) parses, then overflowed the grader's recursion (red team 16, 01
# and 03).  This repository's own code is at most 20 deep.
MAX_DEPTH = 100
# Characters of code the grader parses at most.  The parser, in the grader's own process
# (outside any sandbox or cgroup), needs up to about 480 bytes of memory per byte of source: a
# 2 MB notebook of one list literal took 1 GB (red team 23, 01).  The exercise files are about
# 10,000 characters; a file 25 times that is no one's answer.
PARSE_CAP = 256 << 10


def once_per_text(function: Callable[[str], T]) -> Callable[[str], T]:
    """``function`` of a student's text, its result kept by the text's sha256: every set and
    phase of a submission checks the same files beside its code, and parsed them again each
    time (red team 25, 05)."""
    kept: dict[bytes, T] = {}

    @functools.wraps(function)
    def once(text: str) -> T:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        if key not in kept:
            kept[key] = function(text)
        return kept[key]

    return once


class TooDeep(SyntaxError):
    """Code Python can run whose tree is deeper than :data:`MAX_DEPTH`: the grader's checks
    cannot read it, so it is not graded (never run unchecked)."""


class TooBig(TooDeep):
    """Code Python can run that is longer than :data:`PARSE_CAP`: the same (never run
    unchecked)."""


def depth(tree: ast.AST) -> int:
    """The number of levels of ``tree`` (iteratively: no recursion of its own)."""
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, level = todo.pop()
        deepest = max(deepest, level)
        todo.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, never in two threads at once.  Code the parser cannot hold
    (nested too deeply, too big, a NUL byte) raises SyntaxError like any unparsable file, so
    that every reader reports "could not be parsed" and no grader traceback reaches a
    student's feedback; a tree the parser holds but deeper than :data:`MAX_DEPTH` raises
    :class:`TooDeep`, code longer than :data:`PARSE_CAP` :class:`TooBig` (before parsing)."""
    if len(source) > PARSE_CAP:
        raise TooBig(
            f"{len(source) >> 10:,} KB of code, more than the {PARSE_CAP >> 10} KB the "
            "grader's checks read"
        )
    with _LOCK:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            raise
        except (RecursionError, MemoryError, ValueError) as error:
            raise SyntaxError(
                f"your file could not be parsed ({type(error).__name__}: nested too deeply "
                "or too big)"
            ) from None
    if depth(tree) > MAX_DEPTH:
        raise TooDeep(f"nested more than {MAX_DEPTH} levels deep")
    return tree


# The source encodings a submitted .py file may declare (a ``# coding:`` line): UTF-8 and the
# single-byte codecs that read every ASCII byte as itself.  Any other decoder runs in the
# grader's own process, before any sandbox: punycode's takes time growing with the square of
# the file (3.7 s for 160,000 characters, hours at the size caps), and utf-7's showed the
# unchanged stubs to every reader while Python ran a solution hidden in one comment (red team
# 57, 12 and 09)
READ_ENCODINGS = frozenset({"utf-8", "utf-8-sig", "ascii", "iso8859-1", "cp1252"})
ENCODING_REFUSED = "declares the source encoding"  # how a refusal's reason begins
# and that of a file with no such line whose first lines are not UTF-8 (Python refuses it too):
# a UTF-16 file, Windows Notepad's "Unicode", was told to delete a line it has not (red team 59,
# 28)
NOT_UTF8 = "is not UTF-8 text"
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)


def foreign_encoding(data: bytes) -> str | None:
    """Why a .py file's bytes are not read (its ``# coding:`` line names an encoding outside
    :data:`READ_ENCODINGS`, or one Python does not know), without the file's name; None when
    they are read.  Only the first two lines are looked at, as Python does."""
    try:  # (detect_encoding reads two lines at most)
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        name = codecs.lookup(declared).name
    except (SyntaxError, LookupError):
        declared, name = "", ""
    if name in READ_ENCODINGS:
        return None
    first = b"\n".join(data.removeprefix(codecs.BOM_UTF8).split(b"\n", 2)[:2])
    if not declared and not _COOKIE.search(first):
        utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        return (
            f"{NOT_UTF8}{' (it is UTF-16)' if utf16 else ''} on its first lines: the grader, "
            "like Python, reads .py files as UTF-8; save the file as UTF-8"
        )
    shown = f" {declared!r}" if declared else " in a way Python refuses"
    return (
        f"{ENCODING_REFUSED}{shown} on its first lines: the grader reads .py files as UTF-8 "
        "(or ASCII, Latin-1, cp1252) only; delete that line and save the file as UTF-8"
    )


def python_text(data: bytes) -> str:
    """A Python file's bytes as the text Python reads: a UTF-8 byte-order mark dropped, a
    coding cookie honoured, line ends made ``\\n`` (:func:`importlib.util.decode_source`, what
    the import system uses).  A file Python itself could not decode is decoded as UTF-8 with
    replacement characters, so that it fails later with the parser's message.  Decoding with
    plain UTF-8 kept the mark, which ``compile`` of a string refuses ("invalid non-printable
    character U+FEFF"): a valid file saved by a Windows editor scored 0 (red team 9's 05)."""
    if foreign_encoding(data) is not None:  # refused where the file is read (the snapshot)
        return data.decode("utf-8", errors="replace")
    try:
        return importlib.util.decode_source(data)
    except (SyntaxError, UnicodeError, LookupError):
        return data.decode("utf-8", errors="replace")
