"""The Bradley-Terry fit recovers known ratings, and its intervals cover them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mcts_course.stats import bradley_terry, crosstable


def simulated(elo: np.ndarray, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    k = len(elo)
    points, played = np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + 10 ** ((elo[j] - elo[i]) / 400))
            wins = rng.binomial(games, p)
            points[i, j], points[j, i] = wins, games - wins
            played[i, j] = played[j, i] = games
    return points, played


def test_equal_scores_give_equal_ratings():
    names = ["a", "b", "c"]
    points, games = crosstable(names, {(0, 1): (25, 50), (0, 2): (25, 50), (1, 2): (25, 50)})
    ratings = bradley_terry(names, points, games)
    assert np.allclose(ratings.elo, 0, atol=1e-6)
    assert np.all(ratings.se > 0)


def test_two_agents_match_the_elo_formula_without_prior():
    points, games = crosstable(["a", "b"], {(0, 1): (75, 100)})
    ratings = bradley_terry(["a", "b"], points, games, prior_draws=0)
    assert ratings.elo[0] - ratings.elo[1] == pytest.approx(
        400 * math.log10(3)
    )  # 75% = odds of 3 to 1
    assert ratings.expected(0, 1) == pytest.approx(0.75)


def test_fit_recovers_true_ratings_within_its_intervals():
    true = np.array([-400.0, -100.0, 0.0, 150.0, 350.0])
    true -= true.mean()
    points, games = simulated(true, 400, seed=1)
    ratings = bradley_terry(list("abcde"), points, games, prior_draws=0)
    assert np.all(ratings.low <= true) and np.all(true <= ratings.high)
    assert ratings.order() == [4, 3, 2, 1, 0]
    assert abs(ratings.elo.sum()) < 1e-6


def test_prior_keeps_a_perfect_record_finite():
    points, games = crosstable(["strong", "weak"], {(0, 1): (50, 50)})
    ratings = bradley_terry(["strong", "weak"], points, games, prior_draws=1)
    assert np.all(np.isfinite(ratings.elo)) and ratings.elo[0] > ratings.elo[1] + 300


def test_inconsistent_tables_are_rejected():
    with pytest.raises(ValueError):
        bradley_terry(["a", "b"], np.array([[0, 60], [0, 0]]), np.array([[0, 50], [50, 0]]))


def test_difference_interval_contains_the_difference_and_excludes_zero_when_clear():
    from mcts_course.stats import difference_interval

    low, high = difference_interval(0.8, 100, 0.5, 100)
    assert low < 0.3 < high and low > 0
    low, high = difference_interval(0.52, 100, 0.5, 100)
    assert low < 0 < high
    low, high = difference_interval(1.0, 50, 0.0, 50)
    assert 0.8 < low <= high <= 1.0


def test_the_normal_interval_of_a_mean_by_hand():
    from mcts_course.stats import half_width, mean_interval, z_value

    assert z_value() == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    # values 1, 2, 3: mean 2, sample standard deviation 1, so 2 ± 1.96 / sqrt(3)
    low, high = mean_interval([1.0, 2.0, 3.0])
    assert (low, high) == pytest.approx((2 - 1.959964 / 3**0.5, 2 + 1.959964 / 3**0.5))
    assert half_width(2.0, 4, confidence=0.99) == pytest.approx(2.575829, abs=1e-6)
    assert mean_interval([5.0]) == (-math.inf, math.inf)  # one run: no spread is known


def test_detection_chance_is_the_rejection_rate_of_simulated_matches() -> None:
    """The exact sum agrees with simulated matches, is about 5% (two tails) with no edge, and
    grows with the edge and with the number of games."""
    import random

    from mcts_course.stats import detection_chance, wilson_interval

    rng = random.Random(7)
    n, share = 200, 0.56
    rejected = 0
    for _ in range(4000):
        wins = sum(rng.random() < share for _ in range(n))
        low, high = wilson_interval(wins / n, n)
        rejected += high < 0.5 or low > 0.5
    assert abs(detection_chance(share, n) - rejected / 4000) < 0.03
    assert 0.03 < detection_chance(0.5, n) < 0.07
    assert detection_chance(0.47, 1000) < detection_chance(0.45, 1000) < 1
    assert detection_chance(0.47, 1000) < detection_chance(0.47, 4000)
