"""Red team round 7: the Gradescope zip, holding the hidden tests, was world-readable (31); a
visible test run after a hidden one showed what the student's process had remembered of the
hidden test's inputs (06); the Gradescope image left the Connect Four rules and the protected
modules' compiled twins readable (07); two runs into one --out lost rows (09)."""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS, honest

from mcts_course.cli import main

ONE_SET = ["--exercise-set=bandits", "-k", "ucb1"]
SECRET = "0.31337"


def hidden_then_visible(folder: Path) -> Path:
    """Attack 06's tests: a hidden test with secret inputs above a visible one, one file."""
    folder.mkdir(parents=True)
    (folder / "test_course.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.points(2, exercise="bandits_extra", exercise_set="bandits",'
        ' visibility="hidden")\n'
        "def test_ucb1_secret(student):\n"
        "    assert student.ucb1_choice([3, 5, 7, 11], [1.25, 3.5, 2.0, 9.75],"
        f" {SECRET}) == 3\n\n\n"
        '@pytest.mark.points(1, exercise="bandits_extra", exercise_set="bandits",'
        ' visibility="visible")\n'
        "def test_ucb1_visible_after(student):\n"
        "    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1\n"
    )
    return folder


# The student's ucb1_choice remembers every call: the visible test's call raises an error that
# quotes them, and once it has seen that call it answers wrongly (a process that lived on).
RECORDER = """

_real_ucb1 = ucb1_choice
_SEEN = []


def ucb1_choice(counts, sums, c=math.sqrt(2)):
    _SEEN.append((list(counts), list(sums), c))
    if list(counts) == [1, 1] and list(sums) == [0.0, 1.0]:
        raise RuntimeError("calls I saw before: %r" % _SEEN[-3:])
    if any(seen[0] == [1, 1] for seen in _SEEN):
        return 0
    return _real_ucb1(counts, sums, c)
"""


def test_31_the_gradescope_zip_is_private_whatever_the_umask(tmp_path, monkeypatch, capsys):
    from mcts_grader import gradescope

    hidden = hidden_then_visible(tmp_path / "hidden")
    os.chmod(hidden, 0o700)
    wheels = [tmp_path / "mcts_course-0.1.0-py3-none-any.whl"]
    wheels[0].write_bytes(b"not really a wheel")
    monkeypatch.setattr(gradescope, "build_wheels", lambda out_dir: wheels)
    old = os.umask(0o022)
    try:
        out = tmp_path / "dist" / "autograder.zip"
        assert gradescope.main([str(out), "--tests", str(hidden)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with zipfile.ZipFile(out) as z:
        assert SECRET in z.read("tests/test_course.py").decode()
    said = capsys.readouterr().err
    assert "holds the hidden tests" in said and "keep it private" in said


def test_06_a_visible_test_never_shows_what_a_hidden_test_asked(tmp_path):
    tests = hidden_then_visible(tmp_path / "hid")
    os.chmod(tests, 0o700)
    sub = honest(tmp_path / "hidlog")
    with open(sub / "bandits.py", "a") as code:
        code.write(RECORDER)
    out = tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 0
    results = json.loads((out / "hidlog" / "results.json").read_text())["tests"]
    visible = [t for t in results if t["visibility"] == "visible"]
    held_back = [t for t in results if t["visibility"] != "visible"]
    assert visible and held_back
    assert not any(SECRET in t.get("output", "") for t in visible), visible
    # every held-back test ran after every visible one ...
    assert results.index(held_back[0]) > results.index(visible[-1])
    # ... in a fresh process: the recorder, which has seen the visible call, would answer 0
    (secret,) = held_back  # shown before the due date with its score only
    assert secret["score"] == secret["max_score"] == 2.0, secret


def test_06_every_held_back_test_comes_after_every_visible_one():
    from mcts_course.grading.plugin import POINTS, Points, held_back_last

    class Item:
        def __init__(self, name: str, set_name: str | None, visibility: str = "visible"):
            self.name, self.stash = name, {}
            if set_name is not None:
                self.stash[POINTS] = Points(1.0, "x", set_name, name, visibility=visibility)

    items = [
        Item("b-hidden", "bandits", "hidden"),
        Item("b-visible", "bandits"),
        Item("unmarked", None),
        Item("c-late", "connect4", "after_due_date"),
        Item("c-visible", "connect4"),
        Item("b-published", "bandits", "after_published"),
        Item("b-visible-2", "bandits"),
    ]
    ordered = [i.name for i in held_back_last(items)]  # type: ignore[arg-type]
    assert ordered == [
        "b-visible",
        "unmarked",
        "c-visible",
        "b-visible-2",
        "c-late",
        "b-published",
        "b-hidden",  # last, in a process of its own (red team 30, 02)
    ]


def test_09_a_second_grade_into_the_same_out_is_refused_while_the_first_runs(tmp_path, capsys):
    import fcntl

    sub = honest(tmp_path / "alice")
    out = tmp_path / "o"
    out.mkdir(mode=0o700)
    held = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # what a grade running into `out` holds
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["grade", str(sub), "--out", str(out), *ONE_SET]) == 2
        assert "another grade is writing into" in capsys.readouterr().err
        assert list(out.iterdir()) == []  # nothing written, nothing graded
    finally:
        os.close(held)
    assert main(["grade", str(sub), "--out", str(out), *ONE_SET]) == 0
    assert (out / "grades.csv").exists()
    # and a run that holds the lock takes it for its whole run, not for its start only
    from mcts_grader import batch

    seen: list[str] = []
    real = batch.run_one

    def run_one_and_try_a_second(*args, **kwargs):
        probe = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append("free")
        except OSError:
            seen.append("held")
        finally:
            os.close(probe)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "run_one", run_one_and_try_a_second)
        bob = honest(tmp_path / "bob")
        assert main(["grade", str(bob), "--out", str(out), "--force", *ONE_SET]) == 0
    assert seen == ["held"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chmod as root")
def test_07_setup_closes_connect4_rules_and_every_protected_modules_pyc(tmp_path, monkeypatch):
    from mcts_course.grading import sandbox

    package = tmp_path / "site-packages" / "mcts_course"  # an installed package, as pip left it
    for name in ("arena.py", "render.py", "games/connect4.py", "games/othello.py"):
        source = package / name
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("x = 1\n")
        cache = source.parent / "__pycache__"
        cache.mkdir(exist_ok=True)
        (cache / f"{source.stem}.cpython-311.pyc").write_bytes(b"compiled")
    for path in package.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    monkeypatch.setattr(sandbox, "PACKAGE", package)
    monkeypatch.setattr(sandbox, "grader_package", lambda: None)
    sandbox.protect_private_files()

    def mode(name: str) -> int:
        return stat.S_IMODE((package / name).stat().st_mode)

    # the whole package is closed (red team 10's 03: the games' playouts, the skeleton's
    # search): a graded run imports its set's own copy, never the installed package
    assert mode(".") == 0o700
    for name in ("games/connect4.py", "games/__pycache__/connect4.cpython-311.pyc"):
        assert mode(name) == 0o600, name  # the connect4 set's exercise, closed on its own too


def test_10_a_results_json_that_does_not_parse_stops_the_merge(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["grade", str(honest(tmp_path / "a" / "alice")), "--out", str(out), *ONE_SET]) == 0
    before = (out / "grades.csv").read_text()
    (out / "alice" / "results.json").write_text('{"score": 2, "tests": [')  # a killed write
    bob = honest(tmp_path / "b" / "bob")
    assert main(["grade", str(bob), "--out", str(out), "--force", *ONE_SET]) == 2
    assert "alice/results.json cannot be read" in capsys.readouterr().err
    assert (out / "grades.csv").read_text() == before  # alice's row is not dropped quietly
    assert not (out / "bob").exists()


def test_17_names_differing_by_spaces_around_them_are_refused():
    from mcts_grader.table import names_of

    from mcts_course.errors import UsageError

    with pytest.raises(UsageError, match="spaces around them"):
        names_of([Path("/a/alice"), Path("/b/alice ")])
    with pytest.raises(UsageError, match="spaces around them"):  # a graded row kept in --out
        names_of([Path("/b/ alice")], {"alice": {"submission": "/a/alice"}})
    assert names_of([Path("/a/alice"), Path("/b/alicia")]) == ["alice", "alicia"]


def test_26_an_exercise_named_like_a_column_of_grades_csv_is_refused(tmp_path, capsys):
    from mcts_grader.table import COLUMNS, table

    from mcts_course.grading.sets import SET_OF

    header = table([]).strip().split(",")
    assert set(header) - set(SET_OF) == set(COLUMNS)  # the columns that are no exercise
    tests = tmp_path / "hid"
    tests.mkdir(mode=0o700)
    (tests / "test_more.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.points(1, exercise="score", exercise_set="bandits")\n'
        "def test_ucb1_scored(student):\n"
        "    assert student.ucb1_choice([1, 0], [1.0, 0.0], 0.0) == 1\n"
    )
    sub, out = honest(tmp_path / "alice"), tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 2
    assert "is a column of grades.csv" in capsys.readouterr().err
    assert not out.exists()


def test_30_a_submission_that_is_holds_or_lies_in_out_is_refused(tmp_path, capsys):
    export = tmp_path / "export"
    alice = honest(export / "alice")
    grades = export / "grades"
    grades.mkdir(mode=0o700)  # graded into before: `grade export/*` takes it in
    for subs, out in (
        ([alice, grades], grades),  # is --out
        ([alice], export),  # lies inside --out
        ([alice], alice / "grades"),  # holds --out
    ):
        assert main(["grade", *map(str, subs), "--out", str(out), *ONE_SET]) == 2, out
        assert "may not be, hold or lie inside --out" in capsys.readouterr().err
    assert not (alice / "grades").exists() and list(grades.iterdir()) == []
    assert main(["grade", str(alice), "--out", str(tmp_path / "o"), *ONE_SET]) == 0


def test_36_hidden_tests_pytest_would_not_collect_stop_the_pre_run(tmp_path, capsys):
    tests = tmp_path / "hid"
    test = (
        "import pytest\n\n\n"
        "@pytest.mark.points(1, exercise='bandits_{0}', exercise_set='bandits')\n"
        "def test_ucb1_{0}(student):\n"
        "    assert student.ucb1_choice([1, 0], [1.0, 0.0], 0.0) == 1\n"
    )
    for where in ("test_a.py", "sub/test_d.py", ".extra/test_b.py", "build/test_c.py", "more.py"):
        (tests / where).parent.mkdir(parents=True, exist_ok=True)
        (tests / where).write_text(test.format(Path(where).stem.replace(".", "")))
    (tests / "helpers.py").write_text("SECRET_ARMS = [3, 5, 7]\n")  # no test: a helper
    for path in [tests, *tests.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    sub, out = honest(tmp_path / "alice"), tmp_path / "o"
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 2
    said = capsys.readouterr().err
    for where in (".extra/test_b.py", "build/test_c.py", "more.py"):
        assert f"hid/{where} holds tests pytest never collects" in said, said
    assert "test_a.py" not in said and "test_d.py" not in said and "helpers.py" not in said
    assert not out.exists()
    for where in (".extra", "build", "more.py"):  # without them, the same tests grade
        (tests / where).rename(tmp_path / where.strip("."))
    assert main(["grade", str(sub), "--out", str(out), "--tests", str(tests), *ONE_SET]) == 0


DYNAMIC_REACHES = {
    "sys.modules": (
        "import sys\n",
        'lanes = getattr(sys.modules["mcts_course.games." + "connect" + "4"], "_LA" + "NES")',
    ),
    "sys.modules.get": ("import sys\n", 'lanes = sys.modules.get("mcts_" + "course")'),
    "importlib.import_module": (
        "from importlib import import_module\n",
        'lanes = import_module("mcts_course.games." + "connect4")._LANES',
    ),
    "spec_from_file_location": (
        "import importlib.util\n",
        'lanes = importlib.util.spec_from_file_location("c" + "4", "/x/connect4.py")',
    ),
    "__import__": ("", 'lanes = __import__("mcts_" + "course")'),
    "getattr on mcts_course.games": (
        "from mcts_course import games\n",
        'lanes = getattr(games, "connect" + "4")',
    ),
}


@pytest.mark.parametrize("way", sorted(DYNAMIC_REACHES))
def test_01_a_module_reached_by_a_computed_name_is_flagged(way):
    from mcts_course.grading.delegation import library_delegation

    reference = (SOLUTIONS / "connect4.py").read_text()
    assert library_delegation(reference, "connect4") is None  # the honest code passes
    imports, reach = DYNAMIC_REACHES[way]
    code = (
        imports
        + reference
        + "\n\ndef is_win(board, player):\n"
        + f"    {reach}\n"
        + "    return bool(lanes)\n"
    )
    found = library_delegation(code, "connect4")
    assert found is not None and way.split()[0].split(".")[0] in found, found
    # the same reach outside the graded definitions (never called by them) is not graded code
    unused = imports + reference + f"\n\ndef _unused():\n    {reach}\n"
    assert library_delegation(unused, "connect4") is None


def test_two_copies_of_one_exercise_say_which_was_graded(tmp_path: Path) -> None:
    """Attack 08: a finished exercises/bandits.py beside a stub in backup/bandits.py; one is
    graded (as before), and the submission is told which, and which copy was not."""
    from mcts_course.grading.sources import choice_notes, find_sources

    source = (Path(__file__).resolve().parents[2] / "exercises" / "bandits.py").read_text()
    for folder in ("exercises", "backup"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bandits.py").write_text(source)
    graded = find_sources(tmp_path)["bandits"]
    [note] = choice_notes(graded)
    other = "exercises/bandits.py" if graded.path.parent.name == "backup" else "backup/bandits.py"
    assert f'"{graded.path.parent.name}/bandits.py" was graded' in note and f'"{other}"' in note
    alone = tmp_path / "alone"
    (alone / "exercises").mkdir(parents=True)
    (alone / "exercises" / "bandits.py").write_text(source)
    assert choice_notes(find_sources(alone)["bandits"]) == []


def test_a_submission_inside_the_hidden_tests_is_refused(tmp_path: Path) -> None:
    """Red team 8's attack 13: an export inside the --tests folder would have a student's
    test_*.py run as root in the pre-run and collected for everyone; grade refuses it before
    anything runs (and a --tests folder inside a submission too)."""
    from mcts_grader.batch import _refuse_tests_overlap

    from mcts_course.errors import UsageError

    course = tmp_path / "course"
    alice = course / "export" / "alice"
    alice.mkdir(parents=True)
    (course / "test_hidden.py").write_text("def test_x():\n    pass\n")
    with pytest.raises(UsageError, match="inside --tests"):
        _refuse_tests_overlap([alice], [course])
    with pytest.raises(UsageError, match="inside --tests"):
        _refuse_tests_overlap([course], [course / "test_hidden.py"])
    bob = tmp_path / "bob"
    bob.mkdir()
    _refuse_tests_overlap([bob], [course])  # apart: graded as before
