"""Red team round 32: a student's install held working code for six exercise functions (the
public checks' working of the contracts: 03, 07), and the folder the grader was installed from
stayed readable in every sandbox when it lay under ``/usr`` (08)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from mcts_course.grading import checkouts, confine, invocation
from mcts_course.grading.invocation import PACKAGE

PUBLIC = Path(invocation.__file__).resolve().parent / "tests"
# what each exercise function's working looked like in the public checks before
WORKINGS = {
    "test_bandits.py": ("contract_move", "contract_ucb1", "contract_scores"),
    "test_learning.py": ("target_shares", "puct_formula", "highest_puct"),
    "test_ttt_mcts.py": ("search_with",),  # mcts_search's loop (found after red team 34)
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
    masks = confine.cover(str(tmp_path), [str(prefix)], [str(tmp_path)])
    assert masks == [str(tmp_path / "solutions.py")]


def test_the_loop_of_mcts_search_is_the_graders(monkeypatch):
    """The public checks regrow a search's tree with the grader's loop (an entry point of the
    grader's distribution); without the grader there is none, and a grader that lacks it is
    an error, not a check that quietly does less."""
    loop = invocation.contract("mcts_search")
    assert loop is not None and loop.__module__ == "mcts_grader.contracts"
    real = invocation.entry_points

    def without_contracts(group, **selection):
        return [] if group == invocation.CONTRACTS_ENTRY_POINTS else real(group=group)

    monkeypatch.setattr(invocation, "entry_points", without_contracts)
    with pytest.raises(RuntimeError, match="reinstall"):
        invocation.contract("mcts_search")
    monkeypatch.setattr(invocation, "reference_test_packages", lambda: ())
    assert invocation.contract("mcts_search") is None


def test_a_grader_without_the_loop_refuses_to_grade(tmp_path, monkeypatch):
    """A grader installed before its tests had the loop (an editable install not reinstalled)
    must not blame every student for it: the graded run stops with a usage error."""
    from mcts_course.grading import plugin

    def missing(name):
        raise RuntimeError(f"the grader declares no {name!r}: reinstall it")

    monkeypatch.setattr(plugin, "contract", missing)
    (tmp_path / "bandits.py").write_text("")
    code = pytest.main(
        ["-p", "no:cacheprovider", "-q", "--co", "--pyargs", PACKAGE, f"--submission={tmp_path}"]
    )
    assert code == pytest.ExitCode.USAGE_ERROR
