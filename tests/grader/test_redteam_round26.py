"""Red team round 26: every .py file and notebook of a submission was parsed in the grader's own
process to find the exercises: 256 files of 256 KB of code each (inside the copy's limits) cost
minutes of root CPU per run (01).  A file that can neither call check() nor define a set's
function is no longer parsed, and 4 MB of code at most is read to find the exercises."""

from __future__ import annotations

from mcts_course.grading import sources


def test_01_a_file_that_cannot_hold_a_set_is_not_parsed(tmp_path, monkeypatch):
    parsed: list[int] = []
    real = sources.parse
    monkeypatch.setattr(sources, "parse", lambda code: parsed.append(len(code)) or real(code))
    (tmp_path / "junk.py").write_text("a;" * 50_000 + "\n")
    (tmp_path / "mine.py").write_text("def ucb1_choice(counts, sums, c=1.0):\n    return 0\n")
    assert sources.read_source(tmp_path / "junk.py").sets == {}
    assert parsed == []
    sources.read_source(tmp_path / "mine.py")
    assert len(parsed) == 1


def test_01_the_code_read_to_find_the_exercises_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "CODE_BUDGET", 1_000)
    (tmp_path / "bandits.py").write_text("def ucb1_choice(counts, sums, c=1.0):\n    return 0\n")
    for i in range(3):
        (tmp_path / f"h{i}.py").write_text(f"# check\nX = [{'1, ' * 400}]\n")
    cut: list[str] = []
    found = sources.find_sources(tmp_path, cut=cut)
    assert "bandits" in found  # a file named as its set is always read
    assert cut == [
        "2 files were not searched for exercises: the grader reads 0 MB of code at most to find "
        "them (name the files as the sets)"
    ]


def test_11_a_reply_of_too_many_values_is_refused_before_decoding(monkeypatch):
    from mcts_course.grading import process
    from mcts_course.grading.protocol import MAX_VALUES

    decoded: list[int] = []
    real = process.json.loads
    monkeypatch.setattr(process.json, "loads", lambda text: decoded.append(len(text)) or real(text))
    flood = '{"id": 1, "ok": [' + "{}," * MAX_VALUES + "{}]}"
    assert process._parse(flood) is None and decoded == []
    assert process._parse('{"id": 1, "ok": [' + "{}," * 1000 + "{}]}") is not None


def test_01_a_data_file_that_is_not_parsed_costs_no_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "CODE_BUDGET", 1_000)
    (tmp_path / "a_table.py").write_text("TABLE = [" + "1, " * 2000 + "]\n")  # no set in it
    work = "def ucb1_choice(counts, sums, c=1.0):\n    return 0\n\n\n"
    work += "def epsilon_greedy_choice(counts, sums, epsilon, rng):\n    return 0\n"
    (tmp_path / "z_work.py").write_text(work)  # found by its definitions, after the table
    cut: list[str] = []
    found = sources.find_sources(tmp_path, cut=cut)
    assert "bandits" in found and cut == []


def test_01b_a_notebook_that_cannot_hold_a_set_is_not_parsed(tmp_path, monkeypatch):
    import json

    parsed: list[int] = []
    real = sources.parse
    monkeypatch.setattr(sources, "parse", lambda code: parsed.append(len(code)) or real(code))
    junk = {"cells": [{"cell_type": "code", "source": "a;" * 50_000}] * 3, "nbformat": 4}
    (tmp_path / "junk.ipynb").write_text(json.dumps(junk))
    source = sources.read_source(tmp_path / "junk.ipynb")
    assert source.sets == {} and source.everything == "" and parsed == []
    mine = {"cells": [{"cell_type": "code", "source": 'check("bandits")'}], "nbformat": 4}
    (tmp_path / "mine.ipynb").write_text(json.dumps(mine))
    assert sources.read_source(tmp_path / "mine.ipynb").sets == {"bandits": 1} and parsed
