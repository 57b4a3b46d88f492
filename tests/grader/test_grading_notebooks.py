"""The Colab path: the exercise notebooks run top to bottom in a fresh kernel (install cell,
stubs, checks) and report 0 for the stubs; the grader reads notebooks as submissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grading_fixtures.points import most
from mcts_grader.batch import grade

from mcts_course.grading.plugin import SCALE_ENV
from mcts_course.grading.sets import SETS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
SOLUTIONS = ROOT / "grader" / "mcts_grader" / "solutions"
# chapter -> the sets whose stubs it holds, from the sets' registry
NOTEBOOKS: dict[str, tuple[str, ...]] = {}
for _set in SETS.values():
    NOTEBOOKS[_set.notebook] = (*NOTEBOOKS.get(_set.notebook, ()), _set.name)


def solved(name: str, sets) -> dict:
    """The chapter's notebook with the reference code pasted in before the last cell."""
    notebook = json.loads((BOOK / f"{name}.ipynb").read_text())
    for s in sets:
        code = (SOLUTIONS / f"{s}.py").read_text()
        cell = {
            "cell_type": "code",
            "metadata": {},
            "source": code,
            "outputs": [],
            "execution_count": None,
            "id": f"solution-{s}",
        }
        notebook["cells"].insert(len(notebook["cells"]) - 1, cell)
    return notebook


def execute(notebook: dict, cwd: Path) -> list[str]:
    """Run a notebook in a fresh kernel; return the text output of every cell."""
    nb = nbformat.reads(json.dumps(notebook), as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()  # raises CellExecutionError on any error
    texts = []
    for cell in nb.cells:
        texts.append("".join(o.get("text", "") for o in cell.get("outputs", [])))
    return texts


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_runs_and_stubs_score_zero(name, tmp_path):
    notebook = json.loads((BOOK / f"{name}.ipynb").read_text())
    texts = execute(notebook, tmp_path)
    last = texts[-1]
    for s in NOTEBOOKS[name]:
        assert f"{SETS[s].exercises[0]}" in last
    assert "total" in last and all(
        line.split()[1] == "0" for line in last.splitlines() if line.startswith("total")
    ), last


def test_solved_notebook_scores_full_marks(tmp_path, monkeypatch):
    """the notebook's check() runs the public checks: all of their points"""
    # Its cells call check() with the tests' own time limits, in the kernel's process: on a
    # loaded machine (load 10 on 2 cores) "MCTS blocks the opponent's line" (1.6 s of its 4 s at
    # load 8) ran out of time.  Time is not what this test is about: the kernel inherits a
    # larger scale, the answers checked are the same.
    monkeypatch.setenv(SCALE_ENV, "4")
    best = most("ttt_mcts", public_only=True)
    texts = execute(solved("17_tictactoe_exercises", ("ttt_mcts",)), tmp_path)
    assert f"total            {best:g} / {best:g}" in texts[-1], texts[-1]


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_grading_notebook_submissions(name, tmp_path):
    stub = tmp_path / "stub" / f"{name}.ipynb"
    stub.parent.mkdir()
    stub.write_text((BOOK / f"{name}.ipynb").read_text())
    done = tmp_path / "done" / f"{name}.ipynb"
    done.parent.mkdir()
    done.write_text(json.dumps(solved(name, NOTEBOOKS[name])))
    sets = list(NOTEBOOKS[name])
    stub_grade, done_grade = grade([stub.parent, done.parent], sets=sets, n_jobs=2)
    assert stub_grade.max_score > 0 and stub_grade.score == 0
    assert set(stub_grade.files) == set(sets)  # each set found in the notebook
    assert done_grade.score == done_grade.max_score, [
        (o.name, o.output) for o in done_grade.outcomes if not o.passed
    ]
