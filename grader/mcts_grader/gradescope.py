"""Build the Gradescope autograder zip: ``python -m mcts_grader.gradescope OUT.zip``.

Works from a checkout (``make gradescope``) and from an installed package.  The zip holds
``setup.sh`` (a virtual environment with numpy, pytest and this package's wheel, which carries
the tests and the pytest plugin; apt only when the image's Python lacks venv, after ``apt-get
update``), ``run_autograder`` (runs ``mcts-course grade --gradescope``: the pytest run of
``mcts-course grade`` on /autograder/submission, writing /autograder/results/results.json), the
wheel, and optionally a ``tests/`` folder of the instructor's hidden tests (``--tests DIR``,
plain pytest files), picked up from /autograder/source/tests.

Gradescope runs both scripts as root: setup.sh makes the reference solutions, the tests and
/autograder/source unreadable to other users (the installed package, not a checkout), and the
grader runs the student's code as a user id of its own, with hard limits, and refuses to grade
if it cannot (see :mod:`mcts_course.grading.sandbox`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu).
# AUTOGRADER_ROOT moves the layout (tests); PYTHON picks the interpreter.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PYTHON="${PYTHON:-python3}"
SOURCE="$ROOT/source"
if ! "$PYTHON" -c "import ensurepip, venv" 2>/dev/null; then
    apt-get update  # the package lists first: a fresh image has none
    DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv python3-pip
    PYTHON=python3
fi
"$PYTHON" -m venv "$ROOT/venv"
# The grader needs numpy and pytest only; --no-deps skips the book's plotting and widgets.
"$ROOT/venv/bin/python" -m pip install --quiet "numpy>=1.24" "pytest>=7.4"
"$ROOT/venv/bin/python" -m pip install --quiet --no-deps "$SOURCE"/mcts_course-*.whl
# The students' code runs as a user id of its own (no account needed): it may read the
# interpreter and the libraries, never the reference solutions, the tests, the wheel or the
# hidden tests.
"$ROOT/venv/bin/python" -c \\
    "from mcts_course.grading.sandbox import protect_private_files as p; p()"
chmod -R go-rwx "$SOURCE"
chmod 755 "$ROOT"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; it writes $ROOT/results/results.json.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
export MCTS_GRADESCOPE_SUBMISSION="$ROOT/submission"
export MCTS_GRADESCOPE_RESULTS="$ROOT/results/results.json"
export MCTS_GRADESCOPE_TESTS="$ROOT/source/tests"
cd "$ROOT/source"
exec "$ROOT/venv/bin/mcts-course" grade --gradescope
"""

PACKAGE = Path(__file__).resolve().parents[1]  # .../mcts_course (a checkout or site-packages)
ROOT = PACKAGE.parent

# For a wheel built from an installed package (no pyproject.toml beside it).
MINIMAL_PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mcts-course"
version = "{version}"
requires-python = ">=3.10"
dependencies = ["numpy>=1.24", "pytest>=7.4"]

[project.scripts]
mcts-course = "mcts_course.cli:main"

[project.entry-points.pytest11]
mcts_course = "mcts_course.grading.plugin"

[tool.setuptools.packages.find]
include = ["mcts_course*"]
"""


def build_wheel(out_dir: Path, package: Path = PACKAGE) -> Path:
    """This package's wheel (no dependencies), built from a copy of its sources: the checkout's
    pyproject.toml when there is one, else a minimal one (an installed package)."""
    import mcts_course

    src = out_dir / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(package, src / "mcts_course", ignore=ignore)
    root = package.parent
    if (root / "pyproject.toml").exists() and (root / ".git").exists():
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (root / name).exists():
                shutil.copy(root / name, src / name)
    else:
        (src / "pyproject.toml").write_text(
            MINIMAL_PYPROJECT.format(version=mcts_course.__version__)
        )
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out_dir)]
    # An isolated build fetches a recent setuptools from the package index; offline, fall back
    # on the environment's own setuptools.
    done = subprocess.run([*command, str(src)], capture_output=True, text=True)
    if done.returncode != 0 and _has_setuptools():
        done = subprocess.run(
            [*command, "--no-build-isolation", str(src)], capture_output=True, text=True
        )
    if done.returncode != 0:
        raise RuntimeError(f"building the wheel failed:\n{done.stdout}\n{done.stderr}")
    return next(out_dir.glob("mcts_course-*.whl"))


def _has_setuptools() -> bool:
    import importlib.util

    return importlib.util.find_spec("setuptools") is not None


def build_zip(out: str | Path, tests: str | Path | None = None, wheel: Path | None = None) -> Path:
    """Write the autograder zip to ``out``; return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = wheel or build_wheel(Path(tmp))
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16  # executable
                z.writestr(info, text)
            z.write(wheel, wheel.name)
            if tests:  # a folder of pytest files (conftest.py included), or one file
                tests = Path(tests)
                for path in sorted(tests.glob("*.py")) if tests.is_dir() else [tests]:
                    z.write(path, f"tests/{path.name}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the zip to write, e.g. dist/gradescope_autograder.zip")
    parser.add_argument("--tests", metavar="DIR", help="hidden tests to include")
    args = parser.parse_args(argv)
    print(build_zip(args.out, args.tests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
