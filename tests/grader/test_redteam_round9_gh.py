"""Red team 9's attacks on grades.csv's names (04, 10, 11, and the Unicode spaces of 07 AJ) and
on a batch stopped by SIGTERM (09).  Helper GH's section of round 9; the grading is real (as
root: in the sandbox)."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import pytest
from grading_fixtures.batches import honest, impostor, private, rows
from grading_fixtures.points import most
from mcts_grader.table import Row, look_alikes, names_of, table

from mcts_course.cli import main
from mcts_course.errors import UsageError
from mcts_course.grading.report import escaped_name, spreadsheet_safe

BANDITS = "--exercise-set=bandits"
FULL = f"{most('bandits'):g}"


def cells(names: list[str]) -> list[str]:
    """The submission cells grades.csv writes for these folder names."""
    text = table(
        [Row(n, "graded", [], f"/x/{n}") for n in names_of([Path("/x", n) for n in names])]
    )
    return [r["submission"] for r in csv.DictReader(text.splitlines())]


# --- 10: the spreadsheet escape is one-to-one --------------------------------------------------


def test_10_the_formula_escape_gives_no_two_names_one_cell():
    names = ["-bob", "'-bob", "@carl", "'@carl", "=x", "'=x", "\\'-bob"]
    written = [spreadsheet_safe(escaped_name(n)) for n in names]
    assert len(set(written)) == len(names)  # the old escape wrote '-bob for -bob and '-bob
    assert not any(c.startswith(("=", "+", "-", "@")) for c in written)  # still no formula
    # grades.csv itself: one escape per cell, not the formula escape escaped again
    shown = cells(["-bob", "@carl", "\\'x"])
    assert len(set(shown)) == 3 and not any(c.startswith(("=", "+", "-", "@")) for c in shown)


@pytest.mark.parametrize("pair", [("bob", "'bob"), ("-bob", "'-bob"), ("@carl", "'@carl")])
def test_10_names_that_differ_by_a_leading_apostrophe_are_refused(pair):
    # a spreadsheet takes a typed leading apostrophe for a text marker: 'bob shows bob
    with pytest.raises(UsageError, match="leading apostrophe"):
        names_of([Path("/x", pair[0]), Path("/y", pair[1])])


# --- 11: invisible characters are escaped, and ignored when names are compared ----------------


def default_ignorable() -> list[str]:
    """Every Default_Ignorable_Code_Point Unicode lists, by perl's copy of the Unicode data
    (another source than the code's table), restricted to Python's Unicode version."""
    if shutil.which("perl") is None:
        pytest.skip("perl (its Unicode property tables) is not installed")
    script = (
        "for $c (0..0x10FFFF) { next if $c >= 0xD800 && $c <= 0xDFFF; "
        'print sprintf("%x\\n", $c) if chr($c) =~ /\\p{Default_Ignorable_Code_Point}/ }'
    )
    out = subprocess.run(["perl", "-e", script], capture_output=True, text=True, check=True)
    found = [chr(int(line, 16)) for line in out.stdout.split()]
    assert len(found) > 1000  # the table was read
    # a code point newer than Python's tables is unassigned there: escaped as such anyway
    return found


BLANKS = ["\u2800", "\u3164", "\u115f", "\u1160", "\uffa0"]  # the red team's, and the other fillers


def test_11_every_invisible_character_is_escaped_in_a_name():
    for c in [*default_ignorable(), *BLANKS]:
        shown = escaped_name(f"bob{c}")
        assert shown.isascii() and shown != "bob", f"U+{ord(c):04X} {unicodedata.name(c, '?')}"
    assert escaped_name("jos\u00e9") == "jos\u00e9"  # a letter with its accent is no escape
    assert escaped_name("e\u0301") == "e\u0301"  # nor a combining accent


def test_11_invisible_characters_are_written_escaped_and_flagged_in_grades_csv():
    names = ["bob", "bob\u034f", "bob\u2800", "bob\u3164", "bob\u115f", "b\u200bob"]
    shown = names_of([Path("/x", n) for n in names])
    assert shown[1:] == ["bob\\u034f", "bob\\u2800", "bob\\u3164", "bob\\u115f", "b\\u200bob"]
    alike = look_alikes(shown)  # removed before the comparison: all read bob
    assert set(alike["bob"]) == set(shown[1:])
    text = table([Row(n, "graded", [], f"/x/{n}") for n in shown])
    by_name = {r["submission"]: r for r in csv.DictReader(text.splitlines())}
    assert [n for n in by_name if n == "bob"] == ["bob"]  # one cell reads bob
    like = by_name["bob\\u2800"]["look_alike"].split()
    assert "bob" in like and len(like) == len(names) - 1


# --- 04: whole-script look-alikes -------------------------------------------------------------


def test_04_whole_script_look_alikes_are_flagged():
    cyrillic, greek = "\u0440\u0430\u0441\u043e", "\u039a\u0391\u03a4\u0395"  # расо, ΚΑΤΕ
    alike = look_alikes(
        ["paco", cyrillic, "KATE", greek, "kate", "jos\u00e9", "\u0436\u0435\u043d\u044f"]
    )
    assert alike["paco"] == [cyrillic] and alike[cyrillic] == ["paco"]
    assert set(alike[greek]) == {"KATE", "kate"}
    assert (
        "jos\u00e9" not in alike and "\u0436\u0435\u043d\u044f" not in alike
    )  # женя: no Latin twin


def test_04_07_10_11_a_real_batch_flags_look_alikes_and_refuses_spaces(tmp_path, capsys):
    base = private(tmp_path / "names")
    cyrillic = "\u0440\u0430\u0441\u043e"
    subs = [honest(base / "paco"), impostor(base / cyrillic), impostor(base / "paco\u2800")]
    subs += [honest(base / "-bob"), impostor(base / "\\'-bob")]
    out = tmp_path / "out"
    assert main(["grade", "--out", str(out), BANDITS, "--jobs", "2", "--", *map(str, subs)]) == 0
    by_name = {r["submission"]: r for r in rows(out)}
    assert set(by_name) == {"paco", cyrillic, "paco\\u2800", "'-bob", "\\\\'-bob"}
    assert by_name["paco"]["score"] == FULL and by_name[cyrillic]["score"] == "0"
    assert set(by_name["paco"]["look_alike"].split()) == {
        "\\u0440\\u0430\\u0441\\u043e",
        "paco\\u2800",
    }
    assert by_name[cyrillic]["look_alike"].split() == ["paco", "paco\\u2800"]
    assert by_name["'-bob"]["look_alike"] == ""
    err = capsys.readouterr().err
    assert (
        f"{cyrillic} [\\u0440\\u0430\\u0441\\u043e, looks like 'paco' and 'paco\\u2800']: 0 /"
        in err
    )
    # 07 AJ: Unicode spaces around a name are refused like ASCII ones, before anything runs
    for spaced in ("paco\u00a0", "\u3000paco", "paco\u2007"):
        twin = impostor(private(tmp_path / "more") / spaced)
        code = main(
            ["grade", "--out", str(tmp_path / "o2"), BANDITS, "--", str(subs[0]), str(twin)]
        )
        assert code == 2 and "spaces around them" in capsys.readouterr().err
    assert not (tmp_path / "o2").exists()


# --- 09: SIGTERM stops a batch as Ctrl-C does -------------------------------------------------


def student_sleeps() -> bool:
    found = subprocess.run(["pgrep", "-f", r"time\.sleep\(307\)"], capture_output=True)
    return bool(found.stdout.strip())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_09_a_signal_leaves_every_row_the_summary_and_no_folder(tmp_path, sig):
    base = private(tmp_path / "subs")
    honest(base / "a-honest")
    (base / "b-sleeper").mkdir()
    (base / "b-sleeper" / "bandits.py").write_text(
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(307)'])\n"
        "time.sleep(300)\n"
    )
    honest(base / "c-honest")
    out = tmp_path / "out"
    shared = Path(tempfile.mkdtemp(prefix="gh-r9-shared-"))  # its own /tmp, to list
    shared.chmod(0o1777)
    try:
        command = [sys.executable, "-m", "mcts_course", "grade", "--jobs", "1", "--out", str(out)]
        command += [BANDITS, "--", *map(str, sorted(base.iterdir()))]
        env = dict(os.environ, TMPDIR=str(shared))
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stderr is not None
        first = proc.stderr.readline().decode()  # a-honest's line: b-sleeper's run under way
        assert first.startswith("a-honest: ")
        time.sleep(3)
        assert student_sleeps()  # the student's process runs (what the signal must end)
        proc.send_signal(sig)  # the grader's process alone, as `kill` and `timeout` do
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig  # 143 and 130, as a shell says
        err = stderr.decode()
        assert f"stopped by {signal.Signals(sig).name}" in err
        assert "2 of 3 submissions not graded" in err and "graded 3 submissions" in stdout.decode()
        by_name = {r["submission"]: (r["status"], r["score"]) for r in rows(out)}
        assert by_name == {
            "a-honest": ("graded", FULL),
            "b-sleeper": ("not graded", "0"),
            "c-honest": ("not graded", "0"),
        }
        assert os.listdir(shared) == []  # mcts-sandboxes-*, mcts-grader-*, mcts-public-*: gone
        assert not student_sleeps()  # killed
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_13_latin_look_alikes_outside_the_cyrillic_and_greek_rows_are_flagged():
    """Red team 13: a small capital O (``bᴏb``) and a Latin alpha (``ɑlice``) are Latin letters,
    so neither mixes scripts; Unicode's confusables data draw them like ``o`` and ``a``."""
    alike = look_alikes(["bob", "b\u1d0fb", "alice", "\u0251lice", "lan", "Ian", "carol"])
    assert alike["bob"] == ["b\u1d0fb"] and alike["alice"] == ["\u0251lice"]
    assert alike["lan"] == ["Ian"]  # a capital I and a small L are drawn alike
    assert "carol" not in alike
