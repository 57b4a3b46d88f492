"""Red team round 9, helper GI's items: the Gradescope builder packing a student's files found
under --tests (01, and 00's builder half), pytest walking every folder from ``/`` down to the
hidden tests' copy (03, 12), a UTF-8 byte-order mark scoring 0 (05)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS, as_account, userns_usable_by

HIDDEN_MORE = """import pytest

@pytest.mark.points(1, exercise="bandits_more", exercise_set="bandits", visibility="visible")
def test_more(student):
    assert student.ucb1_choice([2, 2], [0.0, 2.0], 0.0) == 1
"""


def _fake_wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcts_grader import gradescope

    wheel = tmp_path / "mcts_course-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"not really a wheel")
    monkeypatch.setattr(gradescope, "build_wheels", lambda out_dir: [wheel])


class TestAttack01BuilderPacksAStudentsFiles:
    def test_a_course_folder_holding_an_export_is_refused_before_anything_runs(
        self, tmp_path, monkeypatch, capsys
    ):
        from mcts_grader import gradescope

        _fake_wheels(tmp_path, monkeypatch)
        marks = tmp_path / "marks"
        marks.mkdir()
        course = tmp_path / "course"
        alice = course / "export" / "alice"
        alice.mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        (alice / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        (alice / "test_mine.py").write_text(
            f"open({str(marks / 'PWNED')!r}, 'w').write('x')\n"
            "import pytest\n\n"
            '@pytest.mark.points(1, exercise="x_alice", exercise_set="bandits")\n'
            "def test_alice(student):\n    assert True\n"
        )
        out = tmp_path / "dist" / "autograder.zip"
        assert gradescope.main([str(out), "--tests", str(course)]) == 2
        said = capsys.readouterr().err
        assert "holds what a submission holds" in said and "bandits.py" in said, said
        assert not (marks / "PWNED").exists()
        assert not out.exists()

    @pytest.mark.parametrize("name", ["notebook.ipynb", "ttt_mcts.py", "19_learning_exercises.md"])
    def test_a_notebook_or_exercise_file_anywhere_in_the_tree_is_refused(self, tmp_path, name):
        from mcts_grader.packing import refuse_submissions

        from mcts_course.errors import UsageError

        course = tmp_path / "course"
        (course / "deep").mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        refuse_submissions(course)  # test files alone: accepted
        (course / "deep" / name).write_text("{}")
        with pytest.raises(UsageError, match=name):
            refuse_submissions(course)

    def test_only_test_files_and_the_modules_they_import_are_packed(
        self, tmp_path, monkeypatch, capsys
    ):
        from mcts_grader import gradescope

        _fake_wheels(tmp_path, monkeypatch)
        course = tmp_path / "course"
        (course / "pkg").mkdir(parents=True)
        (course / "stray").mkdir()
        (course / "helpers.py").write_text("from pkg.inner import ARMS\n")
        (course / "pkg" / "__init__.py").write_text("")
        (course / "pkg" / "inner.py").write_text("ARMS = ([2, 2], [0.0, 2.0])\n")
        (course / "test_more.py").write_text(
            HIDDEN_MORE.replace("[2, 2], [0.0, 2.0]", "*helpers.ARMS").replace(
                "import pytest", "import pytest\nimport helpers"
            )
        )
        (course / "stray" / "notes.py").write_text("X = 1\n")
        (course / "conftest.py").write_text("")
        (course / "answers.json").write_text("{}")
        out = tmp_path / "autograder.zip"
        assert gradescope.main([str(out), "--tests", str(course)]) == 0
        with zipfile.ZipFile(out) as z:
            packed = sorted(n for n in z.namelist() if n.startswith("tests/"))
        assert packed == [
            "tests/helpers.py",
            "tests/pkg/__init__.py",
            "tests/pkg/inner.py",
            "tests/test_more.py",
        ]
        said = capsys.readouterr().err
        assert "packing 4 file(s)" in said and "  tests/pkg/inner.py" in said, said
        assert "left out" in said and "stray/notes.py" in said and "conftest.py" in said

    def test_grade_refuses_the_same_tree_even_when_alice_is_not_graded(self, tmp_path, capsys):
        from mcts_course.cli import main

        course = tmp_path / "course"
        alice = course / "export" / "alice"
        alice.mkdir(parents=True)
        (course / "test_more.py").write_text(HIDDEN_MORE)
        (alice / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        bob = tmp_path / "bob"
        bob.mkdir()
        (bob / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        out = tmp_path / "out"
        args = ["grade", str(bob), "--out", str(out), "--tests", str(course)]
        assert main([*args, "--exercise-set=bandits"]) == 2
        assert "holds what a submission holds" in capsys.readouterr().err
        assert not out.exists()


# -- 03 and 12: nothing above the grader's copy of the hidden tests is walked ---------------
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="another owner needs root to make"
)
STRANGER = 54321
SECRET_TESTS = """import pytest


@pytest.mark.points(2, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret_arm(student):
    assert student.ucb1_choice([3, 5, 7], [1.25, 3.3137, 4.0], 0.0) == 1, "expected arm 1"
"""


@pytest.fixture
def sticky() -> Iterator[Path]:
    """A folder like /tmp (world-writable, sticky), the grader's TMPDIR; every user may enter
    the folder made for it."""
    base = Path(tempfile.mkdtemp(prefix="gi-shared-"))
    os.chmod(base, 0o755)
    shared = base / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    try:
        yield shared
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _long_link(folder: Path) -> None:
    """Attack 03 (a): a folder whose __init__.py links to a 300-character name: checking
    whether it is a package fails with ENAMETOOLONG, even for root."""
    folder.mkdir()
    os.symlink("A" * 300, folder / "__init__.py")
    os.lchown(folder / "__init__.py", STRANGER, STRANGER)
    os.chown(folder, STRANGER, STRANGER)


def _hidden(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "test_secret.py").write_text(SECRET_TESTS)
    return folder


@as_root
@pytest.mark.parametrize("namespaces", ["namespaces", "no-namespaces"])
def test_03_a_strangers_entry_in_tmpdir_stops_neither_grade_nor_the_builder(
    sticky, tmp_path, monkeypatch, capsys, namespaces
):
    from mcts_grader import gradescope

    from mcts_course.cli import main

    if namespaces == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    _long_link(sticky / "zz-longlink")
    monkeypatch.setenv("TMPDIR", str(sticky))
    monkeypatch.setattr(tempfile, "tempdir", str(sticky))  # the batch's folders go there
    hidden = _hidden(tmp_path / "hidden")
    sub = tmp_path / "alice"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    out = tmp_path / "out"
    args = ["grade", str(sub), "--out", str(out), "--tests", str(hidden)]
    assert main([*args, "--exercise-set=bandits", "-k", "ucb1 or secret"]) == 0, capsys.readouterr()
    tests = json.loads((out / "alice" / "results.json").read_text())["tests"]
    secret = [t for t in tests if t["extra_data"].get("exercise") == "bandits_secret"]
    assert [t["score"] for t in secret] == [2.0], tests
    _fake_wheels(tmp_path, monkeypatch)
    zipped = tmp_path / "autograder.zip"
    assert gradescope.main([str(zipped), "--tests", str(hidden)]) == 0
    assert zipped.exists()


def test_03_a_folder_that_cannot_be_listed_is_named_not_the_hidden_file(tmp_path):
    from mcts_grader.vet import BadTests, vet

    hidden = _hidden(tmp_path / "hidden")
    (hidden / "zz").mkdir()
    os.symlink("A" * 300, hidden / "zz" / "__init__.py")
    with pytest.raises(BadTests) as error:
        vet([hidden], ["--exercise-set=bandits"])
    said = str(error.value)
    assert "File name too long" in said, said
    assert "never collects" not in said, said


def test_12_the_walk_never_lists_the_folders_above_the_hidden_tests(tmp_path):
    """Attack 12's 300,000 empty folders in TMPDIR made every run list them: the grading
    run's arguments start pytest's walk at the grader's copy of the hidden tests."""
    from mcts_grader.batch import pytest_command

    private = tmp_path / "private"
    copy = _hidden(private / "hidden" / "0" / "hidden")
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    command = pytest_command(tmp_path / "alice", private / "r.json", [copy], rootdir=private)
    assert f"--confcutdir={private / 'hidden' / '0'}" in command
    # and pytest itself lists nothing above it: a folder beside the private one (a
    # stranger's, that no one may list) would stop the collection
    beside = tmp_path / "zz"
    beside.mkdir()
    os.symlink("A" * 300, beside / "__init__.py")
    done = subprocess.run(
        [*command[:3], "--collect-only", "-q", *command[3:]],
        cwd=private,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "File name too long" not in done.stdout + done.stderr, done.stdout[-3000:]
    assert "test_secret_arm" in done.stdout, done.stdout[-3000:]


@as_root
def test_03_a_teaching_assistant_grades_beside_a_folder_it_cannot_enter(sticky):
    """Attack 03 (b): as an ordinary account, any folder it may not search in its TMPDIR (a
    student's 700 folder, root's in /tmp) stopped every grading with hidden tests."""
    ta = 65534  # nobody
    if not userns_usable_by(ta):
        pytest.skip("user namespaces are not available to an ordinary account here")
    home = sticky / "ta"
    tmp = home / "tmp"
    tmp.mkdir(parents=True)
    hidden = _hidden(home / "hidden")
    sub = home / "alice"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    for path in [home, *home.rglob("*")]:
        os.chown(path, ta, ta)
    os.chmod(tmp, 0o1777)
    private = tmp / "stu-private"
    private.mkdir(mode=0o700)
    os.chown(private, STRANGER, STRANGER)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp)}
    command = [*as_account(ta), sys.executable]
    command += ["-m", "mcts_course", "grade", str(sub), "--out", str(home / "out")]
    command += ["--tests", str(hidden), "--exercise-set=bandits", "-k", "ucb1 or secret"]
    done = subprocess.run(command, env=env, cwd=home, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    tests = json.loads((home / "out" / "alice" / "results.json").read_text())["tests"]
    secret = [t for t in tests if t["extra_data"].get("exercise") == "bandits_secret"]
    assert [t["score"] for t in secret] == [2.0], tests


# -- 05: a file saved with a UTF-8 byte-order mark is graded as Python reads it --------------
def _bom(folder: Path) -> Path:
    folder.mkdir()
    source = (SOLUTIONS / "bandits.py").read_bytes()
    (folder / "bandits.py").write_bytes(b"\xef\xbb\xbf" + source.replace(b"\n", b"\r\n"))
    return folder


def test_05_a_byte_order_mark_gets_full_marks_in_grade(tmp_path, capsys):
    from mcts_course.cli import main

    sub = _bom(tmp_path / "bom")
    out = tmp_path / "out"
    assert main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits"]) == 0
    data = json.loads((out / "bom" / "results.json").read_text())
    assert data["tests"] and data["score"] == sum(t["max_score"] for t in data["tests"]), data
    assert "U+FEFF" not in json.dumps(data)


def test_05_a_byte_order_mark_gets_full_marks_in_check(tmp_path, capsys):
    from mcts_course.cli import main

    sub = _bom(tmp_path / "bom")
    code = main(["check", str(sub / "bandits.py"), "--set", "bandits"])
    said = capsys.readouterr()
    assert code == 0, said.out[-3000:]
    assert "U+FEFF" not in said.out + said.err


def test_05_the_library_copy_check_reads_a_bom_sibling(tmp_path):
    """A sibling module saved with a mark was skipped by the check for copies of the
    library's code (strict UTF-8 decoding kept the mark, which the parser refuses)."""
    import mcts_course.games.connect4 as library_connect4
    from mcts_course.grading.runner import library_copies
    from mcts_course.grading.sources import read_source

    sub = tmp_path / "c4"
    sub.mkdir()
    (sub / "connect4.py").write_text((SOLUTIONS / "connect4.py").read_text())
    copied = Path(library_connect4.__file__).read_bytes()
    (sub / "c4rules.py").write_bytes(b"\xef\xbb\xbf" + copied)
    said = library_copies(read_source(sub / "connect4.py"), "connect4")
    assert said is not None and "c4rules.py" in said, said
