"""A value head: missing information or a wrong scale (lab/mcts_lab/value_calibration.py)."""

from __future__ import annotations

import numpy as np
from mcts_lab.value_calibration import diagnose


def _positions(n: int = 600, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    exact = rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.2, 0.2, 0.6])
    return exact, rng.normal(size=n)


def test_a_loud_but_informed_head_loses_to_the_constant_and_wins_once_recalibrated() -> None:
    exact, noise = _positions()
    loud = np.clip(3 * (0.4 * exact + 0.6 * noise) - 0.5, -1, 1)  # shifted and spread
    assert ((loud - exact) ** 2).mean() > exact.var()  # worse than the constant, raw
    d = diagnose(list(loud), list(exact))
    assert d.correlation_interval[0] > 0
    assert d.difference[1] < 0  # recalibrated on the other half, it beats the constant
    assert d.recalibrated < d.constant


def test_a_head_with_the_wrong_sign_correlates_negatively() -> None:
    exact, noise = _positions()
    d = diagnose(list(-(0.5 * exact + 0.2 * noise)), list(exact))
    assert d.correlation_interval[1] < 0
    assert d.scale < 0  # the fitted line turns it round


def test_a_head_without_information_gains_nothing_from_recalibration() -> None:
    exact, noise = _positions()
    d = diagnose(list(noise), list(exact))
    assert d.correlation_interval[0] < 0 < d.correlation_interval[1]
    assert d.difference[1] > 0  # not shown better than the constant
    assert abs(d.exact_mean - exact.mean()) < 1e-12
