"""Red team round 32: a student's install held working code for six exercise functions (the
public checks' working of the contracts: 03, 07), and the folder the grader was installed from
stayed readable in every sandbox when it lay under ``/usr`` (08)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

from mcts_course.grading import checkouts, confine, invocation

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


def _dist(url: str | None, text: str | None = None) -> SimpleNamespace:
    if text is None:
        text = json.dumps({"url": url, "dir_info": {}}) if url else None
    return SimpleNamespace(
        metadata={"Name": "mcts-course-grader"},
        locate_file=lambda _: Path("/nonexistent-site"),
        read_text=lambda _: text,
    )


def test_08_the_folder_the_grader_was_installed_from_is_covered(tmp_path, monkeypatch):
    source = tmp_path / "checkout" / "grader"
    (source / "mcts_grader" / "solutions").mkdir(parents=True)
    (source.parent / ".git").mkdir()
    dists = [
        _dist(source.as_uri()),
        _dist(None),  # installed from an index: nothing recorded
        _dist(None, "not json"),
        _dist("https://example.org/grader.tar.gz"),
    ]
    monkeypatch.setattr(checkouts.metadata, "distributions", lambda: dists)
    assert str(source.parent.resolve()) in checkouts.find([])


def test_08_a_folder_holding_the_interpreter_stays(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (tmp_path / "solutions.py").write_text("")
    masks = confine._cover(str(tmp_path), [str(prefix)], [str(tmp_path)])
    assert masks == [str(tmp_path / "solutions.py")]
