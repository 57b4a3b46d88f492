"""Red team 11's 16: ``mcts-course check`` given a second folder (``check alice/ bob/``, a natural
way to check two students) handed ``bob/`` to pytest as a test path, and pytest imported bob's
``__init__.py`` and ``test_*.py`` in the checking process: as root, or as the teaching assistant,
outside the sandbox.  Options that make pytest read another configuration or load a plugin
(``-c bob/pytest.ini``, ``-p``, ``-o``) would do the same by another door."""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_fixtures.mutants import build

from mcts_course.cli import main

MARKER = "open({path!r}, 'w').write('ran')\n"


def _hostile(folder: Path, marks: Path) -> Path:
    """A folder whose every Python file, imported, leaves a mark."""
    folder.mkdir()
    for name in ("__init__.py", "conftest.py", "test_evil.py", "test_bandits.py", "plugin.py"):
        (folder / name).write_text(MARKER.format(path=str(marks / name)))
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p plugin\npythonpath = .\n")
    return folder


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    marks = tmp_path / "marks"
    marks.mkdir()
    honest = build("reference", tmp_path / "alice", files=("bandits",))
    return honest, _hostile(tmp_path / "bob", marks), marks


@pytest.mark.parametrize(
    "extra",
    [
        ["{bob}"],
        ["{bob}/test_evil.py"],
        ["-k", "ucb1", "{bob}"],
        ["-c", "{bob}/pytest.ini"],
        ["--config-file={bob}/pytest.ini"],
        ["--rootdir={bob}"],
        ["-p", "plugin"],
        ["-o", "pythonpath={bob}"],
    ],
)
def test_16_check_collects_nothing_but_its_own_tests(layout, extra, capsys):
    honest, bob, marks = layout
    words = [w.format(bob=bob) for w in extra]
    status = main(["check", str(honest), *words])
    said = capsys.readouterr()
    assert status != 0, said.out[-2000:]
    assert sorted(p.name for p in marks.iterdir()) == []  # nothing of bob's was imported
    assert "passed" not in said.out  # refused before anything ran
    assert "check" in (said.out + said.err)


def test_16_an_honest_check_with_options_still_runs(layout, capsys):
    honest, _, marks = layout
    assert main(["check", str(honest), "-k", "ucb1", "-q"]) == 0
    assert "passed" in capsys.readouterr().out
    assert list(marks.iterdir()) == []
