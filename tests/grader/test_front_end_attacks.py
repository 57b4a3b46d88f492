"""Issue 24, part D: a submission's files never run in the grader's own process, whatever the
front end and the current folder.  The hostile submission holds a conftest.py, a pytest.ini whose
addopts load a plugin of its own (evilplug.py), and a csv.py shadowing the standard library;
each writes a marker when it runs.  The grader is started inside that folder, as an instructor
would (as root here, where it matters most)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mcts_grader

SOLUTIONS = Path(mcts_grader.__file__).parent / "solutions"


def hostile(folder: Path, markers: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    (folder / "conftest.py").write_text(f"open({str(markers / 'conftest')!r}, 'w')\n")
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p evilplug\n")
    (folder / "evilplug.py").write_text(f"open({str(markers / 'plugin')!r}, 'w')\n")
    (folder / "csv.py").write_text(f"open({str(markers / 'csv')!r}, 'w')\nfrom _csv import *\n")
    return folder


def run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_check_inside_a_submission_runs_none_of_its_files(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    sub = hostile(tmp_path / "sub", markers)
    out = run([sys.executable, "-m", "mcts_course", "check", "."], sub)
    out += run([str(Path(sys.executable).parent / "mcts-course"), "check", "."], sub)
    assert sorted(p.name for p in markers.iterdir()) == []
    assert "evilplug" not in out  # its configuration was not even read


def test_grade_inside_a_submission_imports_none_of_its_modules(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    sub = hostile(tmp_path / "sub", markers)
    out = run(
        [sys.executable, "-m", "mcts_course", "grade", ".", "--out", str(tmp_path / "o")], sub
    )
    assert sorted(p.name for p in markers.iterdir()) == [], out
    assert (tmp_path / "o" / "grades.csv").exists(), out
