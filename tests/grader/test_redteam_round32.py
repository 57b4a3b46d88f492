"""Red team round 32: a student's install held working code for six exercise functions (the
public checks' working of the contracts: 03, 07), and the folder the grader was installed from
stayed readable in every sandbox when it lay under ``/usr`` (08)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

from mcts_course.grading import invocation

PUBLIC = Path(invocation.__file__).resolve().parent / "tests"
# what each exercise function's working looked like in the public checks before
WORKINGS = {
    "test_bandits.py": ("contract_move", "contract_ucb1", "contract_scores"),
    "test_learning.py": ("target_shares", "puct_formula", "highest_puct"),
}


def test_03_07_the_public_checks_work_out_no_contract():
    for name, workings in WORKINGS.items():
        tree = ast.parse((PUBLIC / name).read_text())
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert not defined & set(workings), (name, defined & set(workings))


def _entry(folder: Path | None, text: str | None = None):
    if text is None:
        text = json.dumps({"url": folder.as_uri(), "dir_info": {}}) if folder else None
    dist = SimpleNamespace(read_text=lambda _: text)
    return SimpleNamespace(dist=dist, value="mcts_grader.tests")


def test_08_the_folder_the_grader_was_installed_from_is_hidden(tmp_path, monkeypatch):
    source = tmp_path / "checkout" / "grader"
    (source / "mcts_grader" / "solutions").mkdir(parents=True)
    entries = [
        _entry(source),
        _entry(None),  # installed from an index: nothing recorded
        _entry(None, "not json"),
        _entry(None, json.dumps({"url": "https://example.org/grader.tar.gz"})),
        _entry(tmp_path / "gone"),
    ]
    monkeypatch.setattr(invocation, "entry_points", lambda group: entries)
    assert invocation.installed_from() == (source.resolve(),)
    assert source.resolve() in invocation.grader_packages()


def test_08_a_folder_holding_the_interpreter_stays(tmp_path, monkeypatch):
    import sys

    prefix = Path(sys.prefix).resolve()
    monkeypatch.setattr(invocation, "entry_points", lambda group: [_entry(prefix.parent)])
    assert invocation.installed_from() == ()
