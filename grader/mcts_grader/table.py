"""grades.csv of an output folder: one row per submission graded there, this batch's and the
earlier ones', with the status of each run.

Grading again into the same ``--out`` merges: a submission graded again gets its new row (its
folder's results.json was replaced), every other submission keeps the row of its last grading.
The rows are made from the results.json files of the folder's submissions (the grader's own
files, read without following links), never from the old grades.csv, whose names a spreadsheet
escape has changed.  Rows are in the order of the submissions' names.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
from dataclasses import dataclass

from mcts_course.grading.report import (
    CONTROLS,
    Outcome,
    grades_csv,
    one_line,
    outcomes_of,
    spreadsheet_safe,
)

__all__ = ["Row", "csv_cell", "earlier_rows", "one_line", "table"]

RESULTS_CAP = 64 << 20  # bytes of one earlier results.json read back
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW


def csv_cell(text: str) -> str:
    """A cell of grades.csv: without control characters (an ESC byte would reach the terminal
    of whoever runs ``cat grades.csv``; a newline splits a row for line-based tools), then
    escaped if a spreadsheet would read it as a formula (after the stripping: a name such as
    ``"\\x01=cmd"`` must not become a formula once stripped)."""
    return spreadsheet_safe(CONTROLS.sub(_stripped, text))


def _stripped(match: re.Match[str]) -> str:
    return "\ufffd" if "\ud800" <= match.group() <= "\udfff" else ""


@dataclass
class Row:
    name: str
    status: str  # "graded", or how the run failed (batch.RUN_FAILURES)
    outcomes: list[Outcome]


def table(rows: list[Row]) -> str:
    """grades.csv: ``submission, status, score, max_score`` and the points of each exercise
    (the columns of :func:`~mcts_course.grading.report.grades_csv`, with the status second)."""
    rows = sorted(rows, key=lambda r: r.name)
    plain = list(csv.reader(io.StringIO(grades_csv([(r.name, r.outcomes) for r in rows]))))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for cells, status in zip(plain, ["status", *(r.status for r in rows)], strict=True):
        # grades_csv escaped the formulas it saw, csv_cell those a control byte hid
        writer.writerow([csv_cell(c) for c in [cells[0], status, *cells[1:]]])
    return out.getvalue()


def earlier_rows(out_fd: int, skip: set[str]) -> list[Row]:
    """The rows of the submissions graded into the folder ``out_fd`` before, but those named in
    ``skip`` (graded again now); a folder without a readable results.json is no submission."""
    rows = []
    for name in sorted(os.listdir(out_fd)):
        if name in skip:
            continue
        data = _results(out_fd, name)
        try:
            outcomes = outcomes_of(data or {})
        except (KeyError, ValueError, TypeError):
            continue  # not a results.json of this grader's
        if data is not None:
            extra = data.get("extra_data") or {}
            status = extra.get("status") or ("graded" if outcomes else "no tests")
            rows.append(Row(name, str(status), outcomes))
    return rows


def _results(out_fd: int, name: str) -> dict | None:
    try:
        folder = os.open(name, _DIR, dir_fd=out_fd)
    except OSError:
        return None  # a file (grades.csv), a link, or gone
    try:
        fd = os.open("results.json", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = json.loads(f.read(RESULTS_CAP))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(folder)
