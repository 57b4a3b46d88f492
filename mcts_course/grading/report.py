"""What a graded test leaves behind, and the files made of it: the points table, Gradescope's
results.json and grades.csv.

:class:`Outcome` is the one result type from a test to grades.csv: the pytest plugin makes one
per graded test, results.json is a list of them (Gradescope's format, with the status and the
student's seconds in ``extra_data``), and grades.csv is read back from the results.json files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcts_course.grading.clock import UNDER_LOAD
from mcts_course.grading.confusables import DRAWN_LIKE
from mcts_course.grading.sets import EXERCISES

HELD_BACK_TESTS = "held_back_tests"  # extra_data of a phase run: the held-back tests it collected
STATUSES = ("passed", "failed", "not run", "timed out", UNDER_LOAD, "crashed")


@dataclass
class Outcome:
    name: str  # the test's docstring (first line), else its function name
    exercise: str
    max_score: float
    score: float
    status: str  # one of STATUSES
    output: str  # the curated message (with the hint) or what the student's code printed
    visibility: str = "visible"
    test: str = ""  # the pytest node id
    seconds: float = 0.0  # the test's wall-clock time (set-up included)
    # the student's seconds of the test's time limit, and that limit (None: no student code
    # ran in the test): how close a submission, the reference too, came to being stopped
    student_seconds: float | None = None
    limit: float | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def as_json(self, number: int) -> dict[Any, Any]:
        return {
            "name": f"[{self.exercise}] {self.name}",
            "number": str(number),
            "score": float(self.score),
            "max_score": float(self.max_score),
            "status": "passed" if self.passed else "failed",
            "output": self.output,
            "output_format": "text",
            "visibility": self.visibility,
            "tags": [self.exercise],
            "extra_data": {
                "status": self.status,
                "test": self.test,
                "seconds": self.seconds,
                **(
                    {"student_seconds": self.student_seconds, "limit": self.limit}
                    if self.student_seconds is not None
                    else {}
                ),
            },
        }

    @classmethod
    def from_json(cls, data: dict[Any, Any]) -> Outcome:
        extra = data.get("extra_data") or {}
        # a test held back until the due date keeps its exercise where students never look
        (exercise,) = data["tags"] or [extra["exercise"]]
        name = data["name"].removeprefix(f"[{exercise}] ")
        return cls(
            name,
            exercise,
            float(data["max_score"]),
            float(data["score"]),
            extra.get("status", data.get("status", "failed")),
            data.get("output", ""),
            data.get("visibility", "visible"),
            extra.get("test", ""),
            float(extra.get("seconds", 0.0)),
            _number(extra.get("student_seconds")),
            _number(extra.get("limit")),
        )


def _number(value: Any) -> float | None:
    """A number of a results file's ``extra_data`` (None if absent or not a number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def by_exercise(outcomes: list[Outcome]) -> dict[str, tuple[float, float]]:
    """``{exercise: (points, most points)}`` in the order the exercises were met."""
    table: dict[str, tuple[float, float]] = {}
    for o in outcomes:
        got, most = table.get(o.exercise, (0.0, 0.0))
        table[o.exercise] = (got + o.score, most + o.max_score)
    return table


def points_table(outcomes: list[Outcome]) -> str:
    """Points per exercise (the shipped ones in the course's order) and in total."""
    table = by_exercise(outcomes)
    order = [e for e in EXERCISES if e in table] + [e for e in table if e not in EXERCISES]
    width = max([len(e) for e in order] + [8])
    lines = [f"{'exercise':<{width}}  points"]
    for e in order:
        got, most = table[e]
        lines.append(f"{e:<{width}}  {got:g} / {most:g}")
    score = sum(o.score for o in outcomes)
    most = sum(o.max_score for o in outcomes)
    lines.append(f"{'total':<{width}}  {score:g} / {most:g}")
    return "\n".join(lines)


def results_json(outcomes: list[Outcome], seconds: float) -> dict[Any, Any]:
    """Gradescope's results.json: one entry per test, the score their sum (always a float, so
    that every submission's file has the same types), the run's wall-clock time in whole
    seconds (rounded down: never more than the run took)."""
    return {
        "score": float(sum(o.score for o in outcomes)),
        "execution_time": int(seconds),
        "output": points_table(outcomes),
        "stdout_visibility": "hidden",
        "tests": [o.as_json(number) for number, o in enumerate(outcomes, 1)],
    }


HELPERS_NOTE = "files beside the exercise files that the graded code could import (read them too): "
HELPER_FILES = "helper_files"  # extra_data's list of their names (the note is built from it)
KILLED_NOTE = "a process running the submission was killed from outside the grader"
UNDER_LOAD_NOTE = (
    "{} test(s) stopped by the wall-clock backstop with little CPU used (the code waited, or "
    "the machine was overloaded): grade it again"
)


def helper_names(names: Iterable[str]) -> list[str]:
    """The names of the .py files beside the exercise files (:func:`runner.helper_files`) as
    results.json's ``extra_data.helper_files`` keeps them, sorted: each whole and escaped by
    :func:`escaped_name`, so that two files never show alike (a newline in one appended lines
    of its own to the feedback, red team 30, 04; a control byte and its escape typed out, or
    two names cut alike, made one entry of two files, red team 50, 01-02)."""
    return sorted({escaped_name(n) for n in names})


def helpers_note(names: Iterable[str]) -> str | None:
    """The note naming the files of :func:`helper_names` (``names``, as shown there): all of
    them (a few then a count let ten decoys that sort first hide the one that did the work,
    red team 49, 01), each quoted and cut as :func:`shown_name` does; at most 200 (the sandbox
    copies no more)."""
    shown = [_quoted(n) for n in sorted(set(names))]
    return HELPERS_NOTE + ", ".join(shown) if shown else None


def run_notes(
    choices: Iterable[str],
    helpers: str | None,
    killed_visible: bool,
    under_load: int,
    cut: list[str],
) -> list[str]:
    """The notes of a run's results.json (``extra_data.notes``, and the student's output): the
    choices of files made (sorted), the files beside them the code could import
    (:func:`helpers_note`), a visible process killed from outside, how many tests the
    wall-clock backstop stopped, and the copy limits that left files out (``cut``)."""
    notes = sorted(set(choices))
    if helpers:
        notes.append(helpers)
    if killed_visible:
        notes.append(KILLED_NOTE)
    if under_load:
        notes.append(UNDER_LOAD_NOTE.format(under_load))
    return notes + list(cut)


def merge_results(first: dict[Any, Any], second: dict[Any, Any]) -> dict[Any, Any]:
    """One results.json of a submission graded in two runs (``mcts-course grade``'s visible
    phase, ``first``, and its held-back phase, ``second``; see :mod:`mcts_grader.batch`), as
    one run would have written it: the tests of both in that order, numbered on, the score
    their sum, the first run's time (the visible part, as one run's ``execution_time`` is) and
    confinement, the flags of either run, the notes of both (:func:`run_notes`) and the points
    table of all the tests.  ``extra_data.status`` is left to the caller."""
    tests = list(first.get("tests") or [])
    tests += [
        {**t, "number": str(n)} for n, t in enumerate(second.get("tests") or [], len(tests) + 1)
    ]
    one, two = first.get("extra_data") or {}, second.get("extra_data") or {}
    # the first run's confinement and sweep counts (the visible processes': all the student
    # is told of them), the second's flags (a flag of either run is the submission's status)
    extra = {k: v for k, v in one.items() if k not in ("notes", "status")}
    for key in ("files", "killed_outside", "sweep_incomplete", "copy_cut", "refused_files"):
        if not one.get(key) and two.get(key):
            extra[key] = two[key]
    # the held-back tests the backstop stopped: neither their names (the instructor's words)
    # nor their number, only that there were some, as the status says (red team 21, 11)
    held = ["a held-back test"] if two.get("under_load") else []
    under_load = [*(one.get("under_load") or []), *held]
    if under_load:
        extra["under_load"] = under_load
    extra.pop(HELD_BACK_TESTS, None)
    cut = list(one.get("copy_cut") or two.get("copy_cut") or [])
    # the helper files from their list, not by reading the notes: a choice note begins with a
    # path the student names, which can begin as this note does (red team 49, 04)
    names = {*(one.get(HELPER_FILES) or []), *(two.get(HELPER_FILES) or [])}
    if names:
        extra[HELPER_FILES] = sorted(names)
    theirs = {helpers_note(one.get(HELPER_FILES) or []), helpers_note(two.get(HELPER_FILES) or [])}
    choices: set[str] = set()
    killed = False
    for note in [*(one.get("notes") or []), *(two.get("notes") or [])]:
        if note in theirs:
            continue
        elif note == KILLED_NOTE:
            killed = True
        elif note not in cut and note != UNDER_LOAD_NOTE.format(note.split(" ", 1)[0]):
            choices.add(note)
    notes = run_notes(choices, helpers_note(names), killed, len(under_load), cut)
    outcomes = [Outcome.from_json(t) for t in tests]
    data = {
        **second,
        **first,
        "score": float(sum(o.score for o in outcomes)),
        "output": points_table(outcomes) + "".join(f"\nNote: {note}" for note in notes),
        "tests": tests,
        "extra_data": extra,
    }
    if notes:
        extra["notes"] = notes
    else:
        extra.pop("notes", None)
    return data


def outcomes_of(results: dict[Any, Any]) -> list[Outcome]:
    return [Outcome.from_json(t) for t in results.get("tests", [])]


# Terminal control: C0 controls but tab and newline, DEL, C1 controls, and the escape sequences
# that start with ESC (colours, cursor moves, titles); a student's output may hold any of them.
_CONTROL = re.compile(
    r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as the text of a results.json: a lone surrogate (a file name's undecodable
    byte, ``\\udcff``) is written as its escape in the string, not as a JSON escape that a
    strict UTF-8 reader (Gradescope's, a spreadsheet's import) refuses."""
    return json.dumps(_whole_characters(data), indent=indent)


def _whole_characters(data: Any) -> Any:
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return data.encode("utf-8", "backslashreplace").decode("utf-8")
        return data
    if isinstance(data, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_whole_characters(v) for v in data]
    return data


def printable(text: str) -> str:
    """``text`` (a log, a test's message: lines a student's output may fill) without terminal
    control characters and escape sequences (tab, newline kept), and with each other
    :func:`invisible` character written as its escape, as :func:`one_line` writes it: a
    right-to-left override (U+202E) or an isolate would show the rest of a line reversed, a
    zero-width space hide a difference (red team 10's note N2)."""
    text = _CONTROL.sub("", text)
    if text.isascii():  # what is left of ASCII prints as itself: the common case, kept fast
        return text
    return _NOT_ASCII.sub(lambda m: _escape(m[0]) if invisible(m[0]) else m[0], text)


def _escape(char: str) -> str:
    """The escape of one character (``\\n``, ``\\x01``, ``\\u200b``, ``\\udcff``)."""
    code = ord(char)
    if char in "\n\t\r":
        return repr(char)[1:-1]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# Characters Unicode calls default-ignorable (shown as nothing when a font has no glyph for
# them) that str.isprintable() accepts: the ones it rejects (format characters such as the
# zero-width space, controls, unassigned code points) are escaped anyway.  Unicode's
# DerivedCoreProperties.txt, Default_Ignorable_Code_Point, less its Cf and Cn ranges: the
# variation selectors (found by their names, :func:`invisible`) and these.
IGNORABLE = frozenset(
    {
        "\u034f",  # COMBINING GRAPHEME JOINER
        "\u17b4",  # KHMER VOWEL INHERENT AQ
        "\u17b5",  # KHMER VOWEL INHERENT AA
    }
)
# Names of the characters drawn as a blank (fillers of the Hangul and Khitan scripts, the blank
# Braille pattern): a name "bob" followed by one reads "bob".
BLANK_NAMES = ("FILLER", "BRAILLE PATTERN BLANK")


def invisible(char: str) -> bool:
    """Whether ``char`` prints as nothing, or as a blank that is no space: what
    :meth:`str.isprintable` rejects, the default-ignorable characters it accepts
    (:data:`IGNORABLE`, the variation selectors) and the blank fillers (:data:`BLANK_NAMES`)."""
    if not char.isprintable():
        return True
    if char.isascii():
        return False
    name = unicodedata.name(char, "")
    return char in IGNORABLE or "VARIATION SELECTOR" in name or name.endswith(BLANK_NAMES)


def one_line(text: str) -> str:
    """``text`` (a submission's name, a path a student chose) printable on one terminal line:
    each :func:`invisible` character is written as its escape (``\\n``,
    ``\\x1b``, ``\\u200b``): controls (a newline cannot print a line of its own, nor an
    escape sequence move the cursor), invisible format characters (a zero-width space, a
    right-to-left override, a grapheme joiner, a Hangul filler), line separators and spaces
    other than the plain one, and the lone surrogates that stand for the bytes of a name that
    is not UTF-8 (os.listdir's)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(c) if invisible(c) else c for c in text)


def escaped_name(text: str) -> str:
    """A name a student chose as grades.csv and the output folder show it: :func:`one_line`
    with every backslash doubled, so that two names are never shown alike (``\\x01bob`` typed
    by a student is ``\\\\x01bob``, the control byte before ``bob`` is ``\\x01bob``), and the
    result holds no backslash that starts no escape."""
    return "".join("\\\\" if c == "\\" else _escape(c) if invisible(c) else c for c in text)


NAME_CAP = 300  # characters of a name or path a note shows (then a mark)


def shown_name(text: str) -> str:
    """A file name or path a student chose, as a note shows it: :func:`escaped_name` in double
    quotes (a quote in it as ``\\"``), so that two names never show alike, nor one as two in a
    list or as a note's own words (red team 50, 04 and 08); cut after :data:`NAME_CAP`
    characters with a mark that says so and how long it was.

    A name Unicode holds equal to another (``é`` and ``e`` with a combining acute,
    red team 51, 06) draws like it, and so does one with a letter of another script drawn like
    an ASCII one (Cyrillic ``с`` in ``ttt_mсts.py``, :data:`DRAWN_LIKE`): such a name (not in
    the composed form, NFC, that editors, terminals and copy-paste produce, or holding such a
    letter) is shown with every character beyond ASCII escaped, so the path an instructor
    types from a note is the file the note means."""
    if unicodedata.is_normalized("NFC", text) and not any(
        ord(c) in DRAWN_LIKE for c in text if not c.isascii()
    ):
        return _quoted(escaped_name(text))
    return _quoted(
        "".join(
            "\\\\" if c == "\\" else c if c.isascii() and c.isprintable() else _escape(c)
            for c in text
        )
    )


def _quoted(shown: str) -> str:
    inner = shown.replace('"', '\\"')
    if len(inner) <= NAME_CAP:
        return f'"{inner}"'
    # the start, the end and a hash of the whole: two names cut alike still show apart (red
    # team 51, 01 and 04)
    digest = hashlib.sha256(inner.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f'"{inner[: NAME_CAP - 60]}...{inner[-60:]}" ({len(inner)} characters; {digest})'


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as a formula


def spreadsheet_safe(text: str) -> str:
    """``text`` as a spreadsheet shows it, never runs it: a cell a student chose (a folder's
    name) that starts like a formula gets a leading apostrophe (OWASP's CSV-injection rule),
    and one that starts with an apostrophe gets a backslash before it, so that no two names
    give one cell (``-bob`` is ``'-bob``, ``'-bob`` is ``\\'-bob``; a spreadsheet that takes a
    leading apostrophe for a text marker would also show ``'bob`` as ``bob``).  Injective on
    :func:`escaped_name`'s names, whose backslashes are doubled or start an escape."""
    if text.startswith(FORMULA_STARTS):
        return "'" + text
    return "\\" + text if text.startswith("'") else text


def grades_csv(
    rows: list[tuple[str, list[Outcome]]], cell: Callable[[str], str] = spreadsheet_safe
) -> str:
    """``submission, score, max_score`` and the points of each exercise (the shipped ones, then
    any new exercise of the instructor's tests); one row per ``(name, outcomes)``; the names
    and columns written through ``cell`` (a caller that escapes the cells itself gives
    ``str``: the escape is not idempotent, since it is injective)."""
    extra = [o.exercise for _, outcomes in rows for o in outcomes if o.exercise not in EXERCISES]
    columns = list(EXERCISES) + list(dict.fromkeys(extra))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", *map(cell, columns)])
    for name, outcomes in rows:
        table = by_exercise(outcomes)
        writer.writerow(
            [
                cell(name),
                f"{sum(o.score for o in outcomes):g}",
                f"{sum(o.max_score for o in outcomes):g}",
                *(f"{table[e][0]:g}" if e in table else "" for e in columns),
            ]
        )
    return out.getvalue()


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
