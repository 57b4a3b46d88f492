"""The repository's address is one setting (``repository.url`` of _config.yml): the Colab install
cells are generated from it, and every other GitHub address in the project's text is it (or a
third-party repository the book cites)."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("jupytext")  # the sync script's imports
pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]


# the script's names (it is no module of a package)
sync = SimpleNamespace(**runpy.run_path(str(ROOT / "scripts" / "sync_notebooks.py")))


def test_every_address_of_the_repository_is_the_configured_one():
    url, branch = sync.repository()
    own = sync.owner_name(url)
    mentions = sync.repository_mentions()
    ours = [(path, line) for path, line, name in mentions if name == own]
    files = {path.relative_to(ROOT).as_posix() for path, _ in ours}
    # the scan reaches the places the address is written: README, the install cells of every
    # chapter and of its twin, the book's configuration
    assert {"README.md", "_config.yml", "book/17_tictactoe_exercises.ipynb"} <= files
    assert len(ours) >= 2 * len(sync.chapter_sources())
    assert sync.stray_addresses(url) == []


def test_an_address_written_by_hand_that_is_not_the_setting_is_found(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "README.md").write_text(
        "git clone https://github.com/mcts-course/mcts-course\n"
        "see [OpenSpiel](https://github.com/google-deepmind/open_spiel).\n"
    )
    (tmp_path / "book" / "01_x.md").write_text(
        "pip install git+https://github.com/old-owner/mcts-course.git@main\n"
    )
    assert sync.stray_addresses("https://github.com/mcts-course/mcts-course/", tmp_path) == [
        "book/01_x.md:1: old-owner/mcts-course"
    ]
    # a fork that moved the setting is told of the README line it still has to change
    assert sync.stray_addresses("https://github.com/fork/mcts-course", tmp_path) == [
        "README.md:1: mcts-course/mcts-course",
        "book/01_x.md:1: old-owner/mcts-course",
    ]


def test_the_install_cell_follows_the_setting():
    code = sync.install_cell_code("https://github.com/fork/mcts-course", "teaching")
    assert 'source = "git+https://github.com/fork/mcts-course@teaching"' in code
