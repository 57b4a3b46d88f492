"""Gradescope, end to end: the zip unpacked into an autograder layout, setup.sh into a fresh
virtual environment, run_autograder on a submission, results.json checked against Gradescope's
documented format; as root, the student's code runs as ``nobody`` and cannot read the answers.

The layout's root is a temporary folder (``AUTOGRADER_ROOT``), not /autograder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from grading_fixtures.mutants import CHEATS, build

from mcts_course.grading.sets import EXERCISES, SET_OF

# -- Gradescope's results.json, from its documentation ("Autograder Specifications") ---------
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
NUMBER = (int, float)


def check_results(data: dict) -> list[str]:
    """The ways ``data`` breaks Gradescope's results.json format (empty when it follows it)."""
    problems = []

    def expect(ok: bool, what: str) -> None:
        if not ok:
            problems.append(what)

    expect(isinstance(data, dict), "the top level must be an object")
    if not isinstance(data, dict):
        return problems
    known = {
        "score", "execution_time", "output", "output_format", "test_output_format",
        "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
        "leaderboard",
    }  # fmt: skip
    expect(set(data) <= known, f"unknown top-level keys {set(data) - known}")
    tests = data.get("tests", [])
    expect("score" in data or tests, "either a score or tests with scores")
    for key in ("score", "execution_time"):
        if key in data:
            expect(isinstance(data[key], NUMBER) and data[key] >= 0, f"{key} must be a number")
    for key in ("output",):
        if key in data:
            expect(isinstance(data[key], str), f"{key} must be a string")
    for key in ("output_format", "test_output_format", "test_name_format"):
        if key in data:
            expect(data[key] in FORMATS, f"{key} must be one of {FORMATS}")
    for key in ("visibility", "stdout_visibility"):
        if key in data:
            expect(data[key] in VISIBILITY, f"{key} must be one of {VISIBILITY}")
    expect(isinstance(tests, list), "tests must be a list")
    test_keys = {
        "score", "max_score", "status", "name", "name_format", "number", "output",
        "output_format", "tags", "visibility", "extra_data",
    }  # fmt: skip
    for i, t in enumerate(tests if isinstance(tests, list) else []):
        expect(isinstance(t, dict), f"tests[{i}] must be an object")
        if not isinstance(t, dict):
            continue
        expect(set(t) <= test_keys, f"tests[{i}]: unknown keys {set(t) - test_keys}")
        expect("score" in t or "status" in t, f"tests[{i}] needs a score or a status")
        for key in ("score", "max_score"):
            if key in t:
                expect(isinstance(t[key], NUMBER), f"tests[{i}].{key} must be a number")
        if "status" in t:
            expect(t["status"] in ("passed", "failed"), f"tests[{i}].status")
        for key in ("name", "number", "output"):
            if key in t:
                expect(isinstance(t[key], str), f"tests[{i}].{key} must be a string")
        if "tags" in t:
            expect(
                isinstance(t["tags"], list) and all(isinstance(x, str) for x in t["tags"]),
                f"tests[{i}].tags must be a list of strings",
            )
        if "visibility" in t:
            expect(t["visibility"] in VISIBILITY, f"tests[{i}].visibility")
        if "output_format" in t:
            expect(t["output_format"] in FORMATS, f"tests[{i}].output_format")
    if "score" in data and isinstance(tests, list) and tests:
        total = sum(t.get("score", 0) for t in tests if isinstance(t, dict))
        expect(abs(total - data["score"]) < 1e-9, "score must be the sum of the tests' scores")
    return problems


def test_the_validator_catches_mistakes():
    good = {"score": 1.0, "tests": [{"name": "a", "score": 1.0, "max_score": 1.0}]}
    assert check_results(good) == []
    assert check_results({"tests": [{"name": "a", "score": "1"}]})
    assert check_results({"score": 2.0, "tests": [{"score": 1.0}]})
    assert check_results({"tests": [{"score": 1.0, "visibility": "public"}]})
    assert check_results({"tests": [], "colour": "red"})


def test_results_json_of_the_grader_follows_the_format(tmp_path):
    from mcts_grader.batch import grade

    sub = build("reference", tmp_path / "sub", files=("bandits",))
    grade([sub], tmp_path / "out", sets=["bandits", "connect4"])  # connect4: no file
    data = json.loads((tmp_path / "out" / "sub" / "results.json").read_text())
    assert check_results(data) == [], check_results(data)
    assert any(t["status"] == "failed" for t in data["tests"])


def test_zip_layout(tmp_path):
    from mcts_grader.gradescope import build_zip

    hidden = tmp_path / "hidden"
    (hidden / "more").mkdir(parents=True)
    # real tests: the builder checks them against the reference solutions first
    test = (
        "import pytest\n\n\n@pytest.mark.points(1, exercise='bandits')\n"
        "def test_{0}(student):\n    assert student.ucb1_choice([1, 0], [1.0, 0.0], 0.0) == 1\n"
    )
    (hidden / "test_extra.py").write_text(test.format("extra"))
    (hidden / "more" / "test_deeper.py").write_text(test.format("deeper"))
    wheels = [
        tmp_path / "mcts_course-0.1.0-py3-none-any.whl",
        tmp_path / "mcts_course_grader-0.1.0-py3-none-any.whl",
    ]
    for wheel in wheels:  # the real ones: test_gradescope_end_to_end
        wheel.write_bytes(b"not really a wheel")
    out = build_zip(tmp_path / "dist" / "autograder.zip", hidden, wheels=wheels)
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        assert {"setup.sh", "run_autograder", "tests/test_extra.py"} <= names
        assert "tests/more/test_deeper.py" in names  # what the check collected, all of it
        assert {w.name for w in wheels} <= names  # the library's wheel and the grader's
        setup = z.read("setup.sh").decode()
        assert "mcts_course-*.whl" in setup and "mcts_course_grader-*.whl" in setup
        # apt only after apt-get update (a fresh image has no package lists)
        if "apt-get install" in setup:
            assert setup.index("apt-get update") < setup.index("apt-get install")
        assert 'mcts-course" grade --gradescope' in z.read("run_autograder").decode()
        for name in ("setup.sh", "run_autograder"):
            assert z.getinfo(name).external_attr >> 16 & 0o111  # executable


def _python_for_nobody() -> str | None:
    """An interpreter the user nobody can run (Debian's), with venv; None if there is none."""
    for candidate in ("/usr/bin/python3",):
        if Path(candidate).exists():
            done = subprocess.run([candidate, "-c", "import ensurepip, venv"], capture_output=True)
            if done.returncode == 0:
                return candidate
    return None


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="Gradescope's containers are Linux")
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="runs as root, like Gradescope (the student's code is made the user nobody)",
)
def test_gradescope_end_to_end():
    from mcts_grader.gradescope import build_zip

    python = _python_for_nobody()
    if python is None:
        pytest.skip("no system Python with venv that the user nobody may run")
    # not under pytest's tmp_path: its folders are closed to other users
    root = Path(tempfile.mkdtemp(prefix="autograder-", dir="/tmp"))
    try:
        root.chmod(0o755)
        zip_path = build_zip(root / "autograder.zip")
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(root / "source")
        for name in ("setup.sh", "run_autograder"):
            (root / "source" / name).chmod(0o755)
        env = dict(os.environ, AUTOGRADER_ROOT=str(root), PYTHON=python)
        env.pop("VIRTUAL_ENV", None)

        def gradescope_runs(script: str) -> subprocess.CompletedProcess:
            """Run one of the zip's scripts the way Gradescope does: bash, from source/."""
            return subprocess.run(
                ["bash", str(root / "source" / script)],
                cwd=root / "source",
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )

        setup = gradescope_runs("setup.sh")
        assert setup.returncode == 0, setup.stdout + setup.stderr
        # the private files are closed to other users
        site = next((root / "venv").glob("lib/python3*/site-packages"))
        assert not (site / "mcts_course" / "solutions").exists()  # none in the library
        assert (site / "mcts_grader").stat().st_mode & 0o077 == 0
        assert (site / "mcts_grader" / "solutions").stat().st_mode & 0o077 == 0
        assert (root / "source").stat().st_mode & 0o077 == 0
        # a submission: the reference for three sets; ttt_mcts steals from disk
        build("cheat_read_file", root / "submission")
        (root / "results").mkdir()
        run = gradescope_runs("run_autograder")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "cannot run" not in run.stderr, run.stderr  # nobody ran the student's code
        data = json.loads((root / "results" / "results.json").read_text())
        assert check_results(data) == [], check_results(data)
        by_exercise: dict[str, float] = {}
        most: dict[str, float] = {}
        for t in data["tests"]:
            (exercise,) = t["tags"]
            by_exercise[exercise] = by_exercise.get(exercise, 0) + t["score"]
            most[exercise] = most.get(exercise, 0) + t["max_score"]
        for exercise in EXERCISES:
            if SET_OF[exercise] == "ttt_mcts":
                assert by_exercise[exercise] == 0, (exercise, by_exercise)
            else:
                assert by_exercise[exercise] == most[exercise], (exercise, by_exercise)
        assert "cheat_read_file" in CHEATS
        # the zip can also be built from the installed package (no checkout at hand)
        again = subprocess.run(
            [
                str(root / "venv" / "bin" / "python"),
                "-m",
                "mcts_grader.gradescope",
                str(root / "again.zip"),
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert again.returncode == 0, again.stdout + again.stderr
        with zipfile.ZipFile(root / "again.zip") as z:
            wheels = sorted(n for n in z.namelist() if n.endswith(".whl"))
            z.extractall(root, wheels)
        library, grader = wheels
        assert library.startswith("mcts_course-") and grader.startswith("mcts_course_grader-")
        with zipfile.ZipFile(root / library) as w:
            assert not [n for n in w.namelist() if "solutions" in n or "mcts_grader" in n]
        with zipfile.ZipFile(root / grader) as w:
            names = w.namelist()
            assert "mcts_grader/solutions/ttt_mcts.py" in names
            assert "mcts_grader/tests/test_ttt_mcts.py" in names
            (points,) = [n for n in names if n.endswith("entry_points.txt")]
            assert "mcts_course.grading_tests" in w.read(points).decode()
    finally:
        shutil.rmtree(root, ignore_errors=True)
