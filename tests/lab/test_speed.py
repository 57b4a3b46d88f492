"""The appendix's speed table: one row per workload, whichever peers were measured."""

from __future__ import annotations

import matplotlib
import pytest
from mcts_lab.speed import speed_table

from mcts_course.bench import Measurement

matplotlib.use("Agg")

MEASURED = [
    Measurement("othello rollouts", "games/s", 1000.0, "OpenSpiel", None),
    Measurement("othello batched rollouts", "games/s", 12000.0, "OpenSpiel", 2000.0),
    Measurement("othello rollouts", "games/s", 1200.0, "list-of-lists Othello", 60.0),
    Measurement("othello MCTS (200 iterations)", "iterations/s", 900.0),
]


def test_one_row_per_workload_with_a_column_per_peer():
    speeds = speed_table(MEASURED)
    assert list(speeds.rows) == [
        "othello rollouts",
        "othello batched rollouts",
        "othello MCTS (200 iterations)",
    ]
    single = speeds["othello rollouts"]
    assert single.rate == pytest.approx(1100.0)  # the median of our two measurements
    assert single.ratio("list-of-lists Othello") == pytest.approx(20.0)  # measured side by side
    assert single.ratio("OpenSpiel") is None  # not installed: no rate, no ratio
    assert speeds["othello batched rollouts"].ratio("OpenSpiel") == pytest.approx(6.0)
    table = speeds.table().data
    assert table.count("| Othello playouts |") == 1  # the workload appears once, named for readers
    assert table.count("\n") == 1 + 3
    speeds.figure()


def test_a_peer_measured_on_no_workload_gets_no_columns():
    table = speed_table(MEASURED[2:]).table().data
    assert "OpenSpiel" not in table and "list-of-lists Othello" in table
