"""More .py files beside the exercise files than the sandbox copies (200 files, 4 MB): the
later ones were left out without a word, so the student's import of one failed in a row that
read ``graded`` (red team 21's note).  The cut is now said like the snapshot's own limits."""

from __future__ import annotations

import json
from pathlib import Path

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading import sandbox


def _folder(where: Path, helpers: int) -> Path:
    where.mkdir(parents=True)
    (where / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    for i in range(helpers):
        (where / f"h{i:03d}.py").write_text(f"X = {i}\n")
    return where


def test_the_files_left_out_are_counted(tmp_path):
    full = _folder(tmp_path / "full", sandbox.SIBLINGS - 1)  # with bandits.py: exactly the cap
    assert sandbox.siblings_left_out(full) == ""
    assert len(sandbox.sibling_sources(full)) == sandbox.SIBLINGS
    over = _folder(tmp_path / "over", sandbox.SIBLINGS + 2)
    why = sandbox.siblings_left_out(over)
    assert why.startswith("3 of the .py files") and "importing them fails" in why, why
    assert [n for n, _ in sandbox.sibling_sources(over)][-1] == f"h{sandbox.SIBLINGS - 2:03d}.py"


def test_the_bytes_cap_is_counted_too(tmp_path):
    where = _folder(tmp_path / "big", 0)
    chunk = "# " + "x" * (1 << 20) + "\n"  # about 1 MB each, under the 2 MB per file
    for i in range(25):
        (where / f"b{i:02d}.py").write_text(chunk)
    copied = sandbox.sibling_sources(where)
    assert sum(len(d) for _, d in copied) <= sandbox.SIBLINGS_BYTES
    assert sandbox.siblings_left_out(where).startswith(f"{26 - len(copied)} of the .py files")


def test_a_grade_with_files_left_out_is_not_a_plain_graded_row(tmp_path):
    many = _folder(tmp_path / "many", sandbox.SIBLINGS + 1)
    fits = _folder(tmp_path / "fits", 3)
    out = tmp_path / "o"
    code = main(
        ["grade", str(many), str(fits), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"]
    )
    many = json.loads((out / "many" / "results.json").read_text())
    fits = json.loads((out / "fits" / "results.json").read_text())
    for data in (many, fits):  # the reference answers either way: only the status differs
        assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"]), data
    assert fits["extra_data"]["status"] == "graded" and "copy_cut" not in fits["extra_data"]
    assert many["extra_data"]["status"] == "incomplete copy" and code == 1
    assert "2 of the .py files" in " ".join(many["extra_data"]["copy_cut"])
    assert "Note: 2 of the .py files" in many["output"]
    assert "note: 2 of the .py files" in (out / "many" / "pytest.log").read_text()


def test_a_helper_named_with_an_undecodable_byte_leaves_results_json_valid_utf8(tmp_path):
    """Red team 21's note (07): the notes named the imported helper ``h\\udcff.py``, written
    as a JSON escape of a lone surrogate, which a strict UTF-8 reader refuses."""
    import os

    where = _folder(tmp_path / "odd", 0)
    with open(os.path.join(os.fsencode(where), b"h\xff.py"), "wb") as helper:
        helper.write(b"X = 1\n")
    with (where / "bandits.py").open("a") as code:
        code.write('\nimport importlib\n\nimportlib.import_module("h\\udcff")\n')
    out = tmp_path / "o"
    main(["grade", str(where), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    raw = (out / "odd" / "results.json").read_bytes()
    raw.decode("utf-8")
    data = json.loads(raw)
    notes = " ".join(data["extra_data"].get("notes", []))
    assert "h\\udcff.py" in notes, notes  # the name shown with its escape, as text
    assert b"\\udc" not in raw.replace(b"\\\\udc", b""), raw  # no JSON escape of a surrogate
    for text in (notes, data["output"]):
        text.encode("utf-8")  # strict: no lone surrogate left
