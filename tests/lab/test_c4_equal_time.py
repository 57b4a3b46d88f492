"""Chapter 15's equal-time match at fixed budgets (lab/mcts_lab/c4_equal_time.py)."""

from __future__ import annotations

import copy

from mcts_lab import c4_equal_time as timed


def test_the_budgets_follow_from_the_measured_costs() -> None:
    data = timed.load()
    calibration = data["calibration"]
    ratio = calibration["puct_seconds"] / calibration["uct_seconds_per_iteration"]
    assert calibration["uct"] == max(50, round(ratio / 50) * 50)
    assert data["puct_iterations"] == timed.PUCT_ITERATIONS
    assert data["match"].games == timed.GAMES == data["games"]
    assert all(seconds > 0 for seconds in data["check"].values())


def test_the_match_repeats_for_its_budgets_and_seed() -> None:
    data = timed.load()
    assert timed.recheck(data, games=1)
    tampered = copy.deepcopy(data)
    r0, r1 = tampered["match"].returns[0]
    tampered["match"].returns[0] = (-r0, -r1) if r0 else (1, -1)
    assert not timed.recheck(tampered, games=1)
