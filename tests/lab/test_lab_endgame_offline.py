"""The endgame chapter's random-move baseline, stored budgets and shallow-loop measurement."""

from __future__ import annotations

from mcts_lab import endgame_offline
from mcts_lab.endgames import (
    EqualTime,
    better_than_chance_p,
    ffo_solutions,
    package_nodes_at_depth,
    poisson_binomial_tail,
    random_move_best,
    random_move_kept,
    versus_random,
)
from mcts_lab.ffo import Share, load_ffo

FFO = load_ffo()


def test_a_random_move_is_best_in_the_share_of_best_moves_among_legal_ones():
    p5 = FFO[4]
    best = [a for a, m in p5.margins.items() if m == max(p5.margins.values())]
    assert random_move_best(p5) == len(best) / len(p5.margins)
    assert 0 < random_move_best(p5) <= random_move_kept(p5) <= 1
    for p in FFO:  # a best move always keeps the outcome
        assert random_move_best(p) <= random_move_kept(p)


def test_the_comparison_with_a_random_move_is_paired_by_position():
    solutions = ffo_solutions([FFO[4], FFO[6]])
    perfect = Share("always best", 2, 2, 2, 2, 0.0, (1.0, 1.0), (1.0, 1.0))
    d = versus_random(solutions, EqualTime(perfect, 1.0))
    want = sum(1 - random_move_best(s.position) for s in solutions) / 2
    assert abs(d.difference - want) < 1e-12 and d.low <= d.difference <= d.high


def test_the_stored_budgets_cover_every_position_and_replay_the_same_moves():
    budgets = endgame_offline.load()
    assert sorted(budgets.iterations) == [p.number for p in FFO] == sorted(budgets.seconds)
    assert all(n > 0 for n in budgets.iterations.values())
    small = endgame_offline.Budgets(0, {5: 0.1, 7: 0.1}, {5: 200, 7: 200})
    positions = [FFO[4], FFO[6]]
    once, again = (endgame_offline.mcts_at_budgets(positions, small) for _ in range(2))
    assert once.share == again.share and once.iterations == 200
    assert once.share.trials == 2 and once.share.best <= once.share.kept


def test_the_shallow_threshold_is_restored_and_the_margins_kept():
    from mcts_course.agents import endgame

    before = endgame.SHALLOW
    nodes = package_nodes_at_depth([FFO[4]], 2, range(5, 7))
    assert endgame.SHALLOW == before and set(nodes) == {5, 6}
    assert all(n >= 1 for n in nodes.values())


def test_the_poisson_binomial_tail_is_exact():
    from math import comb

    import pytest

    assert poisson_binomial_tail([0.5] * 10, 8) == pytest.approx(
        sum(comb(10, k) for k in range(8, 11)) / 2**10
    )
    assert poisson_binomial_tail([0.2, 0.5], 2) == pytest.approx(0.1)
    assert poisson_binomial_tail([0.2, 0.5], 1) == pytest.approx(1 - 0.8 * 0.5)
    assert poisson_binomial_tail([0.3, 0.9], 0) == 1.0
    assert poisson_binomial_tail([0.3], 2) == 0.0
    with pytest.raises(ValueError):
        poisson_binomial_tail([1.5], 1)


def test_better_than_chance_counts_best_moves_against_the_random_moves_chances():
    import pytest

    positions = [FFO[4], FFO[6]]
    chances = [random_move_best(p) for p in positions]
    both = Share("both best", 2, 2, 2, 2, 0.0, (1.0, 1.0), (1.0, 1.0))
    assert better_than_chance_p(EqualTime(both, 1.0), positions) == pytest.approx(
        chances[0] * chances[1]
    )
    none = Share("none best", 0, 0, 2, 0, 0.0, (0.0, 0.0), (0.0, 0.0))
    assert better_than_chance_p(EqualTime(none, 1.0), positions) == 1.0
    with pytest.raises(ValueError):
        better_than_chance_p(EqualTime(both, 1.0), positions[:1])
