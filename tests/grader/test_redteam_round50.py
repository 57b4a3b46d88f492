"""Red team round 50: two files a note showed under one name.  A control byte in a name and the
same escape typed out (``engine<ESC>.py``, ``engine\\x1b.py``), or two long names cut alike,
made one entry of the helper-files note for two files (01-03); and the note saying which copy
of an exercise was graded named both copies alike (04)."""

from __future__ import annotations

from pathlib import Path

from mcts_course.grading.report import NAME_CAP, helper_names, helpers_note, shown_name
from mcts_course.grading.sources import find_sources

REAL, TYPED = "engine\x1b.py", "engine\\x1b.py"


def test_01_a_control_byte_and_its_escape_typed_out_are_two_names():
    names = helper_names([REAL, TYPED])
    assert len(names) == 2, names
    note = helpers_note(names)
    assert note is not None and "engine\\x1b.py" in note and "engine\\\\x1b.py" in note, note


def test_02_names_cut_alike_stay_two_entries_and_are_kept_whole_in_the_list():
    stem = "\udcff" * 49 + "abc"  # os.listdir's reading of 49 bytes that are not UTF-8
    decoy, real = stem + ".py", stem + "x.py"
    names = helper_names([decoy, real])
    assert len(names) == 2 and all("\udcff" not in n for n in names), names
    assert max(map(len, names)) > NAME_CAP  # whole, for the instructor's results.json
    note = helpers_note(names)
    assert note is not None and note.count(", ") == 1, note
    assert " characters; " in note  # the cut one says it was cut


def test_04_the_copies_note_tells_the_graded_copy_from_the_other(tmp_path: Path):
    reference = Path(__file__).resolve().parents[2] / "exercises" / "ttt_mcts.py"
    for folder in ("a\x1b", "a\\x1b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "ttt_mcts.py").write_text(reference.read_text())
    found = find_sources(tmp_path)
    (note,) = [n for n in found["ttt_mcts"].notes if "was graded" in n]
    graded, others = note.split(" was graded; ", 1)
    assert graded in ('"a\\x1b/ttt_mcts.py"', '"a\\\\x1b/ttt_mcts.py"'), note
    assert graded not in others.split(": ", 1)[1], note


def test_shown_name_is_escaped_and_cut_with_a_mark():
    assert shown_name('a\\b\n"c.py') == '"a\\\\b\\n\\"c.py"'
    long = "x" * (NAME_CAP + 5)
    shown = shown_name(long)
    assert (
        shown.startswith('"' + "x" * (NAME_CAP - 60) + "...")
        and f"({NAME_CAP + 5} characters; " in shown
    )


def test_08_a_name_holding_the_lists_separator_reads_as_one_name():
    note = helpers_note(helper_names(["engine.py", "util.py, zz.py"]))
    assert note is not None and note.endswith('"engine.py", "util.py, zz.py"'), note
