"""The book's sources agree with each other: toc, chapters, .ipynb twins, install cell, config.

Colab opens the .ipynb twin of each chapter, so a twin that drifts from its .md source would
show readers an old chapter.  Regenerate them with `make notebooks`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"


def _load_sync():
    path = ROOT / "scripts" / "sync_notebooks.py"
    spec = importlib.util.spec_from_file_location("sync_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync = _load_sync()
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
CHAPTERS = sync.chapter_sources()


def _toc_files() -> list[str]:
    """Every file of the table of contents, sections (nested under a chapter) included."""

    def walk(entries: list[dict]) -> list[str]:
        return [f for e in entries for f in [e["file"], *walk(e.get("sections", []))]]

    files = [TOC["root"]]
    for part in TOC.get("parts", []):
        files += walk(part["chapters"])
    return files


def test_toc_numbers_are_the_file_numbers():
    # The numbered parts number their chapters on from one part to the next; the reader must
    # see the number the file names carry (16b and 20a/20b are sections, not chapters).
    chapters = [c["file"] for p in TOC["parts"] if p.get("numbered") for c in p["chapters"]]
    numbers = [int(Path(f).name.split("_")[0]) for f in chapters]
    assert numbers == list(range(1, len(chapters) + 1)), numbers


def _cells(notebook) -> list[tuple[str, str, list[str]]]:
    return [
        (cell.cell_type, cell.source.strip(), sorted(cell.metadata.get("tags", [])))
        for cell in notebook.cells
    ]


def test_every_toc_entry_is_a_chapter_source():
    for name in _toc_files():
        assert (ROOT / f"{name}.md").is_file(), f"{name}.md is in _toc.yml but missing"


def test_every_chapter_is_in_the_toc():
    listed = set(_toc_files())
    for md in BOOK.glob("*.md"):
        assert f"book/{md.stem}" in listed, f"{md.name} is not in _toc.yml"


def test_the_numbered_chapters_are_notebooks():
    names = [md.name for md in CHAPTERS]
    for number in range(1, 10):
        assert any(name.startswith(f"{number:02d}_") for name in names), number


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_first_code_cell_installs_the_package_from_the_configured_repository(md):
    url, branch = sync.repository()
    assert url == CONFIG["repository"]["url"].rstrip("/")
    notebook = jupytext.read(md)
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert first.source.strip() == sync.install_cell_code(url, branch).strip()
    assert f"git+{url}@{branch}" in first.source
    assert '"google.colab" in sys.modules' in first.source
    assert "remove-cell" in first.metadata.get("tags", [])


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_ipynb_twin_matches_its_markdown_source(md):
    twin = md.with_suffix(".ipynb")
    assert twin.is_file(), f"{twin.name} missing: run `make notebooks`"
    assert _cells(jupytext.read(twin)) == _cells(jupytext.read(md)), (
        f"{twin.name} differs from {md.name}: run `make notebooks`"
    )
    data = json.loads(twin.read_text(encoding="utf-8"))
    assert all(cell.get("outputs", []) == [] for cell in data["cells"]), "twins carry no outputs"


def test_sync_script_finds_nothing_to_do():
    assert sync.sync(check=True) == [], "run `make notebooks`"


def test_install_cell_in_the_ipynb_runs_as_a_no_op_outside_colab():
    code = sync.install_cell_code("https://github.com/example/fork", "main")
    namespace: dict = {}
    exec(compile(code, "<install cell>", "exec"), namespace)  # must not try to install
    assert "url" not in namespace


def test_colab_button_opens_the_ipynb_twin():
    launch = CONFIG["launch_buttons"]
    assert launch["colab_url"] == "https://colab.research.google.com"
    # sphinx-book-theme links to <path_to_book>/<page>.ipynb when that file sits next to the
    # .md source; with path_to_book "" the page name is the path from the repository root.
    assert CONFIG["repository"]["path_to_book"] == ""
    assert "github.com/" in CONFIG["repository"]["url"]


def test_sphinx_sees_only_the_markdown_sources():
    excluded = CONFIG["exclude_patterns"]
    assert "book/*.ipynb" in excluded
    for name in ("README.md", "exercises", ".venv", "tests", "_build"):
        assert name in excluded, name
    assert CONFIG["only_build_toc_files"] is True


def test_thebe_extension_is_left_out():
    # Its inline script is written twice per page with Sphinx 7: a JavaScript error.
    extensions = CONFIG["sphinx"]["config"]["extensions"]
    assert "sphinx_thebe" not in extensions
    assert "myst_nb" in extensions and "sphinx_book_theme" in extensions
