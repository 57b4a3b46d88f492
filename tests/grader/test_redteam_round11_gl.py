"""Red team round 11, helper GL's items: nothing the process answering the held-back tests does
reaches the text a student sees: the helper files it imports (02), the names of the files the
no-namespace sweep removes (01 B1); and no datagram leaves a student's process for another
local user's abstract socket through a socketpair end (01 A)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main

SECRET = [3, 5, 7]  # the hidden test's counts: what the submissions below try to carry out

HIDDEN = f"""import pytest


@pytest.mark.points(2, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret_arm(student):
    assert student.ucb1_choice({SECRET}, [1.25, 3.3137, 4.0], 0.0) == 1


@pytest.mark.points(1, exercise="bandits_later", exercise_set="bandits",
                    visibility="after_due_date")
def test_later_arm(student):
    assert student.ucb1_choice([4, 4], [2.7182, 1.0], 0.0) == 0
"""


def _hidden_tests(tmp_path: Path) -> Path:
    folder = tmp_path / "hidden"
    folder.mkdir()
    (folder / "test_secret.py").write_text(HIDDEN)
    return folder


def _grade(sub: Path, tmp_path: Path) -> tuple[dict, str, str]:
    """Grade ``sub`` (its ucb1 tests and the hidden ones): its results.json, the file's text
    and its pytest.log."""
    out = tmp_path / "out"
    tests = _hidden_tests(tmp_path)
    args = ["grade", str(sub), "--out", str(out), "--tests", str(tests)]
    main([*args, "--exercise-set=bandits", "-k", "ucb1 or secret or later"])
    text = (out / sub.name / "results.json").read_text()
    return json.loads(text), text, (out / sub.name / "pytest.log").read_text()


# -- 02: which helpers the held-back tests' process imports ---------------------------------
HELPER_CHANNEL = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer; on the hidden counts, a helper named after them is imported."""
    if list(counts) == [3, 5, 7]:
        import zheld_3_5_7  # noqa: F401
    elif list(counts) == [4, 4]:
        import zheld_4_4  # noqa: F401
    else:
        import zvisible  # noqa: F401
    return _reference_ucb1(counts, sums, c)
'''


@pytest.mark.parametrize("mode", ["namespaces", "no-namespaces"])
def test_helpers_imported_by_the_held_back_process_are_not_named(tmp_path, mode, monkeypatch):
    if mode == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    sub = tmp_path / "mallory"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + HELPER_CHANNEL)
    for name in ("zheld_3_5_7", "zheld_4_4", "zvisible"):
        (sub / f"{name}.py").write_text("")
    data, text, log = _grade(sub, tmp_path)
    held = [t for t in data["tests"] if t["visibility"] != "visible"]
    assert len(held) == 2 and all(t["score"] == t["max_score"] for t in held), data["tests"]
    # the honest helper, imported while answering visible tests, is still noted ...
    assert "helper files imported: zvisible.py" in data["output"], data["output"]
    assert "zvisible.py" in " ".join(data["extra_data"]["notes"])
    # ... the held-back process's are named nowhere the student reads
    assert "zheld" not in text
    assert "zheld" not in log
