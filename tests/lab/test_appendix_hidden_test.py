"""The sample hidden test printed in the instructors' appendix runs as printed: it passes on the
reference solution and fails on the unsolved exercise file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sample_test() -> str:
    text = (ROOT / "book" / "20_appendix.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(# hidden/test_extra\.py\n.*?)```", text, re.S)
    assert block, "the appendix prints a hidden test"
    return block.group(1)


def run(tmp_path: Path, submission: Path) -> subprocess.CompletedProcess[str]:
    hidden = tmp_path / "hidden"
    hidden.mkdir(exist_ok=True)
    (hidden / "test_extra.py").write_text(sample_test(), encoding="utf-8")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(hidden),
            # one token: a loose path would make pytest read the configuration above it (the
            # checkout's pyproject.toml), and the plugin refuses such a run
            f"--submission={submission}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


def test_the_appendix_hidden_test_passes_on_the_reference_solution(tmp_path):
    done = run(tmp_path, ROOT / "grader" / "mcts_grader" / "solutions" / "ttt_mcts.py")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "ttt_backprop  2 / 2" in done.stdout


def test_the_appendix_hidden_test_fails_on_the_unsolved_exercise(tmp_path):
    done = run(tmp_path, ROOT / "exercises" / "ttt_mcts.py")
    assert done.returncode != 0
    assert "1 failed" in done.stdout
