"""Red team round 25: a notebook of 20 MB of empty JSON objects was parsed whole in the grader's
own process, outside every cgroup, for 551 MB (01)."""

from __future__ import annotations

import json

from mcts_course.grading import sources


def test_01_a_notebook_of_too_many_objects_is_not_parsed(tmp_path, monkeypatch):
    calls: list[int] = []
    real = json.loads

    def counted(text, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(sources.json, "loads", counted)
    bomb = tmp_path / "extra.ipynb"
    bomb.write_text('{"cells": [' + "{}," * sources.NOTEBOOK_OBJECTS + '{}], "nbformat": 4}')
    source = sources.read_source(bomb)
    assert not calls and source.code == "" and not source.sets
    assert "over 100,000 JSON objects" in source.notes[0], source.notes
    fine = tmp_path / "fine.ipynb"
    cell = {"cell_type": "code", "source": "def ucb1_choice(counts, sums, c=1.0):\n    return 0\n"}
    fine.write_text(json.dumps({"cells": [cell] * 100, "nbformat": 4}))
    assert "def ucb1_choice" in sources.read_source(fine).code and calls
