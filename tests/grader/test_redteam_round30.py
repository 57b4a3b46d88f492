"""Red team round 30: a hidden test and a test shown after the due date of one set shared a
process, which quoted the hidden test's inputs in the later-shown test's failure (02); lines
that answered nothing were each parsed in the grader's own process (10), and a long line sent in
small chunks was assembled quadratically (14); sparse notebooks were read whole before the
copy's size cap was checked (11); a student's folder named ``--`` was taken for the end of
options and left out quietly (16); helper file names reached the feedback unescaped (04)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading import process, snapshot
from mcts_course.grading.report import helper_names, helpers_note, run_notes

HIDDEN = '''
import pytest


@pytest.mark.points(2, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret_arm(student):
    """a hidden test with a fixed input"""
    assert student.ucb1_choice([3, 5, 7], [1.25, 4.75, 0.5], 0.0) == 1


@pytest.mark.points(1, exercise="bandits_late", exercise_set="bandits", visibility="after_due_date")
def test_late_arm(student):
    """a test shown after the due date"""
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1
'''

RECORDER = """

_SEEN = []
_ucb1_choice = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    _SEEN.append((list(counts), list(sums), c))
    if len(_SEEN) > 1:
        raise RuntimeError("calls seen by this process: " + repr(_SEEN))
    return _ucb1_choice(counts, sums, c)
"""


def test_02_a_hidden_test_runs_last_in_a_process_of_its_own(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_secret.py").write_text(HIDDEN)
    sub = tmp_path / "eve"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + RECORDER)
    out = tmp_path / "o"
    options = ["--tests", str(hidden), "--due", "2026-01-01T00:00Z", "--exercise-set=bandits"]
    main(["grade", str(sub), "--out", str(out), *options, "-k", "arm"])
    text = (out / "eve" / "results.json").read_text()
    assert "4.75" not in text, text  # the hidden test's input, in a later-shown output
    data = json.loads(text)
    late = [t for t in data["tests"] if t["visibility"] == "after_due_date"]
    assert late and all(t["score"] == t["max_score"] for t in late), late


FLOOD = """

import fcntl as _fcntl, os as _os, stat as _stat

_LINE = ('{"junk": [' + ",".join(["1.5"] * 100000) + "]}\\n").encode()


def ucb1_choice(counts, sums, c=2 ** 0.5):
    for fd in range(3, 256):
        try:
            flags, mode = _fcntl.fcntl(fd, _fcntl.F_GETFL), _os.fstat(fd).st_mode
        except OSError:
            continue
        if flags & _os.O_ACCMODE == _os.O_WRONLY and _stat.S_ISFIFO(mode):
            for _ in range(10):  # 4 MB of lines that answer nothing
                view = memoryview(_LINE)
                while view:
                    view = view[_os.write(fd, view):]
    return 0
"""


def test_10_lines_that_answer_nothing_are_capped(tmp_path):
    code = (SOLUTIONS / "bandits.py").read_text() + FLOOD
    options = ("--exercise-set=bandits", "-k", "test_ucb1_choice")
    data = graded_file(tmp_path, "flood", "bandits.py", code, *options)
    said = " ".join(t["output"] for t in data["tests"])
    assert "KB that answered nothing" in said, said


def test_14_a_long_line_in_small_chunks_is_one_line():
    read, write = os.pipe()
    lines = process._Lines(read)
    try:
        line = b'{"id": 1, "ok": "' + b"x" * 100_000 + b'"}'
        for start in range(0, len(line), 4096):
            lines._take(line[start : start + 4096])
        assert not lines.ready and lines.size == len(line)
        lines._take(b"\n{}\n{")
        assert list(lines.ready) == [line, b"{}"] and lines.parts == [b"{"]
        assert not lines._take(b"y" * (process.LINE_CAP + 1))  # too long, even unfinished
    finally:
        os.close(read)
        os.close(write)


def test_11_files_past_the_size_cap_are_not_read(tmp_path: Path, monkeypatch):
    sub = tmp_path / "sparse"
    sub.mkdir()
    for k in range(12):  # 20 MB each, holes: nothing on disk
        with open(sub / f"n{k:02d}.ipynb", "wb") as f:
            f.truncate(snapshot.NOTEBOOK_CAP)
    read: list[str] = []
    real = snapshot.read_regular
    monkeypatch.setattr(
        snapshot, "read_regular", lambda name, *a, **k: read.append(name) or real(name, *a, **k)
    )
    snap = snapshot.take(sub)
    assert len(read) <= snapshot.TOTAL_BYTES // snapshot.NOTEBOOK_CAP, read
    assert any("stopped at its 64 MB" in why for why in snap.cut), snap.cut


def test_16_a_folder_named_dashes_is_refused_not_left_out(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("--", "alice"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    # `grade --out o *`, as the shell gives it: the folder "--" first, read as the separator
    assert main(["grade", "--out", "o", "--", "alice"]) == 2
    assert "a file or folder named '--' is here" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_04_helper_names_are_escaped_in_the_notes():
    helpers = helpers_note(helper_names(["ok.py", "x.py\nbandits 2 / 2\ntotal 2 / 2"]))
    (note,) = run_notes([], helpers, False, 0, [])
    assert "\n" not in note and "\\n" in note
