"""The statistical claims stop the build exactly when the data do not support the sentence."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab.claims import (
    ClaimFailed,
    claim_better,
    claim_equivalent,
    claim_scan,
    claim_small_beside,
    claim_within,
)


def test_claim_better_is_paired_and_returns_its_interval():
    rng = np.random.default_rng(0)
    base = rng.uniform(0, 1, 50)
    low, high = claim_better(base + 0.05, base, "a is better than b")
    assert low == pytest.approx(0.05) and high == pytest.approx(0.05)
    with pytest.raises(ClaimFailed, match="b is better"):
        claim_better(base, base + 0.05, "b is better than a")


def test_no_difference_needs_equivalence_not_a_failed_test():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 2, 8).astype(float), rng.integers(0, 2, 8).astype(float)
    with pytest.raises(ClaimFailed, match="bound"):  # 8 units: wide, not equivalent
        claim_equivalent(a, b, 0.05, "no difference")
    a, b = rng.normal(0, 1, 500), rng.normal(0, 1, 500)
    same = a + rng.normal(0, 0.01, 500)
    low, high = claim_equivalent(same, a, 0.01, "no difference beyond 1 point")
    assert -0.01 < low < high < 0.01
    claim_within((-0.01, 0.02), 0.03, "inside")
    with pytest.raises(ClaimFailed):
        claim_within((-0.01, 0.04), 0.03, "outside")


def test_claim_scan_judges_each_budget_after_holms_correction():
    p = {60: 0.001, 200: 0.03, 600: 0.4, 2000: 0.0001}
    claim_scan(p, {60: True, 200: False, 600: False, 2000: True}, "the scan")
    with pytest.raises(ClaimFailed):  # 0.03 is below 5% but not after the correction
        claim_scan(p, {60: True, 200: True, 600: False, 2000: True}, "the scan")


def test_small_beside_means_within_half_the_effects_lower_limit():
    assert claim_small_beside((-0.02, 0.07), (0.16, 0.40), "small") == pytest.approx(0.08)
    with pytest.raises(ClaimFailed):  # 9.9 points are not small next to an effect of 10.1
        claim_small_beside((0.05, 0.099), (0.101, 0.30), "not small")
    with pytest.raises(ClaimFailed):  # an effect not shown to exist contrasts with nothing
        claim_small_beside((-0.01, 0.01), (-0.02, 0.30), "no effect")
