"""The students' route from a fresh install: a clean virtual environment, the README's
``pip install ".[student]"`` (what Colab's install cell does from the repository), then
``mcts-course check`` on a correct exercise file.  Slow (minutes: JupyterLab comes with the
extra): ``pytest -m slow tests/grader/test_colab_route.py``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "grader" / "mcts_grader" / "solutions"
# What the library's wheel is built from (a copy: an in-tree build would leave build/ behind,
# a readable copy of the package).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "mcts_course")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A clean venv with the student package installed from a copy of the checkout, in a
    folder every user may read (as root, the check's sandbox user runs its interpreter)."""
    if not hasattr(os, "geteuid"):
        pytest.skip("POSIX only")
    home = Path(tempfile.mkdtemp(prefix="mcts-colab-"))
    try:
        os.chmod(home, 0o755)
        source = home / "source"
        source.mkdir()
        for name in SOURCES:
            path = ROOT / name
            if path.is_dir():
                ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
                shutil.copytree(path, source / name, ignore=ignore)
            else:
                shutil.copy(path, source / name)
        venv.create(home / "venv", with_pip=True, clear=True)
        python = home / "venv" / "bin" / "python"
        done = subprocess.run(
            [python, "-m", "pip", "install", "--quiet", f"{source}[student]"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            pytest.fail(f"pip install '.[student]' failed:\n{tail}")
        shutil.rmtree(source)
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.slow
def test_a_fresh_student_install_checks_a_correct_exercise(fresh):
    work = fresh / "work"
    work.mkdir(mode=0o755)
    shutil.copy(SOLUTIONS / "bandits.py", work / "bandits.py")
    os.chmod(work / "bandits.py", 0o644)
    done = subprocess.run(
        [fresh / "venv" / "bin" / "mcts-course", "check", "bandits.py"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL"))},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    total = re.search(r"^total\s+(\S+) / (\S+)$", done.stdout, re.MULTILINE)
    assert total is not None, done.stdout[-3000:]
    assert float(total.group(1)) == float(total.group(2)) > 0


@pytest.mark.slow
def test_a_fresh_student_install_holds_no_grader_file(fresh):
    site = subprocess.run(
        [fresh / "venv" / "bin" / "python", "-c", "import mcts_course, sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    files = [p for p in Path(site).rglob("*") if p.is_file()]
    assert any(p.name == "plugin.py" and "mcts_course" in p.parts for p in files)  # it looked
    assert not [p for p in files if "mcts_grader" in p.parts or "solutions" in p.parts]
    # no file of the environment holds a reference solution's text
    marker = "Reference solution"
    ours = [p for p in files if "mcts_course" in str(p) and p.suffix == ".py"]
    assert not [p for p in ours if marker in p.read_text(encoding="utf-8", errors="replace")]
    with pytest.raises(subprocess.CalledProcessError):
        subprocess.run(
            [fresh / "venv" / "bin" / "python", "-c", "import mcts_grader"],
            capture_output=True,
            check=True,
        )
    assert sys.prefix != site  # the environment is its own, not this one
