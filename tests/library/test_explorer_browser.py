"""The explorer page in a real browser, as part of ``make test`` (issue 26): Debian's Chromium,
offline, driven by ``scripts/check_explorer.py`` (page ready, one iteration stepped phase by
phase and 99 more run, every drawn node's visits and wins equal to ``MCTSAgent``'s tree, a
clicked node's children table, the link restoring the screen, keyboard, phone width, no
JavaScript error, no request to another host).

The page is the chapter's own HTML block (``book/16b_explorer.md``) on a bare page beside the
book's ``_static`` folders, with Pyodide's core and this package's wheel put there by
``scripts/play_assets.py``: the same files the built book serves, without building the book."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("playwright")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or shutil.which("npm") is None,
    reason="needs Debian's chromium and npm (make test installs both)",
)


def explorer_block() -> str:
    text = (ROOT / "book" / "16b_explorer.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```\{raw\} html\n(.*?)```", text, re.S)
    return block


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explorer-site")
    (root / "book").mkdir()
    page = f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{explorer_block()}"
    (root / "book" / "16b_explorer.html").write_text(page + "</body></html>", encoding="utf-8")
    static = root / "_static"
    shutil.copytree(ROOT / "book" / "_static" / "explorer", static / "explorer")
    ignore = shutil.ignore_patterns("pyodide-*", "*.whl", "manifest.json")
    shutil.copytree(ROOT / "book" / "_static" / "play", static / "play", ignore=ignore)
    command = [sys.executable, str(ROOT / "scripts" / "play_assets.py"), "--static"]
    subprocess.run([*command, str(static / "play")], check=True, cwd=ROOT, timeout=900)
    return root


def test_the_explorer_page_agrees_with_the_package_in_chromium(site: Path):
    command = [sys.executable, str(ROOT / "scripts" / "check_explorer.py"), str(site)]
    run = subprocess.run(
        [*command, "--chromium", str(CHROMIUM)], capture_output=True, text=True, timeout=1200
    )
    assert run.returncode == 0 and "explorer check: clean" in run.stdout, run.stdout + run.stderr
