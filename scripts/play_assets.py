"""Put what the play page runs into ``book/_static/play/``: Pyodide's core and this package's wheel.

``make book`` runs this before building.  The Pyodide core comes from the npm registry at a
pinned version (``npm pack pyodide@VERSION``, checked against a pinned SHA-256) and is kept in
``.cache/``; only the five files a browser needs are copied.  The wheel is built from the working
tree with pip (no dependencies: the page imports the games and agents, which need the standard
library alone).  ``manifest.json`` tells the page's worker the file names and the sizes.

Sphinx copies ``book/_static`` into the built book (``html_static_path`` in ``_config.yml``), so
the built page loads everything from its own site.  Usage::

    python scripts/play_assets.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "book" / "_static" / "play"

PYODIDE_VERSION = "314.0.7"
PYODIDE_SHA256 = "66b7949e5a0cba2250b586d7e368bf12fb482800748d182c4618254b685ffaa0"
# What a browser loads: the ES module loader, the interpreter (JS glue + WebAssembly), the
# standard library and the package lock file that loadPyodide reads; package.json for the licence.
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
]
# The page's own files, kept in git.
PAGE_FILES = ["play.js", "play.css", "worker.js", "boot.js"]


def npm_tarball(package: str, version: str, sha256: str) -> Path:
    """The npm tarball of ``package@version``, downloaded once into .cache/ and verified."""
    cache = ROOT / ".cache" / package
    tarball = cache / f"{package}-{version}.tgz"
    if not tarball.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        _run(["npm", "pack", f"{package}@{version}", "--pack-destination", str(cache)])
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != sha256:
        tarball.unlink()
        raise SystemExit(f"{tarball.name}: SHA-256 {digest} is not the pinned {sha256}")
    return tarball


def pyodide_tarball() -> Path:
    """The npm tarball of the pinned Pyodide."""
    return npm_tarball("pyodide", PYODIDE_VERSION, PYODIDE_SHA256)


def copy_pyodide(target: Path) -> None:
    tarball = pyodide_tarball()
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as archive:
        for name in PYODIDE_FILES:
            member = archive.extractfile(f"package/{name}")
            assert member is not None, name
            (target / name).write_bytes(member.read())


def build_wheel(target: Path) -> Path:
    """This package's wheel, built from the working tree into ``target``."""
    for old in target.glob("mcts_course-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        # Build from a copy: an in-tree build would leave build/ and egg-info in the clone.
        source = Path(tmp) / "source"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(ROOT / "mcts_course", source / "mcts_course", ignore=ignore)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, source / name)
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                tmp,
                str(source),
            ]
        )
        (wheel,) = Path(tmp).glob("mcts_course-*.whl")
        return Path(shutil.copy2(wheel, target))


def _run(command: list[str]) -> None:
    """Run ``command`` quietly; show what it printed only if it fails."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"failed: {' '.join(command)}")


def write_manifest(static: Path, wheel: Path) -> dict:
    pyodide_dir = f"pyodide-{PYODIDE_VERSION}"
    files = {name: (static / name).stat().st_size for name in PAGE_FILES}
    files |= {
        f"{pyodide_dir}/{n}": (static / pyodide_dir / n).stat().st_size for n in PYODIDE_FILES
    }
    files[wheel.name] = wheel.stat().st_size
    manifest = {
        "pyodide_version": PYODIDE_VERSION,
        "pyodide_dir": pyodide_dir,
        "wheel": wheel.name,
        "files": files,
        "pyodide_bytes": sum(v for k, v in files.items() if k.startswith(pyodide_dir)),
        "total_bytes": sum(files.values()),
    }
    (static / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", type=Path, default=STATIC)
    args = parser.parse_args(argv)
    static: Path = args.static
    pyodide_dir = static / f"pyodide-{PYODIDE_VERSION}"
    for stale in static.glob("pyodide-*"):
        if stale != pyodide_dir:
            shutil.rmtree(stale)
    if not all((pyodide_dir / name).is_file() for name in PYODIDE_FILES):
        copy_pyodide(pyodide_dir)
    wheel = build_wheel(static)
    manifest = write_manifest(static, wheel)
    print(
        f"play page assets: Pyodide {PYODIDE_VERSION} ({manifest['pyodide_bytes'] / 1e6:.1f} MB), "
        f"{wheel.name} ({wheel.stat().st_size / 1e3:.0f} kB), "
        f"{manifest['total_bytes'] / 1e6:.1f} MB in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
