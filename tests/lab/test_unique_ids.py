"""No page of the book gives two elements one id: the scan of scripts/check_book.py finds a
repeated id, and book/_ext/unique_proof_ids.py renames sphinx-proof's shared "proof-content"."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _check_book():
    pytest.importorskip("playwright")  # check_book drives a browser for its other checks
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return _load("check_book", ROOT / "scripts" / "check_book.py")
    finally:
        sys.path.remove(str(ROOT / "scripts"))


def test_the_scan_names_each_repeated_id_once():
    check_book = _check_book()
    page = (
        '<div id="a"><p id="proof-content">x</p></div><section id=\'proof-content\'></section>'
        '<p data-id="a">not an id</p><span id="b"></span><span id="proof-content"></span>'
    )
    assert check_book.duplicate_ids(page) == ["proof-content"]
    assert check_book.duplicate_ids('<p id="a"></p><p id="b"></p>') == []


def test_the_scan_reports_the_page(tmp_path):
    check_book = _check_book()
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "good.html").write_text('<p id="a"></p>', encoding="utf-8")
    (tmp_path / "book" / "bad.html").write_text('<p id="a"></p><p id="a"></p>', encoding="utf-8")
    assert check_book.id_problems(tmp_path) == ["book/bad.html: duplicate HTML ids: a"]


def test_two_algorithms_on_one_page_get_ids_of_their_own(tmp_path):
    pytest.importorskip("sphinx_proof")
    from sphinx.application import Sphinx

    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['sphinx_proof', 'unique_proof_ids']\n",
        encoding="utf-8",
    )
    blocks = "".join(
        f".. prf:algorithm:: Step {k}\n   :label: alg-{k}\n\n   #. do {k}\n\n" for k in (1, 2)
    )
    blocks += ".. prf:algorithm:: Unlabelled\n\n   #. do 3\n\n"
    (source / "index.rst").write_text("Page\n====\n\n" + blocks, encoding="utf-8")
    out = tmp_path / "html"
    app = Sphinx(
        str(source),
        str(source),
        str(out),
        str(tmp_path / "doctrees"),
        "html",
        status=None,
        warning=None,
        freshenv=True,
    )
    app.build()
    html = (out / "index.html").read_text(encoding="utf-8")
    check_book = _check_book()
    assert check_book.duplicate_ids(html) == []
    assert 'id="alg-1-content"' in html and 'id="alg-2-content"' in html
    assert html.count("algorithm-content") == 3  # the class sphinx-proof styles is kept


def test_the_scan_finds_a_percentage_scaled_twice_in_the_visible_text_only():
    check_book = _check_book()
    page = (
        "<table><tr><td>2190.0%</td><td>1,060.0 %</td><td>21.9%</td><td>100.0%</td></tr></table>"
        '<script>var width = "250%";</script><div style="width: 300%">−3.1%</div>'
    )
    assert check_book.overscaled_percentages(page) == ["2190.0%", "1,060.0 %"]
    assert check_book.overscaled_percentages("<p>a share of 99.5% and 0.2%</p>") == []
