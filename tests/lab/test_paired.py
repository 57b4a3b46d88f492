"""Paired comparisons over positions: the position is the unit, scans are corrected."""

from __future__ import annotations

import random

import pytest
from mcts_lab.ffo import Share, paired
from mcts_lab.paired import corrected, paired_difference

from mcts_course.stats import difference_interval


def test_bonferroni_widens_each_interval_of_a_scan():
    assert corrected(1) == pytest.approx(0.95)
    assert corrected(5) == pytest.approx(0.99)
    assert corrected(10, confidence=0.9) == pytest.approx(0.99)


def test_pairing_cancels_what_both_sides_share_on_a_position():
    rng = random.Random(0)
    hard = [rng.random() for _ in range(300)]  # how hard each position is, shared by both
    a = [int(rng.random() < 1 - h + 0.05) for h in hard]
    b = [int(rng.random() < 1 - h) if x == 0 else x for h, x in zip(hard, a, strict=True)]
    d = paired_difference(b, a)
    assert d.low <= d.difference <= d.high
    pa, pb = sum(a) / len(a), sum(b) / len(b)
    lo, hi = difference_interval(pb, len(b), pa, len(a))
    assert d.high - d.low < hi - lo  # the paired interval is narrower than the independent one


def test_equal_sides_differ_by_nothing_and_the_bound_reads_the_interval():
    same = paired_difference([1, 0, 1, 1], [1, 0, 1, 1])
    assert (same.difference, same.low, same.high) == (0, 0, 0)
    d = paired_difference([1, 1, 0, 1, 0, 1] * 20, [1, 0, 0, 1, 1, 1] * 20, confidence=0.99)
    assert d.largest == max(-d.low, d.high)
    assert d.within(d.largest + 1e-9) and not d.within(d.largest / 2)
    with pytest.raises(ValueError):
        paired_difference([1, 0], [1])


def test_a_share_counts_positions_not_seeds():
    one = Share("a", 4, 4, 8, 1, 0.0, (1.0, 0.5, 0.5, 0.0), (1.0, 0.5, 0.5, 0.0))
    other = Share("b", 2, 2, 8, 0, 0.0, (0.5, 0.0, 0.5, 0.0), (0.5, 0.0, 0.5, 0.0))
    assert one.positions == 4 and one.best_share == 0.5
    wide, narrow = one.best_interval, Share("c", 4, 4, 8, 1, 0.0).best_interval
    assert wide[1] - wide[0] > narrow[1] - narrow[0]  # 4 positions say less than 8 decisions
    d = paired(one, other)
    assert d.difference == pytest.approx(0.25) and d.positions == 4
