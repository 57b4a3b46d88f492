"""Red team round 31: ``grade`` hid its own copy of the instructor's hidden tests from the
student's process, but not the folder it was given: under a path every sandbox shows (``/usr``,
the interpreter's prefix; a Docker image's ``/usr/src/app/hidden``), every student's code read
the hidden tests and their data and printed them in a visible test's feedback (09)."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from pathlib import Path

import pytest
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

HIDDEN = '''
import pytest


@pytest.mark.points(1, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret(student):
    """a hidden test"""
    assert student.ucb1_choice([4, 4], [1.0, 3.0], 0.0) == 1  # SECRET-INPUT-31
'''

READER = """

def ucb1_choice(counts, sums, c=2 ** 0.5):
    found = []
    for name in ("test_secret.py", "expected.txt"):
        try:
            found.append(open(FOLDER + "/" + name).read())
        except OSError as error:
            found.append(type(error).__name__)
    raise RuntimeError("READ " + repr(found))
"""


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="writes under /usr/local/share"
)
def test_09_the_given_tests_folder_is_hidden_too(tmp_path):
    folder = Path("/usr/local/share") / f"mcts-rt31-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    try:
        (folder / "test_secret.py").write_text(HIDDEN)
        (folder / "expected.txt").write_text("SECRET-DATA-31\n")
        code = (SOLUTIONS / "bandits.py").read_text() + f"\nFOLDER = {str(folder)!r}\n" + READER
        options = ("--tests", str(folder), "--exercise-set=bandits", "-k", "test_ucb1_choice")
        data = graded_file(tmp_path, "reader", "bandits.py", code, *options)
    finally:
        shutil.rmtree(folder)
    said = " ".join(t["output"] for t in data["tests"])
    assert "READ" in said, said  # the probe ran, in a visible test
    assert "SECRET-INPUT-31" not in said and "SECRET-DATA-31" not in said, said
    assert sys.prefix  # (the interpreter's own folders stay visible: the code needs them)
