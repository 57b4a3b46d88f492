"""Comparisons read together in the MCTS-experiments chapter, and their corrections.

* :func:`fisher_exact`: two-sided p-value of "two proportions are equal" from two independent
  samples of 0/1 outcomes (Fisher's exact test: every split of the successes between the two
  samples at least as unlikely as the one observed, under the hypergeometric law).
* :func:`holm_adjusted`: Holm's step-down adjusted p-values; a comparison survives the
  correction at 5% when its adjusted p-value is at most 0.05.
* :func:`bootstrap_p_value`: two-sided p-value of "the mean is ``null``" from bootstrap draws
  of an estimate (twice the smaller share of draws on either side of the null value).
* :func:`round_robin_family`: the round robin's comparisons the chapter reads, each with its
  p-value over the openings (the unit), and Holm's correction over all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from mcts_course.stats import sign_flip_p_value

if TYPE_CHECKING:
    from mcts_lab.experiments import Tournament


def fisher_exact(hits_a: int, n_a: int, hits_b: int, n_b: int) -> float:
    """Two-sided Fisher exact p-value for hits_a/n_a against hits_b/n_b."""
    if not (0 <= hits_a <= n_a and 0 <= hits_b <= n_b):
        raise ValueError("hits must lie between 0 and the sample size")
    total, hits = n_a + n_b, hits_a + hits_b

    def prob(k: int) -> float:  # k of the hits fall in sample a
        return comb(n_a, k) * comb(n_b, hits - k) / comb(total, hits)

    observed = prob(hits_a)
    support = range(max(0, hits - n_b), min(hits, n_a) + 1)
    # a relative tolerance, so that splits exactly as likely as the observed one count
    return min(1.0, sum(p for k in support if (p := prob(k)) <= observed * (1 + 1e-9)))


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given: the k-th smallest is multiplied by
    (m - k + 1), then made non-decreasing in that order and capped at 1."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def bootstrap_p_value(draws: Sequence[float], null: float = 0.0) -> float:
    """Two-sided p-value of "the estimate is ``null``" from its bootstrap draws."""
    d = np.asarray(draws, dtype=float)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError("need a flat sequence of at least two draws")
    below = int((d <= null).sum()) + 1  # the null itself counts as one draw on each side
    above = int((d >= null).sum()) + 1
    return min(1.0, 2 * min(below, above) / (len(d) + 1))


@dataclass(frozen=True)
class Comparison:
    """One comparison of a family: its words, raw p-value and Holm-adjusted p-value."""

    words: str
    p_value: float
    adjusted: float

    @property
    def survives(self) -> bool:
        return self.adjusted <= 0.05


def family(named: dict[str, float]) -> list[Comparison]:
    """Holm over every comparison of ``named`` (words -> raw p-value), read together."""
    adjusted = holm_adjusted(list(named.values()))
    return [Comparison(w, p, a) for (w, p), a in zip(named.items(), adjusted, strict=True)]


def rating_p_value(draws: np.ndarray, names: Sequence[str], first: str, second: str) -> float:
    """p-value of "``first`` and ``second`` have the same rating", from the bootstrap draws of
    the ratings over the openings (one row per resample, one column per agent)."""
    i, j = names.index(first), names.index(second)
    return bootstrap_p_value(draws[:, i] - draws[:, j])


def head_to_head_p_value(scores: Sequence[float], resamples: int = 10_000) -> float:
    """p-value of "an even match" from one pair's score per opening (both colours): the
    openings' excess over one half, by random sign flips."""
    return sign_flip_p_value([float(x) - 0.5 for x in scores], resamples=resamples)


def round_robin_family(
    tournament: Tournament,
    elo_draws: np.ndarray,
    pair_scores: Callable[[Tournament, str, str], list[float]],
) -> list[Comparison]:
    """The ten comparisons the chapter reads from the round robin, corrected together:
    random play against each of the other five agents (ratings), minimax 2 against the
    cell-score agent (rating and head to head) and each of the three searchers against the
    cell-score agent (ratings)."""
    names = list(tournament.names)
    named = {}
    for other in names:
        if other != "random":
            named[f"{other} above random"] = rating_p_value(elo_draws, names, other, "random")
    named["minimax 2 above cell score"] = rating_p_value(
        elo_draws, names, "minimax 2", "cell score"
    )
    named["minimax 2 beats cell score head to head"] = head_to_head_p_value(
        pair_scores(tournament, "minimax 2", "cell score")
    )
    for searcher in ("alpha-beta ID", "flat MC", "MCTS"):
        named[f"{searcher} above cell score"] = rating_p_value(
            elo_draws, names, searcher, "cell score"
        )
    return family(named)
