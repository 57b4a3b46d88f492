"""Red team round 51: names a note cut alike still showed alike (two paths with the same first
300 characters and length: 01, 04), and two messages named a file raw, so a newline in its
name wrote a line of the student's into pytest.log (the "no points" reasons, 02-03; a refused
helper's note, 07-08); and two folders whose names are one text in two Unicode forms showed
alike (06)."""

from __future__ import annotations

import os
from pathlib import Path

from mcts_course.grading.report import NAME_CAP, shown_name
from mcts_course.grading.snapshot import submission_sources


def test_01_names_cut_alike_show_apart():
    stem = "d" * (NAME_CAP + 20)
    one, two = shown_name(stem + "/a/ttt_mcts.py"), shown_name(stem + "/b/ttt_mcts.py")
    assert one != two and one.endswith("characters; " + one[-13:-1] + ")"), (one, two)
    assert "a/ttt_mcts.py" in one and "b/ttt_mcts.py" in two


def test_07_a_refused_helper_is_named_escaped(tmp_path: Path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bandits.py").write_text("def ucb1_choice(counts, sums, c=1.0):\n    return 0\n")
    (tmp_path / "target.py").write_text("X = 1\n")
    os.symlink(tmp_path / "target.py", sub / "z.py\nnote: all is fine.py")
    cut: list[str] = []
    submission_sources(sub, cut)
    (said,) = [c for c in cut if "was not copied" in c]
    assert "\n" not in said and said.startswith('"z.py\\nnote: all is fine.py"'), said
    # the reason names the file once, quoted: the student's words appear nowhere unquoted
    # (red team 52, 00)
    assert said.count("all is fine") == 1 and "(it is a symbolic link, not a file)" in said


def test_06_names_equal_in_unicode_show_apart():
    composed, decomposed = "\u00e9/ttt_mcts.py", "e\u0301/ttt_mcts.py"
    assert shown_name(composed) == '"\u00e9/ttt_mcts.py"'  # a name in the usual form as it is
    assert shown_name(decomposed) == '"e\\u0301/ttt_mcts.py"'
    # the escape is the note's own: a name that holds those six characters shows them doubled
    assert shown_name("e\\u0301/ttt_mcts.py") == '"e\\\\u0301/ttt_mcts.py"'
    # a letter of another script drawn like an ASCII one: Cyrillic es in "ttt_m\u0441ts.py"
    assert shown_name("ttt_m\u0441ts.py") == '"ttt_m\\u0441ts.py"'
    eleve = "\u00e9l\u00e8ve/ttt_mcts.py"  # no letter of it is drawn like an ASCII one
    assert shown_name(eleve) == f'"{eleve}"'
