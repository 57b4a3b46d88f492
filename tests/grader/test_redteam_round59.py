"""Red team 59: a hand-in the teaching assistant's account may not read (a file kept mode 000, a
folder `chmod -R 600` left without its search bit) was taken for a missing file: 0 points, the
row "graded", exit 0, and "no file for bandits was found" beside the file (16)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.grading import confine

if sys.platform != "linux":
    pytestmark = pytest.mark.skip("the grader's sandbox needs Linux")

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making another account's files needs root")
UNREADABLE = "could not be read by the grading account"


@as_root
def test_16_what_the_assistant_may_not_read_is_said_and_is_not_a_grade():
    from grading_fixtures.shared_folders import as_account, userns_usable_by

    ta = 65534  # nobody: an account with no privilege
    if not userns_usable_by(ta):
        pytest.skip("user namespaces are not available to an ordinary account here")
    base = Path(tempfile.mkdtemp(prefix="r59-16-"))
    base.chmod(0o755)
    try:
        where = base / "ta"
        subs = where / "subs"
        subs.mkdir(parents=True)
        honest = (SOLUTIONS / "bandits.py").read_bytes()
        for name, inside in (("file000", ""), ("folder000", "sub"), ("folder600", "")):
            (subs / name / inside).mkdir(parents=True, exist_ok=True)
            (subs / name / inside / "bandits.py").write_bytes(honest)
        for path in [where, *where.rglob("*")]:
            os.chown(path, ta, ta)
        (subs / "file000" / "bandits.py").chmod(0o000)
        (subs / "folder000" / "sub").chmod(0o000)
        (subs / "folder600").chmod(0o600)  # listed, not entered: `chmod -R 600 handin/`
        command = [*as_account(ta), sys.executable, "-m", "mcts_course", "grade"]
        command += [str(subs / n) for n in ("file000", "folder000", "folder600")]
        command += ["--out", str(where / "out"), "--exercise-set=bandits"]
        env = {**os.environ, "HOME": str(where), "TMPDIR": str(where)}
        env.pop(confine.NO_NAMESPACES_ENV, None)
        done = subprocess.run(
            command, env=env, cwd=where, capture_output=True, text=True, timeout=600, check=False
        )
        said = done.stdout + done.stderr
        assert done.returncode == 1, said  # never a quiet batch
        with open(where / "out" / "grades.csv", newline="") as f:
            rows = {row["submission"]: row for row in csv.DictReader(f)}
        for name in ("file000", "folder000", "folder600"):
            assert rows[name]["status"] in ("file refused", "incomplete copy"), rows[name]
            assert name in said, said  # named in grade's output
            data = json.loads((where / "out" / name / "results.json").read_text())
            text = json.dumps(data)
            assert UNREADABLE in text and "chmod -R a+rX" in text, text[:2000]
        for name in ("file000", "folder600"):  # the file is there: never "not found"
            data = json.loads((where / "out" / name / "results.json").read_text())
            first = data["tests"][0]["output"]
            assert UNREADABLE in first and "no file for bandits was found" not in first, first
        notes = json.loads((where / "out" / "folder000" / "results.json").read_text())
        cut = notes["extra_data"]["copy_cut"]
        assert any(line.startswith('"sub" ' + UNREADABLE) for line in cut), cut
    finally:
        for path in [base, *base.rglob("*")]:
            if path.is_dir():
                path.chmod(0o700)
        shutil.rmtree(base, ignore_errors=True)


HIDDEN_09 = """
import pytest

POINT = dict(exercise="bandits_probe", exercise_set="bandits", visibility="visible")


@pytest.mark.points(1, **POINT)
def test_not_the_worst_arm(student):
    assert student.ucb1_choice([3, 3], [0.0, 2.0], 0.0) != 0


@pytest.mark.points(1, **POINT)
def test_an_arm(student):
    assert student.ucb1_choice([3, 3], [0.0, 2.0], 0.0)


@pytest.mark.points(1, **POINT)
def test_not_below(student):
    assert not student.ucb1_choice([3, 3], [0.0, 2.0], 0.0) < 1


@pytest.mark.points(1, **POINT)
def test_arm_one(student):
    assert student.ucb1_choice([3, 3], [0.0, 2.0], 0.0) == 1
"""


def test_09_an_object_returned_for_a_value_passes_no_comparison(tmp_path, capsys):
    """A stub whose ``ucb1_choice`` returns an object of its own: it was unequal to every value
    and true, so an instructor's ``!= 0`` and bare ``assert`` gave it their points."""
    from mcts_course.cli import main

    stub = (SOLUTIONS / "bandits.py").read_text()
    stub += (
        "\n\ndef ucb1_choice(counts, sums, c):\n"
        "    class Anything:\n"
        "        pass\n\n"
        "    return Anything()\n"
    )
    sub = tmp_path / "subs" / "anything"
    sub.mkdir(parents=True)
    (sub / "bandits.py").write_text(stub)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_probe.py").write_text(HIDDEN_09)
    out = tmp_path / "out"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "--tests", str(hidden)])
    capsys.readouterr()
    data = json.loads((out / "anything" / "results.json").read_text())
    probes = [t for t in data["tests"] if "bandits_probe" in t["name"]]
    assert len(probes) == 4, [t["name"] for t in data["tests"]]
    for test in probes:
        assert test["score"] == 0, test
        assert "an object of its own where a value was expected" in test["output"], test
    assert data["score"] > 0  # the reference's other functions: graded as given


@pytest.mark.parametrize(
    "options",
    [["-x"], ["-vx"], ["--exitfirst"], ["--maxfail=1"], ["--maxfail", "2"], ["--sw"], ["--lf"]],
)
def test_31_an_option_that_stops_runs_early_is_refused_before_anything_runs(
    tmp_path, capsys, options
):
    """`-x` and `--maxfail` passed the pre-run (the reference fails nothing), then stopped each
    student's run at its first failures: later tests and files never ran, the row "graded"."""
    from mcts_course.cli import main

    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bandits.py").write_text("def ucb1_choice(counts, sums, c):\n    return 0\n")
    out = tmp_path / "out"
    assert main(["grade", str(sub), "--out", str(out), *options]) == 2
    said = capsys.readouterr().err
    assert "stops a run before all of its tests" in said and options[0] in said, said
    assert not out.exists()


def test_31_options_that_only_look_alike_are_kept():
    from mcts_grader.batch import stops_early

    for options in (["-k", "x"], ["-kx"], ["-rx"], ["-q", "-rA"], ["-v", "-s"], ["--", "-x"]):
        assert stops_early(options) is None, options
    assert stops_early(["-q", "-sx"]) == "-sx"


def test_28_a_utf16_file_is_told_it_is_not_utf8_not_to_delete_a_line(tmp_path, capsys):
    """A reference saved as UTF-16 (Windows Notepad's "Unicode"): refused, as Python refuses
    it, but the advice was to delete a coding line the file does not have."""
    from mcts_course.cli import main

    sub = tmp_path / "subs" / "notepad"
    sub.mkdir(parents=True)
    (sub / "bandits.py").write_bytes((SOLUTIONS / "bandits.py").read_text().encode("utf-16"))
    out = tmp_path / "out"
    assert main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits"]) == 1
    capsys.readouterr()
    data = json.loads((out / "notepad" / "results.json").read_text())
    first = data["tests"][0]["output"]
    assert data["score"] == 0 and data["extra_data"]["status"] == "file refused", data
    assert "is not UTF-8 text (it is UTF-16)" in first and "save the file as UTF-8" in first
    assert "delete that line" not in first, first
