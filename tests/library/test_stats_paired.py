"""The statistics of paired units: bootstrap intervals cover the truth about 95% of the time,
pairing removes what the units share, equivalence needs a narrow interval, and Holm keeps the
family-wise error of a scan."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_course.stats import (
    bootstrap_interval,
    corrected_confidence,
    equivalence,
    holm,
    paired_interval,
    sign_flip_p_value,
)


def test_the_bootstrap_interval_covers_the_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    covered = 0
    for seed in range(200):
        sample = rng.normal(0.3, 1.0, size=60)
        low, high = bootstrap_interval(sample, resamples=2000, seed=seed)
        covered += low < 0.3 < high
    assert 0.88 <= covered / 200 <= 0.99


def test_pairing_removes_what_the_units_share():
    """Two methods scored on 40 positions whose difficulty varies a lot: the paired interval of
    the difference is much narrower than what two separate means would give."""
    rng = np.random.default_rng(1)
    difficulty = rng.uniform(0, 1, size=40)
    a = difficulty + 0.05 + rng.normal(0, 0.02, size=40)
    b = difficulty + rng.normal(0, 0.02, size=40)
    low, high = paired_interval(a, b)
    assert 0 < low < 0.05 < high
    separate = np.subtract(*bootstrap_interval(a)) + np.subtract(*bootstrap_interval(b))
    assert high - low < abs(separate) / 5
    with pytest.raises(ValueError):
        paired_interval(a, b[:-1])


def test_equivalence_needs_the_interval_inside_the_bound():
    rng = np.random.default_rng(2)
    a = rng.normal(0, 0.1, size=400)
    b = a + rng.normal(0, 0.05, size=400)
    assert equivalence(a, b, bound=0.02).equivalent
    small = equivalence(a[:5], b[:5], bound=0.02)  # too few units: nothing can be concluded
    assert not small.equivalent
    shifted = equivalence(a + 0.1, b, bound=0.02)
    assert not shifted.equivalent and shifted.interval[0] > 0.02
    with pytest.raises(ValueError):
        equivalence(a, b, bound=0)


def test_the_sign_flip_test_rejects_a_shift_and_not_noise():
    rng = np.random.default_rng(3)
    assert sign_flip_p_value(rng.normal(0.5, 1, size=100)) < 0.01
    p_values = [sign_flip_p_value(rng.normal(0, 1, size=30), 999, seed) for seed in range(100)]
    assert 0.01 <= np.mean(np.array(p_values) < 0.05) <= 0.12


def test_holm_steps_down_and_stops_at_the_first_hypothesis_it_keeps():
    assert holm([0.001, 0.04, 0.03, 0.5]) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02, 0.04]) == [True, True, True, True]  # 0.0125, 0.0167...
    assert holm([0.01, 0.01, 0.01]) == [True, True, True]
    assert holm([0.02]) == [True] and holm([0.06]) == [False]


def test_holm_keeps_the_family_wise_error_under_five_percent():
    rng = np.random.default_rng(4)
    false = sum(any(holm(list(rng.uniform(size=5)))) for _ in range(4000))
    assert false / 4000 < 0.06


def test_bonferroni_widens_each_interval():
    assert corrected_confidence(1) == pytest.approx(0.95)
    assert corrected_confidence(5) == pytest.approx(0.99)
    with pytest.raises(ValueError):
        corrected_confidence(0)
