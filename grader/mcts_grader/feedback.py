"""What a student may see of a results.json, and when.

Gradescope shows each entry of ``tests`` by its own ``visibility`` (``after_due_date``: once the
due date has passed), but the top-level ``output`` at once: a points table there, made of every
test, would show before the date the points of the instructor's hidden tests.  So the top-level
output is made here of the tests a student may see at the time of grading, and says how many
points the others are worth, never which.  The due date comes from Gradescope's
``submission_metadata.json`` (the latest of ``assignment.due_date``, its ``late_due_date`` and a
student's extension, :func:`due_date_of`) or from ``grade --due``; without one,
the date is taken as not passed (nothing held back is shown early).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from mcts_course.errors import UsageError
from mcts_course.grading.report import outcomes_of, points_table

METADATA = "/autograder/submission_metadata.json"  # Gradescope's, beside the submission


def parse_date(text: str, zone: tzinfo | None = None) -> datetime:
    """An ISO 8601 date and time with its time zone; one without a zone takes ``zone`` (the
    zone of Gradescope's due date), or is refused: a due date read in the wrong zone shows the
    hidden tests hours early."""
    if not text.strip():
        raise UsageError("--due is empty: give the due date, e.g. 2026-12-01T23:59+01:00")
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"not a date: {text!r} (write e.g. 2026-12-01T23:59+01:00)") from None
    if when.tzinfo is not None:
        return when
    if zone is None:
        raise UsageError(
            f"the due date {text!r} has no time zone: add a zone, e.g. 2026-12-01T23:59+01:00 "
            "(or 2026-12-01T23:59Z for UTC)"
        )
    return when.replace(tzinfo=zone)


def metadata_path() -> Path:
    """Gradescope's submission metadata: ``$MCTS_GRADESCOPE_METADATA``, else
    ``$AUTOGRADER_ROOT/submission_metadata.json``, else :data:`METADATA`."""
    given = os.environ.get("MCTS_GRADESCOPE_METADATA")
    if given:
        return Path(given)
    root = os.environ.get("AUTOGRADER_ROOT")
    return Path(root) / "submission_metadata.json" if root else Path(METADATA)


def close_metadata(path: Path) -> bool:
    """As root, once the grader has read it: make the metadata readable by root alone (mode
    0600), before any student code runs.  It holds the group's names and e-mails and the
    results.json of every earlier submission (held-back tests included), and the student's
    user id, without namespaces, could read it.  Never follows a link; True if closed."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return True


def due_date_of(metadata: str | Path) -> datetime | None:
    """When held-back tests may be shown, from Gradescope's submission metadata: the last
    moment the student may still submit, the latest of the assignment's ``due_date`` and
    ``late_due_date`` and of each group member's own (``users[].assignment``: an extension).
    Shown after the due date alone, a hidden test's message (its inputs and expected answer)
    would reach a late submission in time to be resubmitted (red team 15, 10).  None (nothing
    held back is shown): no file, no due date in it, or any of these dates unreadable or
    without a zone."""
    try:
        data = json.loads(Path(metadata).read_text(encoding="utf-8"))
        assignments = [data["assignment"]]
        assignments += [
            user["assignment"] for user in data.get("users") or [] if "assignment" in user
        ]
        dates = [
            parse_date(str(assignment[key]))
            for assignment in assignments
            for key in ("due_date", "late_due_date")
            if assignment.get(key) is not None
        ]
        if data["assignment"].get("due_date") is None:
            return None
        return max(dates)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UsageError):
        return None


def shown(visibility: str, now: datetime, due: datetime | None) -> bool:
    """Whether a student sees a test of this visibility at ``now``.  ``hidden`` never;
    ``after_published`` not before the instructor publishes, which no clock knows."""
    if visibility == "visible":
        return True
    return visibility == "after_due_date" and due is not None and now >= due


def student_output(data: dict[str, Any], now: datetime, due: datetime | None) -> str:
    """The top-level output of ``data`` (a results.json) for a student at ``now``: the points
    of the tests they see, and only the sum of the others'."""
    outcomes = outcomes_of(data)
    seen = [o for o in outcomes if shown(o.visibility, now, due)]
    text = points_table(seen) if seen else "no test result is shown yet"
    held = [o for o in outcomes if not shown(o.visibility, now, due)]
    later = sum(o.max_score for o in held if o.visibility == "after_due_date")
    never = sum(o.max_score for o in held if o.visibility != "after_due_date")
    if later:
        text += f"\n(tests worth {later:g} more points are shown after the due date)"
    if never:
        text += f"\n(tests worth {never:g} more points are not shown)"
    notes = (data.get("extra_data") or {}).get("notes") or []  # e.g. which file was graded
    text += "".join(f"\nNote: {note}" for note in notes if isinstance(note, str))
    return text


HELD_BACK = "a held-back test"  # the name of an after_due_date or hidden test's entry


def held_back(test: dict[str, Any]) -> dict[str, Any]:
    """The entry of ``test`` (a results.json test) that a student may see before it is shown:
    its points (they count in the score), nothing of its name, exercise, output or hints.  The
    exercise stays in ``extra_data``, which Gradescope stores and never shows, for grades.csv."""
    (exercise,) = test.get("tags") or ["?"]
    return {
        "name": HELD_BACK,
        "number": test.get("number", ""),
        "score": test.get("score", 0.0),
        "max_score": test.get("max_score", 0.0),
        "output": "",
        "visibility": test.get("visibility", "after_due_date"),
        "tags": [],
        "extra_data": {"exercise": exercise, "status": "held back"},
    }


def with_student_output(
    data: dict[str, Any], now: datetime | None = None, due: datetime | None = None
) -> dict[str, Any]:
    """``data`` as a student may see it at ``now`` (default: the clock): the top-level output
    limited to the tests they see, and each test not shown yet (``after_due_date`` before the
    date, ``hidden`` and ``after_published`` always: no clock knows when grades are published)
    reduced to its points (:func:`held_back`): Gradescope hides such tests by their visibility,
    but nothing of them is written where a setting could show it early (red team 21, 10)."""
    if not data.get("tests"):
        return data  # a run that graded nothing: its output says why, and names no test
    now = now or datetime.now(timezone.utc)
    tests = [
        held_back(t) if not shown(t.get("visibility", "visible"), now, due) else t
        for t in data["tests"]
    ]
    return {**data, "output": student_output(data, now, due), "tests": tests}
