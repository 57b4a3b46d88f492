"""grades.csv of an output folder: one row per submission graded there, this batch's and the
earlier ones', with the status of each run.

Grading again into the same ``--out`` merges: a submission graded again gets its new row (its
folder's results.json was replaced), every other submission keeps the row of its last grading.
The rows are made from the results.json files of the folder's submissions (the grader's own
files, read without following links), never from the old grades.csv, whose names a spreadsheet
escape has changed.  Rows are in the order of the submissions' names; the column ``source``
is the path each row was graded from, ``ascii_name`` a name with characters outside ASCII in
ASCII escapes (``\\u0430lice``: a Cyrillic a is no Latin a), empty for the others, and the
last, ``look_alike``, the other rows whose names read like this one's (:func:`look_alikes`);
the batch's summary lines show the same (:func:`labelled`).

The names (:func:`names_of`) are decided before anything is graded, from every name of the
batch and of the ``--out`` folder: a folder's name escaped (never stripped: ``\\x01bob`` is no
``bob``), capped in length, numbered ``NAME\\#2`` when two submissions share it (no escaped
name holds ``\\#``, so no student's folder can be named like a numbered one), and refused
when a name already in ``--out`` was graded from another path (unless asked to replace it) or
when two names differ only in case, Unicode form, spaces around them or a leading apostrophe
(a gradebook's look-up confuses them); names that only look alike are graded, and flagged.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import stat
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from mcts_course.errors import UsageError
from mcts_course.grading.confusables import DRAWN_LIKE
from mcts_course.grading.report import (
    Outcome,
    escaped_name,
    grades_csv,
    invisible,
    one_line,
    outcomes_of,
    spreadsheet_safe,
)

__all__ = [
    "Row",
    "ascii_name",
    "csv_cell",
    "earlier_rows",
    "graded_before",
    "labelled",
    "look_alikes",
    "names_of",
    "one_line",
    "table",
]

RESULTS_CAP = 64 << 20  # bytes of one earlier results.json read back
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW


RESERVED = ("grades.csv", "", ".", "..")  # names in the output folder that are not submissions
# grades.csv's columns beside the exercises': an exercise of that name would make two columns
# of one header, and a csv.DictReader keeps the last of the two
COLUMNS = ("submission", "status", "score", "max_score", "source", "ascii_name", "look_alike")
NAME_CAP = 200  # bytes of a shown name before its number (a Linux file name has 255 at most)
NUMBER = "\\#"  # between a name and its number: an escaped name never holds it


def csv_cell(text: str) -> str:
    """A cell of grades.csv: control and invisible characters escaped (an ESC byte would reach
    the terminal of whoever runs ``cat grades.csv``; a newline splits a row for line-based
    tools; a zero-width space makes two names look alike), then escaped if a spreadsheet would
    read it as a formula."""
    return spreadsheet_safe(one_line(text))


def ascii_name(name: str) -> str:
    """``name`` (a shown name: backslashes already doubled) with each character outside ASCII
    as its escape (``\\u0430lice``), or "" when it is all ASCII: two names that look alike
    (a Cyrillic ``а`` for a Latin ``a``, which neither case nor Unicode form tells apart) read
    differently there."""
    if name.isascii():
        return ""
    return name.encode("ascii", "backslashreplace").decode("ascii")


def scripts(name: str) -> list[str]:
    """The scripts of ``name``'s letters (the first word of each one's Unicode name: LATIN,
    CYRILLIC, GREEK...), in order of appearance."""
    found: dict[str, None] = {}
    for c in name:
        if c.isalpha():
            found[unicodedata.name(c, "UNKNOWN").split()[0]] = None
    return list(found)


def labelled(name: str, like: list[str] | tuple[str, ...] = ()) -> str:
    """A name as the batch's summary lines show it: on one line, with its :func:`ascii_name`
    beside it when it has one, flagged when its letters mix scripts (``аlice``: Cyrillic and
    Latin, the usual disguise of one name as another) and when it looks like other names of
    the batch or the output folder (``like``: :func:`look_alikes`)."""
    shown = one_line(name)
    escaped = ascii_name(shown)
    mixed = scripts(name)
    flags = [escaped] if escaped else []
    if escaped and len(mixed) > 1:
        flags.append(f"mixed scripts: {' and '.join(mixed)}")
    if like:
        flags.append("looks like " + " and ".join(f"'{n}'" for n in map(_ascii_or_own, like)))
    return f"{shown} [{', '.join(flags)}]" if flags else shown


def _ascii_or_own(name: str) -> str:
    return ascii_name(one_line(name)) or one_line(name)


def shown_name(path: str | Path) -> str:
    """The name of ``path``'s row and output folder before numbering: its own name
    (:func:`~mcts_course.grading.report.escaped_name`), cut to :data:`NAME_CAP` bytes with a
    short hash of the whole name when longer (a name of 255 bytes numbered would be too long
    for a folder)."""
    raw = Path(os.path.abspath(path)).name  # "." and "sub/.." have names too
    name = escaped_name(raw)
    if len(name.encode()) <= NAME_CAP:
        return name
    tag = "~" + hashlib.sha256(name.encode()).hexdigest()[:12]
    kept, size = [], len(tag)
    for token in map(escaped_name, raw):  # whole escapes: none is cut in two
        size += len(token.encode())
        if size > NAME_CAP:
            break
        kept.append(token)
    return "".join(kept) + tag


@dataclass
class Row:
    name: str
    status: str  # "graded", or how the run failed (batch.RUN_FAILURES)
    outcomes: list[Outcome]
    source: str = ""  # the path graded (empty for a row of a grader that did not record it)


def table(rows: list[Row]) -> str:
    """grades.csv: ``submission, status, score, max_score``, the points of each exercise (the
    columns of :func:`~mcts_course.grading.report.grades_csv`, with the status second), the
    ``source`` path of each row, its name's ``ascii_name`` and its ``look_alike`` rows; every
    cell escaped once (:func:`csv_cell`)."""
    rows = sorted(rows, key=lambda r: r.name)
    plain = grades_csv([(r.name, r.outcomes) for r in rows], cell=str)  # escaped here, once
    alike = look_alikes([r.name for r in rows])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    extra = [
        ("status", "source", "ascii_name", "look_alike"),
        *(
            (
                r.status,
                r.source,
                ascii_name(one_line(r.name)),
                " ".join(map(_ascii_or_own, alike.get(r.name, ()))),
            )
            for r in rows
        ),
    ]
    for cells, (status, source, plain_name, like) in zip(
        csv.reader(io.StringIO(plain)), extra, strict=True
    ):
        # the path's backslashes doubled as in a name, so that two paths are never shown alike
        cells = [cells[0], status, *cells[1:], escaped_name(source), plain_name, like]
        writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()


def earlier_rows(out_fd: int, skip: set[str]) -> list[Row]:
    """The rows of the submissions graded into the folder ``out_fd`` before, but those named in
    ``skip`` (graded again now); a folder without a results.json is no submission, one whose
    results.json cannot be read is a row ``not graded``."""
    rows = []
    for name in sorted(os.listdir(out_fd)):
        if name in skip:
            continue
        data = _results(out_fd, name)
        if data is None and _results(out_fd, name, strict=True) is not None:
            # a results.json that cannot be read back: its row says so, never vanishes
            print(f"warning: {one_line(name)}/results.json cannot be read", file=sys.stderr)
            rows.append(Row(name, "not graded", []))
            continue
        try:
            outcomes = outcomes_of(data or {})
        except (KeyError, ValueError, TypeError):
            continue  # not a results.json of this grader's
        if data is not None:
            extra = data.get("extra_data") or {}
            status = extra.get("status") or ("graded" if outcomes else "no tests")
            rows.append(Row(name, str(status), outcomes, str(extra.get("submission", ""))))
    return rows


def graded_before(out_dir: Path) -> dict[str, dict]:
    """``{name: extra_data}`` of each submission graded into ``out_dir`` before (none if there
    is no such folder yet, or it is no folder: the batch refuses it later)."""
    try:
        fd = os.open(out_dir, _DIR)
    except OSError:
        return {}
    try:
        found = {}
        for name in sorted(os.listdir(fd)):
            data = _results(fd, name)
            if data is None and _results(fd, name, strict=True) is not None:
                # a results.json that does not parse (a run killed mid-write, a full disk):
                # merged quietly, its row would vanish from grades.csv
                raise UsageError(
                    f"{one_line(str(out_dir / name / 'results.json'))} cannot be read as a "
                    "grader's results: restore it, or move that folder out of --out (its row "
                    "is lost), and grade again"
                )
            if data is not None:
                extra = data.get("extra_data")
                found[name] = extra if isinstance(extra, dict) else {}
        return found
    finally:
        os.close(fd)


def from_source(extra: dict, path: str) -> bool | None:
    """Whether a results.json's ``extra_data`` was graded from ``path`` (absolute); None when
    it does not say (a run that graded nothing, before the grader recorded its source)."""
    if "submission" in extra:
        return extra["submission"] == path
    files = [str(f) for f in (extra.get("files") or {}).values()]
    if not files:
        return None
    return any(f == path or os.path.dirname(f) == path for f in files)  # a file, or a folder


def names_of(
    paths: list[Path], before: dict[str, dict] | None = None, replace: bool = False
) -> list[str]:
    """The row and output folder name of each submission in ``paths``, decided from every name
    of the batch and of the output folder (``before``: :func:`graded_before`).

    A submission graded there before from the same path keeps its name; the first of each
    :func:`shown_name` takes it, unless the output folder holds that name graded from another
    path (UsageError, unless ``replace``); the others get ``NAME\\#2``, ``NAME\\#3``... (no
    name of the batch or of the folder, and a name no folder can be shown as).  Two names that
    differ only in case or Unicode form are refused (UsageError): a gradebook's look-up takes
    one for the other."""
    before = before or {}
    shown = [shown_name(p) for p in paths]
    sources = [os.path.abspath(p) for p in paths]
    names: list[str | None] = [None] * len(paths)
    used: set[str] = set()
    for i, source in enumerate(sources):  # graded here before: the same row again
        same = [n for n, extra in before.items() if n not in used and from_source(extra, source)]
        if same:
            names[i] = same[0]
            used.add(same[0])
    for i, name in enumerate(shown):
        if names[i] is not None or name in used or name in RESERVED:
            continue
        if name in before and from_source(before[name], sources[i]) is False and not replace:
            was = before[name].get("submission") or next(iter(before[name]["files"].values()))
            raise UsageError(
                f"{one_line(sources[i])}: its name '{name}' holds the grades of "
                f"{one_line(str(was))} in the output folder; give --replace to let it replace "
                "them, or grade into another --out"
            )
        names[i] = name
        used.add(name)
    taken = set(RESERVED) | set(before) | set(shown) | used
    for i, name in enumerate(shown):
        if names[i] is None:
            k = 2
            while f"{name}{NUMBER}{k}" in taken:
                k += 1
            names[i] = f"{name}{NUMBER}{k}"
            taken.add(names[i])
    final = [n for n in names if n is not None]
    _refuse_look_alikes(final, [n for n in before if n not in used])
    return final


# An escape of a shown name (:func:`~mcts_course.grading.report.escaped_name`), read back to
# the character it stands for; the number of a numbered name (``\\#2``) stays as it is.
_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[ntr])")


def _unescaped(name: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == "\\":
            return "\\"
        if len(code) == 1:
            return {"n": "\n", "t": "\t", "r": "\r"}[code]
        return chr(int(code[1:], 16))

    return _ESCAPE.sub(char, name)


def _same_key(name: str) -> str:
    """What a gradebook's look-up compares: case, Unicode form, white space around the name
    (``alice``, ``Alice``, ``alice\\xa0``, ``\\u3000alice``) and a leading apostrophe (a
    spreadsheet's text marker: ``'bob`` typed in a cell shows ``bob``) fold away."""
    text = unicodedata.normalize("NFKC", _unescaped(name)).casefold().strip()
    return text.lstrip("'").strip()


def skeleton(name: str) -> str:
    """``name`` as it looks (after UTS #39's "skeleton"): :func:`_same_key` of it with its
    invisible characters removed (``bob`` and a grapheme joiner read ``bob``) and each character
    that Unicode's confusables data draw like an ASCII letter or digit made that letter
    (:data:`~mcts_course.grading.confusables.DRAWN_LIKE`, made by ``scripts/make_confusables.py``:
    Cyrillic ``расо`` is ``paco``, ``bᴏb`` with a small capital O is ``bob``, ``ɑlice`` with a
    Latin alpha is ``alice``; ``I``, ``l`` and ``1`` are one letter)."""
    text = "".join(c for c in _unescaped(name) if not invisible(c))
    return _same_key(unicodedata.normalize("NFKC", text).translate(DRAWN_LIKE))


def look_alikes(names: list[str]) -> dict[str, list[str]]:
    """``{name: the other names that look like it}`` for each of ``names`` (shown names) whose
    :func:`skeleton` another has: two rows a reader takes for one student's."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        groups.setdefault(skeleton(name), []).append(name)
    return {
        name: [other for other in group if other != name]
        for group in groups.values()
        if len(group) > 1
        for name in group
    }


def _refuse_look_alikes(batch: list[str], kept: list[str]) -> None:
    """UsageError if a name of the batch and another name of the batch or of the rows kept
    differ only in case or Unicode form (``Bob`` and ``bob``, a full-width ``ｂｏｂ``), spaces
    around them or a leading apostrophe (:func:`_same_key`)."""
    seen: dict[str, str] = {}
    for name in [*batch, *kept]:
        key = _same_key(name)
        other = seen.setdefault(key, name)
        if other != name and (name in batch or other in batch):
            raise UsageError(
                f"the submissions '{other}' and '{name}' differ only in case or Unicode form, "
                "in spaces around them or in a leading apostrophe (a gradebook may take one "
                "for the other): rename one of the folders"
            )


def _results(out_fd: int, name: str, strict: bool = False) -> dict | None:
    """The results.json of the folder ``name``, or None: no such folder or file, a link, or
    (unless ``strict``: then ``{}`` stands for it) a file that is no grader's results."""
    try:
        folder = os.open(name, _DIR, dir_fd=out_fd)
    except OSError:
        return None  # a file (grades.csv), a link, or gone
    try:
        fd = os.open("results.json", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            raw = f.read(RESULTS_CAP)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(folder)
    try:
        data = json.loads(raw)
        if isinstance(data, dict):
            return data
    except ValueError:
        pass
    return {} if strict else None
