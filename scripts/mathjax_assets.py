"""Put MathJax into ``book/_static/mathjax/``, so the book typesets its formulas without a CDN.

Sphinx's default loads MathJax from jsDelivr: a reader offline (a classroom without internet, a
copy of the built book on a USB stick) then sees raw TeX in every algorithm box.  ``make book``
runs this before building; ``_config.yml`` points ``mathjax_path`` at the copy.  MathJax comes
from the npm registry at a pinned version (``npm pack mathjax@VERSION``, checked against a pinned
SHA-256, kept in ``.cache/``).  Only what the page's component loads is copied: the combined
TeX/MathML-to-HTML script, its web fonts, the TeX extensions it may load on demand, and the
accessibility and menu parts the right-click menu may load.  Usage::

    python scripts/mathjax_assets.py
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
from pathlib import Path

from play_assets import ROOT, npm_tarball

STATIC = ROOT / "book" / "_static" / "mathjax"
MATHJAX_VERSION = "3.2.2"
MATHJAX_SHA256 = "1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09"
# Paths inside the package's es5/ folder: a file, or a folder copied whole.  MathJax finds the
# others relative to the main script ("[mathjax]/output/chtml/fonts/woff-v2", "[tex]/...").
MATHJAX_PARTS = [
    "tex-mml-chtml.js",
    "output/chtml/fonts/woff-v2",
    "input/tex/extensions",
    "input/mml/extensions",
    "a11y",
    "sre",
    "ui",
]
LICENCE = "LICENSE"


def copy_mathjax(target: Path) -> int:
    """Copy the parts of MathJax the book needs into ``target``; the number of bytes copied."""
    tarball = npm_tarball("mathjax", MATHJAX_VERSION, MATHJAX_SHA256)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    copied = 0
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            name = member.name.removeprefix("package/")
            inner = name.removeprefix("es5/")
            wanted = name == LICENCE or (
                name.startswith("es5/")
                and any(inner == part or inner.startswith(part + "/") for part in MATHJAX_PARTS)
            )
            if not wanted:
                continue
            data = archive.extractfile(member)
            assert data is not None, name
            path = target / inner
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.read())
            copied += member.size
    (target / "VERSION").write_text(MATHJAX_VERSION + "\n")
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", type=Path, default=STATIC)
    args = parser.parse_args(argv)
    static: Path = args.static
    version_file = static / "VERSION"
    main_script = static / MATHJAX_PARTS[0]
    current = version_file.read_text().strip() if version_file.is_file() else None
    if current == MATHJAX_VERSION and main_script.is_file():
        print(f"MathJax {MATHJAX_VERSION}: already in {static}")
        return 0
    copied = copy_mathjax(static)
    print(f"MathJax {MATHJAX_VERSION}: {copied / 1e6:.1f} MB into {static}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
