"""The checker of the book's teaching standard (scripts/check_standard.py) on small built pages:
it counts the code a reader sees, finds pseudocode blocks and the closing Exercises section, and
refuses the earlier course outside the instructors' appendix."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load():
    path = ROOT / "scripts" / "check_standard.py"
    spec = importlib.util.spec_from_file_location("check_standard", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_standard"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


standard = _load()


def code(lines: int, language: str = "ipython3") -> str:
    body = "\n".join(f"x{i} = {i}" for i in range(lines))
    block = f"<div class='highlight'><pre>{body}\n\n</pre></div>"
    return f'<div class="highlight-{language} notranslate">{block}</div>'


def chapter(*parts: str, last: str = "Exercises") -> str:
    return (
        "<html><nav><div class='highlight-python'><pre>" + "n\n" * 99 + "</pre></div></nav>"
        "<article><h1>4. Minimax</h1>"
        + "".join(parts)
        + f"<h2>4.5. {last}<a>#</a></h2><p>Q.</p></article></html>"
    )


def algorithms(n: int) -> str:
    return "".join('<div class="proof algorithm admonition"><p>step</p></div>' for _ in range(n))


def test_counts_only_the_code_inside_the_article():
    page = standard.read_page(
        chapter(code(30), code(12, "python"), code(500, "myst-ansi"), code(40, "text"))
    )
    assert page.code_lines == 42
    assert page.headings[-1] == "Exercises"


def test_a_clean_book_passes():
    pages = {
        "04_minimax.html": standard.read_page(chapter(code(60), algorithms(12))),
        "20_appendix.html": standard.read_page("<article><p>the earlier course</p></article>"),
        "17_tictactoe_exercises.html": standard.read_page(chapter(code(400))),
    }
    assert standard.problems(pages) == []


def test_each_shortfall_is_named():
    pages = {
        "04_minimax.html": standard.read_page(chapter(code(61), algorithms(11))),
        "08_mcts.html": standard.read_page(
            chapter("<p>as the Earlier Course did</p>", last="History")
        ),
    }
    found = standard.problems(pages)
    assert any("04_minimax.html: 61 lines of code" in line for line in found)
    assert any("08_mcts.html: last section is 'History'" in line for line in found)
    assert any("08_mcts.html: names the earlier course" in line for line in found)
    assert any("11 pseudocode blocks" in line for line in found)
    assert len(found) == 4


def test_main_reports_and_fails_on_a_built_book(tmp_path, capsys):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "05_game_trees.html").write_text(chapter(code(70)), encoding="utf-8")
    assert standard.main([str(tmp_path)]) == 1
    assert "05_game_trees.html: 70 code lines" in capsys.readouterr().out
    (tmp_path / "book" / "05_game_trees.html").write_text(
        chapter(code(7), algorithms(12)), encoding="utf-8"
    )
    assert standard.main([str(tmp_path)]) == 0
