"""The student's process sees no path of the grader's (red-team attack 02: its ``sys.path``
named the instructor's hidden-tests folder, the grader's checkout and the run's scratch folder,
which told a student where to aim attack 05)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mcts_grader
from mcts_grader.batch import grade

from mcts_course.grading.childpath import neutral_paths

PROBE = "import json, os, sys\nraise RuntimeError('PATHS ' + json.dumps([sys.path, os.getcwd()]))\n"


def test_the_child_sys_path_names_no_folder_of_the_grader(tmp_path):
    hidden = tmp_path / "hidden-tests-folder"
    hidden.mkdir()
    (hidden / "test_more.py").write_text(
        "import pytest\n\n\n@pytest.mark.points(1, exercise='bandits')\n"
        "def test_more(student):\n    assert student.has('ucb1_choice')\n"
    )
    sub = tmp_path / "probe"
    sub.mkdir(mode=0o700)
    (sub / "bandits.py").write_text(PROBE)
    (result,) = grade([sub], tmp_path / "out", extra_tests=[hidden], sets=["bandits"])
    outputs = [o.output for o in result.outcomes if "PATHS" in o.output]
    assert outputs, [o.output for o in result.outcomes][:2]
    line = outputs[0].split("PATHS ", 1)[1].splitlines()[0]
    paths, _cwd = json.loads(line)  # cwd: the sandbox's work folder
    grader_checkout = str(Path(mcts_grader.__file__).resolve().parents[1])
    for path in paths:
        assert not path.startswith(str(tmp_path)), path  # hidden tests, scratch, submission
        assert not path.startswith(grader_checkout), path
        assert "mcts-grader-" not in path and "hidden" not in path, path


def test_only_the_interpreter_and_installed_packages_are_kept(tmp_path):
    site = os.path.join(sys.prefix, "lib", "site-packages")
    other = "/usr/lib/python3/dist-packages"
    given = [str(tmp_path), site, "/srv/hidden", other, "/work/checkout/grader", site]
    assert neutral_paths(given) == [site, other]
