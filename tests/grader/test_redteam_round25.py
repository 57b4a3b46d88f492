"""Red team round 25: a notebook of 20 MB of empty JSON objects was parsed whole in the grader's
own process, outside every cgroup, for 551 MB (01)."""

from __future__ import annotations

import json

from mcts_course.grading import sources


def test_01_a_notebook_of_too_many_objects_is_not_parsed(tmp_path, monkeypatch):
    calls: list[int] = []
    real = json.loads

    def counted(text, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(sources.json, "loads", counted)
    bomb = tmp_path / "extra.ipynb"
    bomb.write_text('{"cells": [' + "{}," * sources.NOTEBOOK_OBJECTS + '{}], "nbformat": 4}')
    source = sources.read_source(bomb)
    assert not calls and source.code == "" and not source.sets
    assert "over 100,000 JSON objects" in source.notes[0], source.notes
    fine = tmp_path / "fine.ipynb"
    cell = {"cell_type": "code", "source": "def ucb1_choice(counts, sums, c=1.0):\n    return 0\n"}
    fine.write_text(json.dumps({"cells": [cell] * 100, "nbformat": 4}))
    assert "def ucb1_choice" in sources.read_source(fine).code and calls


# -- 04: a flood of short lines on the answer pipe ----------------------------------------------
def test_04_lines_are_split_once_and_come_in_order():
    import os
    import threading

    from mcts_course.grading.process import LINE_CAP, _Lines

    read, write = os.pipe()
    lines = _Lines(read)
    payload = b"".join(b"%d\n" % i for i in range(200_000)) + b"tail"
    writer = threading.Thread(target=lambda: (os.write(write, payload), os.close(write)))
    writer.start()
    got = [lines.read(5.0) for _ in range(200_000)]
    assert got == [str(i) for i in range(200_000)]
    assert lines.read(5.0) is None and not lines.overlong  # the unended "tail", then the end
    writer.join()
    read2, write2 = os.pipe()
    big = _Lines(read2)
    threading.Thread(target=lambda: os.write(write2, b"x" * (LINE_CAP + 10))).start()
    assert big.read(5.0) is None and big.overlong
    os.close(read)
    os.close(read2)


FLOOD = """

import os as _os
import stat as _stat


def ucb1_choice(counts, sums, c=2 ** 0.5):
    for fd in range(3, 64):
        try:
            if _stat.S_ISFIFO(_os.fstat(fd).st_mode):
                _os.write(fd, b"{}\\n" * 120_000)
        except OSError:
            pass
    return 0
"""


def test_04_a_question_flooded_with_lines_is_stopped(tmp_path):
    from grading_fixtures.shared_folders import SOLUTIONS

    from mcts_course.cli import main

    sub = tmp_path / "flood"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + FLOOD)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1_choice"])
    data = json.loads((out / "flood" / "results.json").read_text())
    said = [t["output"] for t in data["tests"] if t["score"] < t["max_score"]]
    assert any("over 100,000 lines for one question" in o for o in said), data["tests"]


# -- 06: names of "imported helper files" that are no file of the submission ---------------------
FAKE_HELPERS = """

import itertools as _it
import sys as _sys

_count = _it.count()


def _server_globals():
    f = _sys._getframe(1)
    while f is not None:
        if "IMPORTED" in f.f_globals:
            return f.f_globals
        f = f.f_back


def ucb1_choice(counts, sums, c=2 ** 0.5):
    k = next(_count)
    imported = _server_globals()["IMPORTED"]
    imported.clear()
    imported.update(f"fake{k:05d}_{i:05d}.py" for i in range(50 + k % 7))
    return 0
"""


def test_06_only_files_copied_beside_the_code_are_named_as_helpers(tmp_path):
    from grading_fixtures.shared_folders import SOLUTIONS

    from mcts_course.cli import main

    sub = tmp_path / "fake"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + FAKE_HELPERS)
    (sub / "real_helper.py").write_text("X = 1\n")
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1_choice"])
    text = (out / "fake" / "results.json").read_text()
    assert "fake0" not in text, text[:2000]


# -- 05: the files beside the code were parsed again for every set -----------------------------
def test_05_each_file_beside_the_code_is_parsed_once(tmp_path, monkeypatch):
    from mcts_course.grading import copies, runner
    from mcts_course.grading.sources import read_source

    (tmp_path / "bandits.py").write_text("def ucb1_choice(counts, sums, c=1.0):\n    return 0\n")
    (tmp_path / "ttt_mcts.py").write_text("def ucb1(w, n, parent, c):\n    return 0.0\n")
    (tmp_path / "shared_helper.py").write_text("HELPER = [" + "1, " * 2000 + "]\n")
    parsed: list[str] = []
    real_parse = runner.parse
    for module in (runner, copies):
        monkeypatch.setattr(module, "parse", lambda text: parsed.append(text) or real_parse(text))
    for set_name in ("bandits", "ttt_mcts"):
        source = read_source(tmp_path / f"{set_name}.py")
        assert runner.unreadable(source) is None
        assert runner.library_copies(source, set_name) is None
    helper = [t for t in parsed if t.startswith("HELPER")]
    assert len(helper) == 2, len(helper)  # once for the depth check, once for the fingerprints
