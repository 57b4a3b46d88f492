"""Build the Gradescope autograder zip: ``python -m mcts_grader.gradescope OUT.zip``.

Works from a checkout (``make gradescope``) and from installed packages.  The zip holds
``setup.sh`` (a virtual environment with numpy, pytest and the two wheels: the library's,
``mcts-course``, which carries the pytest plugin and the public checks, and the grader's,
``mcts-course-grader``, which carries the reference solutions and the tests that need them;
apt only when the image's Python lacks venv, after ``apt-get update``), ``run_autograder``
(runs ``mcts-course grade --gradescope``: the pytest runs of ``mcts-course grade`` on
/autograder/submission, visible tests then held-back ones, merged, writing
/autograder/results/results.json), the wheels, and optionally a
``tests/`` folder of the instructor's hidden tests (``--tests DIR``, plain pytest files),
picked up from /autograder/source/tests.

Gradescope runs both scripts as root: setup.sh makes the installed grader package (reference
solutions, tests) and /autograder/source unreadable to other users, and the grader runs the
student's code as a user id of its own, with hard limits, and refuses to grade if it cannot
(see :mod:`mcts_course.grading.sandbox`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
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
# The grader needs numpy and pytest only: the library's wheel and the grader's, --no-deps.
"$ROOT/venv/bin/python" -m pip install --quiet "numpy>=2" "pytest>=7.4"
"$ROOT/venv/bin/python" -m pip install --quiet --no-deps \\
    "$SOURCE"/mcts_course-*.whl "$SOURCE"/mcts_course_grader-*.whl
# The students' code runs as a user id of its own (no account needed): it may read the
# interpreter and the libraries, never the grader's package (reference solutions, tests), the
# wheels or the hidden tests.
"$ROOT/venv/bin/python" -c \\
    "from mcts_course.grading.sandbox import protect_private_files as p; p()"
GRADER="$("$ROOT/venv/bin/python" -c \\
    'import mcts_grader, os; print(os.path.dirname(mcts_grader.__file__))')"
chmod -R go-rwx "$GRADER"
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
export MCTS_GRADESCOPE_METADATA="$ROOT/submission_metadata.json"
cd "$ROOT/source"
exec "$ROOT/venv/bin/mcts-course" grade --gradescope
"""

GRADER_PACKAGE = Path(__file__).resolve().parent  # .../mcts_grader (a checkout or site-packages)

# For a wheel built from an installed package (no pyproject.toml beside it).
LIBRARY_PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mcts-course"
version = "{version}"
requires-python = ">=3.10"
dependencies = ["numpy>=2"]

[project.optional-dependencies]
check = ["pytest>=7.4"]

[project.scripts]
mcts-course = "mcts_course.cli:main"

[project.entry-points.pytest11]
mcts_course = "mcts_course.grading.plugin"

[tool.setuptools.packages.find]
include = ["mcts_course*"]

[tool.setuptools.package-data]
"mcts_course.learn" = ["data/*.json", "data/*.csv"]
"""
GRADER_PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mcts-course-grader"
version = "{version}"
requires-python = ">=3.10"
dependencies = ["mcts-course[check]"]

[project.scripts]
mcts-course-grade = "mcts_grader.cli:main"

[project.entry-points."mcts_course.commands"]
grade = "mcts_grader.cli"

[project.entry-points."mcts_course.grading_tests"]
reference = "mcts_grader.tests"

[tool.setuptools.packages.find]
include = ["mcts_grader*"]
"""


@dataclass(frozen=True)
class Distribution:
    """One of the two wheels: its import package and its distribution's name."""

    package: Path  # the import package's folder
    name: str  # the distribution's name, as in its pyproject.toml
    minimal: str  # the pyproject.toml for an installed package (no checkout)


def distributions() -> tuple[Distribution, Distribution]:
    """The library's and the grader's, found where they are imported from."""
    import mcts_course

    library = Path(mcts_course.__file__).resolve().parent
    return (
        Distribution(library, "mcts-course", LIBRARY_PYPROJECT),
        Distribution(GRADER_PACKAGE, "mcts-course-grader", GRADER_PYPROJECT),
    )


def _checkout_pyproject(dist: Distribution) -> Path | None:
    """The pyproject.toml of ``dist`` beside its package in a checkout, or None."""
    path = dist.package.parent / "pyproject.toml"
    if path.exists() and f'name = "{dist.name}"' in path.read_text(encoding="utf-8"):
        return path
    return None


def build_wheel(out_dir: Path, dist: Distribution) -> Path:
    """The wheel of ``dist`` (no dependencies), built from a copy of its sources: the
    checkout's pyproject.toml when there is one, else a minimal one (an installed package)."""
    import mcts_course

    src = out_dir / f"src-{dist.name}"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(dist.package, src / dist.package.name, ignore=ignore)
    pyproject = _checkout_pyproject(dist)
    if pyproject is not None:
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (pyproject.parent / name).exists():
                shutil.copy(pyproject.parent / name, src / name)
    else:
        (src / "pyproject.toml").write_text(dist.minimal.format(version=mcts_course.__version__))
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out_dir)]
    # An isolated build fetches a recent setuptools from the package index; offline, fall back
    # on the environment's own setuptools.
    done = subprocess.run([*command, str(src)], capture_output=True, text=True)
    if done.returncode != 0 and _has_setuptools():
        done = subprocess.run(
            [*command, "--no-build-isolation", str(src)], capture_output=True, text=True
        )
    if done.returncode != 0:
        raise RuntimeError(
            f"building the wheel of {dist.name} failed:\n{done.stdout}\n{done.stderr}"
        )
    stem = dist.name.replace("-", "_")
    return next(out_dir.glob(f"{stem}-*.whl"))


def build_wheels(out_dir: Path) -> list[Path]:
    """The library's wheel and the grader's."""
    return [build_wheel(out_dir, dist) for dist in distributions()]


def _has_setuptools() -> bool:
    import importlib.util

    return importlib.util.find_spec("setuptools") is not None


def build_zip(
    out: str | Path,
    tests: str | Path | None = None,
    wheels: list[Path] | None = None,
    report: Callable[[str], None] | None = None,
) -> Path:
    """Write the autograder zip to ``out`` (with ``wheels``, or the two built here); return
    its path.  The hidden ``tests`` are checked against the reference solutions first
    (:func:`mcts_grader.vet.vet`: BadTests names a faulty one); the zip is written beside
    ``out`` and renamed at the end, so that a failure leaves no zip, not half of one.  Of a
    ``tests`` folder only the test files and the modules they import are taken, and a folder
    holding a submission's files is refused (:mod:`mcts_grader.packing`); ``report`` gets the
    list of what is packed (and what is not) once the check passed."""
    from mcts_course.errors import UsageError
    from mcts_course.grading import leftovers
    from mcts_grader.cli import untrusted_file, untrusted_tmp
    from mcts_grader.packing import packed_copy
    from mcts_grader.vet import vet

    out = Path(out)
    with contextlib.ExitStack() as stack:
        checked = None
        if tests:
            unsafe = untrusted_tmp()
            if unsafe:
                raise UsageError(f"{unsafe}; give the builder a TMPDIR of its own")
            untrusted = untrusted_file(Path(tests))
            if untrusted:  # the check below runs them as the builder, unconfined
                raise UsageError(f"--tests {tests}: {untrusted}; refusing to run it")
            # the zip gets the very copy the check ran, imported from a folder of the builder's
            # held: a builder killed with SIGKILL leaves it to the next grader's sweep
            private = stack.enter_context(leftovers.folder("mcts-zip-"))
            # a submission's files refused, and only the test files and their helpers taken
            checked, left = packed_copy(Path(tests), private / "hidden")
            vet([checked], scratch=private)
            if report is not None:
                report(_listing(checked, left, Path(tests)))
        return _write_zip(out, checked, wheels)


def _listing(copy: Path, left: list[Path], tests: Path) -> str:
    """What the zip takes of ``tests`` (the files of ``copy``) and what it leaves behind."""
    from mcts_course.grading.report import one_line

    taken = sorted(copy.rglob("*.py")) if copy.is_dir() else [copy]
    shown = [
        f"  tests/{p.relative_to(copy).as_posix() if copy.is_dir() else p.name}" for p in taken
    ]
    lines = [
        f"packing {len(taken)} file(s) of --tests {one_line(str(tests))}:",
        *map(one_line, shown),
    ]
    if left:
        names = ", ".join(one_line(p.relative_to(tests).as_posix()) for p in left[:10])
        more = f" and {len(left) - 10} more" if len(left) > 10 else ""
        lines.append(f"left out (neither a test file nor a module one imports): {names}{more}")
    return "\n".join(lines)


def _write_zip(out: Path, tests: Path | None, wheels: list[Path] | None) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as tmp:
        wheels = wheels or build_wheels(Path(tmp))
        partial = Path(tmp) / out.name
        # 0600 from its creation, whatever the umask: the zip holds the hidden tests, and it
        # keeps this mode when renamed over ``out`` (a folder others may read, often)
        descriptor = os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with (
            os.fdopen(descriptor, "wb") as raw,
            zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z,
        ):
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16  # executable
                z.writestr(info, text)
            for wheel in wheels:
                z.write(wheel, wheel.name)
            if tests:  # a folder of pytest files, or one file
                # every .py file the check above collected from, its subfolders' too
                files = sorted(tests.rglob("*.py")) if tests.is_dir() else [tests]
                for path in files:
                    if "__pycache__" not in path.parts:
                        inside = path.relative_to(tests) if tests.is_dir() else path.name
                        z.write(path, f"tests/{inside}")
        os.replace(partial, out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcts_grader.gradescope", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", help="the zip to write, e.g. dist/gradescope_autograder.zip")
    parser.add_argument("--tests", metavar="DIR", help="hidden tests to include")
    args = parser.parse_args(argv)
    from mcts_course.errors import UsageError
    from mcts_course.grading.sandbox import SandboxError

    try:
        out = build_zip(args.out, args.tests, report=lambda text: print(text, file=sys.stderr))
    except (UsageError, SandboxError, RuntimeError) as error:  # one line, no traceback
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    print(out)
    what = (
        "the hidden tests and the reference solutions" if args.tests else "the reference solutions"
    )
    print(
        f"{out} (mode 0600) holds {what}: keep it private (upload it to Gradescope only;"
        " never into a folder or repository students can read)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
