"""Red team 57: a ``# coding:`` line whose decoder ran in the grader's own process (punycode's
takes time growing with the square of the file: 12) and hid a solution in one comment from every
reader (utf-7: 09 and 11), or whose failure said the file did not exist (13); CPU of a
submission's process spinning between two questions, counted by no test (08)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading import snapshot
from mcts_course.grading.pyparse import foreign_encoding, python_text

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the freezer's cgroup needs root")
STUBS = Path(__file__).resolve().parents[2] / "exercises"


def _hidden_in_utf7(stub: str, solution: str) -> bytes:
    """Red team 57's 09: the stub as every reader sees it; the solution in a comment that only
    a utf-7 decoder turns into code (newlines as ``+AAo-``)."""
    hidden = ("\n" + solution + "\n").encode("utf-7").decode("ascii").replace("\n", "+AAo-")
    visible = stub.encode("utf-7").decode("ascii")
    return f"# coding: utf-7\n{visible}\n# notes: {hidden}\n".encode("ascii")


def test_09_13_a_file_in_a_foreign_encoding_is_refused_with_its_reason(tmp_path, capsys):
    from mcts_course.cli import main

    solution = (
        (SOLUTIONS / "bandits.py").read_text().replace("from __future__ import annotations", "")
    )
    hider = tmp_path / "subs" / "hider"
    hider.mkdir(parents=True)
    (hider / "bandits.py").write_bytes(
        _hidden_in_utf7((STUBS / "bandits.py").read_text(), solution)
    )
    assert "raise NotImplementedError" in (hider / "bandits.py").read_text()  # what a reader sees
    broken = tmp_path / "subs" / "broken"  # 13: a decoder that fails
    broken.mkdir()
    (broken / "bandits.py").write_bytes(b"# coding: punycode\n" + "é".encode() * 10 + b"\n")
    out = tmp_path / "out"
    main(["grade", str(hider), str(broken), "--out", str(out), "--exercise-set=bandits"])
    capsys.readouterr()
    for name, codec in (("hider", "utf-7"), ("broken", "punycode")):
        data = json.loads((out / name / "results.json").read_text())
        assert data["score"] == 0, (name, data["score"])
        first = data["tests"][0]["output"]
        assert f"declares the source encoding '{codec}'" in first, first
        assert "no file for bandits was found" not in first, first


def test_12_a_helper_in_a_foreign_encoding_is_not_copied_nor_decoded(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    pad = b"# coding: punycode\n" + b"x" * 1000 + b"\n"
    (sub / "pad.py").write_bytes(pad)
    said: list[str] = []
    found = snapshot.submission_sources(sub, cut=said)
    assert set(found) == {"bandits"}
    assert any("pad.py" in s and "declares the source encoding 'punycode'" in s for s in said), said
    # the grader's own reading never runs the codec: the bytes as UTF-8, what a reader sees
    assert python_text(pad) == pad.decode("utf-8")
    assert foreign_encoding(b"# -*- coding: latin-1 -*-\nx = 1\n") is None
    assert python_text("# coding: latin-1\nx = 'é'\n".encode("latin-1")) == (
        "# coding: latin-1\nx = 'é'\n"
    )


SPINNER = """

import os as _os, time as _time

_SPUN = {}


def _cpu_of(pid):
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return sum(int(v) for v in fields[11:13]) / _os.sysconf("SC_CLK_TCK")


def _spin():
    if not _SPUN:
        pid = _os.fork()
        if pid == 0:
            while True:
                pass
        _SPUN.update(pid=pid, main=_time.process_time(), child=_cpu_of(pid))


_search = mcts_search


def mcts_search(*args, **kwargs):
    _spin()
    return _search(*args, **kwargs)


def play_human(*args, **kwargs):
    used = _time.process_time() - _SPUN["main"] + _cpu_of(_SPUN["pid"]) - _SPUN["child"]
    raise RuntimeError(f"CPU {used:.3f}")
"""


@as_root
def test_08_a_child_spinning_between_questions_is_counted(tmp_path, capsys):
    """The reference's search, and a child that spins whenever the sandbox is not frozen: the
    tests' seconds must hold all the CPU the two used (the red team's run counted 79 %: the
    clock was read before the freeze and started after the thaw)."""
    from mcts_course.cli import main

    sub = tmp_path / "subs" / "spinner"
    sub.mkdir(parents=True)
    (sub / "ttt_mcts.py").write_text((SOLUTIONS / "ttt_mcts.py").read_text() + SPINNER)
    out = tmp_path / "out"
    main(
        ["grade", str(sub), "--out", str(out), "--exercise-set=ttt_mcts"]
        + ["-k", "takes_the_win or play_human"]
    )
    capsys.readouterr()
    tests = json.loads((out / "spinner" / "results.json").read_text())["tests"]
    counted = tests[0]["extra_data"]["student_seconds"]
    told = [t["output"] for t in tests if "CPU " in t["output"]]
    assert told, tests
    used = float(told[0].split("CPU ")[1].split()[0])
    assert counted >= 0.97 * used, (counted, used)
