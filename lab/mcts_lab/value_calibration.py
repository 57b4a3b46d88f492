"""Why a value head can score worse than a constant: information against calibration.

A value head's mean squared error to the exact values can exceed the best constant's for two
different reasons.  Either its numbers carry no information about the result (or the wrong
sign of it), or they carry some but on the wrong scale: shifted (their mean is not the
positions' mean) or spread too wide for what they know (confident answers that are often
wrong).  The two are told apart by measuring, over the positions:

* the correlation of the head's number with the exact value, with a bootstrap interval: above 0
  means the sign convention is right and the head ranks positions better than chance;
* a linear recalibration ``a * v + b`` fitted on one half of the positions and scored on the
  other (then the halves swapped: a two-fold cross-fit, so no position is scored by a fit that
  saw it), against the constant fitted the same way, with a paired bootstrap interval.  If the
  recalibrated head beats the constant, the head's information was there and its scale was at
  fault.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

RESAMPLES = 2000


@dataclass
class Diagnosis:
    """What :func:`diagnose` measured on one set of positions."""

    positions: int
    head_mean: float  # the head's mean number
    exact_mean: float  # the positions' mean exact value
    correlation: float
    correlation_interval: tuple[float, float]  # 95% bootstrap over the positions
    recalibrated: float  # cross-fitted a * v + b: mean squared error
    constant: float  # cross-fitted constant: mean squared error
    difference: tuple[float, float]  # 95% bootstrap of recalibrated minus constant, paired
    scale: float  # the mean of the two fitted slopes a


def _interval(samples: list[float]) -> tuple[float, float]:
    ordered = np.sort(samples)
    return float(ordered[int(0.025 * len(ordered))]), float(ordered[int(0.975 * len(ordered)) - 1])


def diagnose(values: list[float], exact: list[float], seed: int = 0) -> Diagnosis:
    """The head's numbers ``values`` against the ``exact`` values of the same positions."""
    v, z = np.asarray(values, dtype=float), np.asarray(exact, dtype=float)
    n = len(z)
    halves = [np.arange(n) % 2 == 0, np.arange(n) % 2 == 1]
    recalibrated, constant, slopes = np.empty(n), np.empty(n), []
    for test, fit in (halves, halves[::-1]):
        design = np.column_stack([v[fit], np.ones(int(fit.sum()))])
        (a, b), *_ = np.linalg.lstsq(design, z[fit], rcond=None)
        recalibrated[test] = a * v[test] + b
        constant[test] = z[fit].mean()
        slopes.append(float(a))
    paired = (recalibrated - z) ** 2 - (constant - z) ** 2
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, n, n) for _ in range(RESAMPLES)]
    return Diagnosis(
        n,
        float(v.mean()),
        float(z.mean()),
        float(np.corrcoef(v, z)[0, 1]),
        _interval([float(np.corrcoef(v[d], z[d])[0, 1]) for d in draws]),
        float(((recalibrated - z) ** 2).mean()),
        float(((constant - z) ** 2).mean()),
        _interval([float(paired[d].mean()) for d in draws]),
        float(np.mean(slopes)),
    )


class _Head(Protocol):
    def predict(self, state: Any) -> tuple[Any, float]: ...


class _Labelled(Protocol):
    @property
    def state(self) -> Any: ...

    @property
    def value(self) -> int: ...


def diagnose_head(predictor: _Head, positions: Sequence[_Labelled], seed: int = 0) -> Diagnosis:
    """:func:`diagnose` for a network's value head (``predictor.predict(state)[1]``) on labelled
    positions (each with ``state`` and ``value``, as :mod:`mcts_lab.learning_c4` makes them)."""
    values = [float(predictor.predict(p.state)[1]) for p in positions]
    exact = [float(p.value) for p in positions]
    return diagnose(values, exact, seed)
