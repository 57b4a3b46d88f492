"""Build the Gradescope autograder zip: ``python -m mcts_course.grading.gradescope OUT.zip``.

The zip holds ``setup.sh`` (installs Python and this package's wheel, which carries the tests),
``run_autograder`` (runs ``mcts-course grade --gradescope`` on /autograder/submission and writes
/autograder/results/results.json), the wheel, and optionally a ``tests/`` folder of the
instructor's hidden tests (``--tests DIR``), which the grader picks up from
/autograder/source/tests.
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
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
apt-get install -y python3 python3-pip python3-venv
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install /autograder/source/*.whl
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; it writes /autograder/results/results.json.
cd /autograder/source
exec /autograder/venv/bin/mcts-course grade --gradescope
"""

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(out_dir: Path, root: Path = ROOT) -> Path:
    """This package's wheel (no dependencies), built from a copy of the source tree."""
    src = out_dir / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(root / "mcts_course", src / "mcts_course", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (root / name).exists():
            shutil.copy(root / name, src / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out_dir),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    return next(out_dir.glob("mcts_course-*.whl"))


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
            if tests:
                for path in sorted(Path(tests).glob("*.py")):
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
