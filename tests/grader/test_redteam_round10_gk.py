"""Red team round 10, helper GK's items: a result on disk never outlives the run that should
have replaced it (a re-grade stopped by a signal, or killed), the per-run folders a killed
grader left in the temporary folder are swept by lock, and a student's bidirectional controls
(note N2) are escaped in pytest.log and results.json.  The grading is real (as root: in the
sandbox)."""

from __future__ import annotations

import json

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading.report import printable

BANDITS = "--exercise-set=bandits"
# Unicode's Bidi_Control characters (PropList.txt): the marks, embeddings, overrides, isolates
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


# --- N2: bidirectional controls of a student's output ------------------------------------------
# Red team 10's bidi_bandits.py: the reference with a ucb1_choice whose exception message holds
# terminal escapes, carriage returns and a right-to-left override.
BIDI_UCB1 = """

def ucb1_choice(counts, sums, c=1.4):
    raise RuntimeError("\\x1b]0;RT10PWNED\\x07\\x1b[2J\\x1b[31mred\\u202eevil\\r\\rOVERWRITE")
"""


def test_n2_every_bidi_control_is_escaped_as_in_a_name():
    for char in BIDI_CONTROLS:
        shown = printable(f"one {char}line\n\ttwo")
        assert shown == f"one \\u{ord(char):04x}line\n\ttwo"
    assert printable("caf\u00e9 \u4e2d\u6587 \u2192") == "caf\u00e9 \u4e2d\u6587 \u2192"


def test_n2_a_students_bidi_override_reaches_no_log_raw(tmp_path):
    sub = tmp_path / "excmsg"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + BIDI_UCB1)
    out = tmp_path / "out"
    assert main(["grade", "--out", str(out), BANDITS, "--", str(sub)]) == 0
    log = (out / "excmsg" / "pytest.log").read_text(encoding="utf-8")
    raw = (out / "excmsg" / "results.json").read_text(encoding="utf-8")
    messages = json.dumps([t.get("output", "") for t in json.loads(raw)["tests"]])
    assert "redevil" not in log  # the override is no longer dropped in silence either
    assert "red\\u202eevil" in log and "red\\\\u202eevil" in messages  # json doubles it
    for text in (log, raw, json.loads(raw)["output"], messages):
        assert not any(c in text for c in BIDI_CONTROLS + "\x1b\x07\r")
