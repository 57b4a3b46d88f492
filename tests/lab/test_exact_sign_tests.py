"""The exact sign test (mcts_lab.exact_paired.sign_test_p) and the endgame chapter's paired
tests on "outcome kept" and "best move" built on it."""

from __future__ import annotations

import math

import pytest
from mcts_lab import search_ablation
from mcts_lab.endgames import (
    EqualTime,
    ffo_solutions,
    kept_better_than_chance_p,
    paired_sign_test,
    random_move_kept,
    solver_versus_mcts,
)
from mcts_lab.exact_paired import exact_p_value, sign_test_p
from mcts_lab.ffo import Share, load_ffo

FFO = load_ffo()


def test_sign_test_known_values():
    assert sign_test_p(5, 0) == pytest.approx(2 / 2**5)
    assert sign_test_p(12, 0) == pytest.approx(2 / 2**12)
    assert sign_test_p(0, 0) == 1.0 and sign_test_p(3, 3) == 1.0
    assert sign_test_p(7, 2) == sign_test_p(2, 7)
    with pytest.raises(ValueError):
        sign_test_p(-1, 2)


@pytest.mark.parametrize("plus,minus", [(8, 0), (6, 2), (9, 4), (1, 1), (10, 3)])
def test_sign_test_is_the_sign_flip_test_counted_over_every_pattern(plus, minus):
    # an independent implementation: every one of the 2**n sign patterns of the +-1 differences
    assert sign_test_p(plus, minus) == pytest.approx(exact_p_value([1.0] * plus + [-1.0] * minus))


def test_the_ablations_paired_test_is_exact_on_zero_one_results():
    a, b = [1] * 8 + [0] * 30, [0] * 38
    assert search_ablation.sign_flip_p(a, b) == pytest.approx(sign_test_p(8, 0))
    assert search_ablation.sign_flip_p(b, b) == 1.0


def test_paired_sign_test_counts_the_discordant_positions():
    test = paired_sign_test([1.0, 1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0, 1.0])
    assert (test.only_first, test.only_second) == (2, 1)
    assert test.p_value == pytest.approx(sign_test_p(2, 1))
    with pytest.raises(ValueError):
        paired_sign_test([0.5], [1.0])
    with pytest.raises(ValueError):
        paired_sign_test([1.0, 0.0], [1.0])


def _equal(best: tuple[float, ...], kept: tuple[float, ...]) -> EqualTime:
    share = Share("MCTS", round(sum(best)), round(sum(kept)), len(best), 0, 0.0, best, kept)
    return EqualTime(share, 1.0)


def test_kept_better_than_chance_is_poisson_binomial():
    positions = FFO[:3]
    chances = [random_move_kept(p) for p in positions]
    # every decision keeps the outcome: the chance that random moves all do is the product
    p_all = kept_better_than_chance_p(_equal((0.0,) * 3, (1.0,) * 3), positions)
    assert p_all == pytest.approx(math.prod(chances))
    # none kept: the tail from 0 is everything
    assert kept_better_than_chance_p(_equal((0.0,) * 3, (0.0,) * 3), positions) == 1.0
    with pytest.raises(ValueError):
        kept_better_than_chance_p(_equal((0.0,) * 3, (0.5, 1.0, 1.0)), positions)


def test_solver_versus_mcts_pairs_by_position():
    solutions = ffo_solutions([FFO[4], FFO[6]])  # small trees; the solver is right in both
    missed = solver_versus_mcts(solutions, _equal((0.0, 1.0), (0.0, 1.0)), kept=True)
    assert (missed.only_first, missed.only_second) == (1, 0)
    assert missed.p_value == 1.0  # one discordant position proves nothing
    both = solver_versus_mcts(solutions, _equal((0.0, 0.0), (1.0, 1.0)), kept=False)
    assert (both.only_first, both.only_second) == (2, 0)
