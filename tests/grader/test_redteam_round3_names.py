"""The third red team's attacks on the names of grades.csv's rows (redteam3 06, 07, 13, 16): a
name is escaped, never stripped (``\\x01bob`` is no ``bob``), a duplicate is numbered with a
suffix no folder's name can be shown as, a long name is cut with a hash, a re-grade keeps the
row of the path it came from and never silently takes another path's, and every row says
which path it was graded from.  Graded for real (as root: in the sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_fixtures.batches import honest, impostor, private, rows
from grading_fixtures.points import most
from mcts_grader.table import NAME_CAP, names_of

from mcts_course.cli import main
from mcts_course.errors import UsageError

BANDITS = "--exercise-set=bandits"


def grade(out: Path, *subs: Path, more: tuple[str, ...] = ()) -> int:
    return main(["grade", "--out", str(out), BANDITS, "--jobs", "2", *more, "--", *map(str, subs)])


FULL = f"{most('bandits'):g}"


def test_06_invisible_and_control_names_are_escaped_not_stripped(tmp_path):
    base = private(tmp_path / "names")
    bob = honest(base / "bob")
    subs = [impostor(base / "\x01bob"), bob, impostor(base / "bob\u200b")]
    out = tmp_path / "out"
    assert grade(out, *subs) == 0
    table = rows(out)
    assert [r["submission"] for r in table].count("bob") == 1  # one bob: the real one
    by_name = {r["submission"]: r for r in table}
    assert set(by_name) == {"\\x01bob", "bob", "bob\\u200b"}  # what each folder is called
    assert by_name["bob"]["score"] == FULL and by_name["bob"]["source"] == str(bob)
    assert by_name["\\x01bob"]["score"] == by_name["bob\\u200b"]["score"] == "0"


def test_06_names_alike_but_for_case_or_form_are_refused(tmp_path, capsys):
    base = private(tmp_path / "names")
    subs = [impostor(base / "Bob"), honest(base / "bob"), impostor(base / "\uff42\uff4f\uff42")]
    for pair in (subs[:2], subs[1:]):
        assert grade(tmp_path / "out", *pair) == 2
        assert "differ only in case or Unicode form" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before anything ran or was written


def test_13_a_folder_named_like_a_number_keeps_its_own_row(tmp_path):
    base = private(tmp_path / "coll2")
    x, y = honest(base / "x" / "sub"), honest(base / "y" / "sub")
    z = impostor(base / "z" / "sub-2")
    table_folder = impostor(base / "g" / "grades.csv")
    numbered = honest(base / "h" / "grades.csv-2")
    out = tmp_path / "out"
    assert grade(out, x, y, z, table_folder, numbered) == 0
    by_name = {r["submission"]: (r["score"], r["source"]) for r in rows(out)}
    assert by_name == {
        "sub": (FULL, str(x)),
        "sub\\#2": (FULL, str(y)),  # "\#" is in no escaped name: no folder can squat it
        "sub-2": ("0", str(z)),  # the student named sub-2 has their own grade
        "grades.csv\\#2": ("0", str(table_folder)),
        "grades.csv-2": (FULL, str(numbered)),
    }


def test_13_numbering_skips_the_names_already_in_the_output_folder():
    before = {"sub\\#2": {"submission": "/old/sub"}}
    assert names_of([Path("/x/sub"), Path("/y/sub")], before) == ["sub", "sub\\#3"]


def test_16_two_longest_names_are_cut_and_graded(tmp_path):
    base = private(tmp_path / "long")
    long = "a" * 255  # the longest name of a Linux file
    subs = [honest(base / "r" / "honest"), honest(base / "p" / long), honest(base / "q" / long)]
    out = tmp_path / "out"
    assert grade(out, *subs) == 0
    table = rows(out)
    assert len(table) == 3 and all(r["score"] == FULL for r in table)
    assert {r["source"] for r in table} == set(map(str, subs))
    names = [r["submission"] for r in table]
    assert len(set(names)) == 3 and all(len(n.encode()) <= NAME_CAP + 10 for n in names)


def test_07_a_regrade_keeps_its_row_and_never_takes_another_paths(tmp_path, capsys):
    base = private(tmp_path / "coll")
    x, y = honest(base / "x" / "sub"), impostor(base / "y" / "sub")
    out = tmp_path / "out"
    assert grade(out, x, y) == 0
    assert grade(out, y, more=("--force",)) == 0  # y graded again: y's row, not x's
    by_name = {r["submission"]: (r["score"], r["source"]) for r in rows(out)}
    assert by_name == {"sub": (FULL, str(x)), "sub\\#2": ("0", str(y))}
    # a new export of the same student: another path, the name of x's row
    new = impostor(private(tmp_path / "export2") / "sub")
    assert grade(out, new, more=("--force",)) == 2
    err = capsys.readouterr().err
    assert "--replace" in err and str(x) in err
    assert {r["submission"]: r["score"] for r in rows(out)} == {"sub": FULL, "sub\\#2": "0"}
    # asked clearly: the new export replaces the row, which says where it came from
    assert grade(out, new, more=("--force", "--replace")) == 0
    by_name = {r["submission"]: (r["score"], r["source"]) for r in rows(out)}
    assert by_name == {"sub": ("0", str(new)), "sub\\#2": ("0", str(y))}


def test_07_a_row_graded_before_sources_were_recorded_is_matched_by_its_files():
    before = {"sub": {"files": {"bandits": "/x/sub/bandits.py"}}}
    assert names_of([Path("/x/sub")], before) == ["sub"]
    with pytest.raises(UsageError, match="--replace"):
        names_of([Path("/y/sub")], before)


def test_look_alike_scripts_are_shown_in_ascii_and_flagged(tmp_path, capsys):
    """A Cyrillic ``а`` in ``аlice`` is neither another case nor another Unicode form of the
    Latin ``a``: both names are graded, and grades.csv and the summary show the impostor's name
    in ASCII escapes beside the raw one (the summary also says its letters mix scripts)."""
    base = private(tmp_path / "names")
    subs = [honest(base / "alice"), impostor(base / "\u0430lice"), honest(base / "jos\u00e9")]
    out = tmp_path / "out"
    assert grade(out, *subs) == 0
    by_name = {r["submission"]: r for r in rows(out)}
    assert {n: r["ascii_name"] for n, r in by_name.items()} == {
        "alice": "",
        "\u0430lice": "\\u0430lice",
        "jos\u00e9": "jos\\xe9",
    }
    assert by_name["alice"]["score"] == FULL and by_name["\u0430lice"]["score"] == "0"
    err = capsys.readouterr().err
    flag = "mixed scripts: CYRILLIC and LATIN, looks like 'alice'"
    assert f"\u0430lice [\\u0430lice, {flag}]: 0 /" in err
    assert f"jos\u00e9 [jos\\xe9]: {FULL} /" in err  # one script: no flag
    # an ASCII name as it is, flagged beside its look-alike (red team 9's 04)
    assert f"alice [looks like '\\u0430lice']: {FULL} / {FULL}" in err.splitlines()
