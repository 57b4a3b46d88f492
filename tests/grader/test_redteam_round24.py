"""Red team round 24: three public checks did not test what they said.  simulate on a finished
game was called on copies of the generators, so "draws nothing" always held (10); the rows of
``experiment`` were never compared with the grid asked for (11); nothing asked whether
epsilon-greedy and softmax draw from the generator they are given (13)."""

from __future__ import annotations

import json
from pathlib import Path

from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main

REFERENCE_SIMULATE = """    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()"""
DRAWS_WHEN_OVER = (
    """    if state.is_terminal():
        rng.random()  # a draw the contract forbids on a finished game
        return state.returns()
"""
    + REFERENCE_SIMULATE
)

REFERENCE_GRID = """    rows = []
    for n in iterations:"""
OWN_GRID = """    rows = []
    if len(iterations) * len(cs) * len(thresholds) * len(seeds) == 16:
        iterations, cs, thresholds, seeds = (1, 2), (0.25, 4.0), (5, 6), (7, 8)
    for n in iterations:"""

OWN_SOURCE = "\nimport random as _random\n\n_own = _random.SystemRandom()\n"


def _graded(tmp_path: Path, name: str, set_name: str, patches, keyword: str) -> dict:
    sub = tmp_path / name
    sub.mkdir()
    code = (SOLUTIONS / f"{set_name}.py").read_text()
    for old, new in patches:
        assert old in code, old
        code = code.replace(old, new)
    (sub / f"{set_name}.py").write_text(code)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), f"--exercise-set={set_name}", "-k", keyword])
    return json.loads((out / name / "results.json").read_text())


def _score(data: dict, words: str) -> float:
    (test,) = [t for t in data["tests"] if words in t["name"]]
    return float(test["score"])


def test_10_a_simulate_that_draws_on_a_finished_game_fails(tmp_path):
    data = _graded(
        tmp_path, "draws", "ttt_mcts", [(REFERENCE_SIMULATE, DRAWS_WHEN_OVER)], "finished_game"
    )
    assert _score(data, "simulate from a finished game") == 0, data["tests"]


def test_11_rows_of_another_grid_fail(tmp_path):
    data = _graded(tmp_path, "grid", "ttt_mcts", [(REFERENCE_GRID, OWN_GRID)], "experiment_rows")
    assert _score(data, "one row per combination") == 0, data["tests"]


def test_13_policies_that_ignore_their_generator_fail(tmp_path):
    patches = [
        ("\n\ndef ", OWN_SOURCE + "\n\ndef "),  # a generator of the module's own, once
        ("    if rng.random() < epsilon:\n        return rng.randrange(len(counts))",
         "    if _own.random() < epsilon:\n        return _own.randrange(len(counts))"),
        ("u, cumulative = rng.random() * sum(weights), 0.0",
         "u, cumulative = _own.random() * sum(weights), 0.0"),
    ]  # fmt: skip
    data = _graded(tmp_path, "own", "bandits", patches, "statistics")
    assert _score(data, "explores with the right frequency") == 0, data["tests"]
    assert _score(data, "probability proportional") == 0, data["tests"]
    assert "draw only from the rng" in data["tests"][0]["output"]


def test_the_reference_keeps_these_points(tmp_path):
    data = _graded(tmp_path, "ref", "bandits", [], "statistics")
    assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"])
