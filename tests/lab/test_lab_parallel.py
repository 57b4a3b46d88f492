"""The parallel-search measurements: every agent measured, the speedups paired by turn, the lock's
share, and both matches at their budgets."""

from __future__ import annotations

import gc

from mcts_lab.parallel import (
    ROOT,
    SINGLE,
    TREE,
    LockShare,
    Rates,
    equal_budget_match,
    gil_enabled,
    iteration_rates,
    lock_share,
    match_table,
    rates_table,
    specs,
)

from mcts_course.games import ConnectFour, TicTacToe


def test_the_three_agents_differ_in_their_workers_only():
    three = specs(0.05)
    assert three[SINGLE] == "mcts:time_limit=0.05"
    assert three[ROOT].startswith(three[SINGLE]) and "parallel=root" in three[ROOT]
    assert three[TREE].startswith(three[SINGLE]) and "parallel=tree" in three[TREE]


def test_iteration_rates_pair_each_turn():
    rates = iteration_rates(
        [ConnectFour(), ConnectFour.from_moves("4 4")], time_limit=0.02, repeats=1
    )
    assert set(rates.rates) == {SINGLE, ROOT, TREE}
    assert all(len(r) == 2 and min(r) > 0 for r in rates.rates.values())
    assert rates.speedups(SINGLE) == [1.0, 1.0]
    assert len(rates.overheads) == 2 and rates.game == "connect4"
    assert gc.get_freeze_count() == 0  # the objects set aside during the turns are back
    assert len(rates_table([rates, rates]).rows) == 6 and "0.02 s" in rates_table([rates]).data


def test_speedups_and_overhead_from_hand_made_rates():
    rates = Rates(
        "connect4", 0.1, {SINGLE: [100.0, 200.0], ROOT: [190.0, 360.0]}, [0.01, 0.03, 0.02]
    )
    assert rates.speedups(ROOT) == [1.9, 1.8]
    assert abs(rates.median_speedup(ROOT) - 1.85) < 1e-12
    assert rates.overhead == 0.02
    many = Rates("connect4", 0.1, {SINGLE: [100.0] * 5, ROOT: [190.0, 180.0, 200.0, 170.0, 900.0]})
    assert many.middle_half(ROOT) == (1.8, 2.0)  # the paused turn (9.0) does not widen it


def test_the_lock_bounds_the_rate_of_iterations():
    """A lock held for a quarter of each iteration lets four threads' iterations through, so two
    threads are bounded by their number and eight by the lock; one thread by itself."""
    share = LockShare("connect4", 10, locked=1.0, unlocked=3.0)
    assert share.share == 0.25
    assert share.bound(2) == 2.0 and share.bound(8) == 4.0 and share.bound(1) == 1.0
    busy = LockShare("connect4", 10, locked=4.0, unlocked=3.0)
    assert abs(busy.bound(2) - 7 / 4) < 1e-12
    measured = lock_share(ConnectFour(), iterations=200)
    assert 0 < measured.share < 1 and measured.iterations == 200


def test_the_equal_budget_match_splits_the_budget():
    budget = equal_budget_match(TicTacToe, 20, games=2, seed=0, n_jobs=1)
    assert budget.games == 2 and "root×2" in budget.names[0] and "20" in budget.names[1]
    assert len(match_table([("20 iterations", "equal budget", budget)]).rows) == 1
    assert isinstance(gil_enabled(), bool)


def test_lock_share_pauses_the_collector_and_gives_it_back():
    import gc

    from mcts_lab.parallel import lock_share

    from mcts_course.games import ConnectFour

    assert gc.isenabled()
    share = lock_share(ConnectFour.from_moves("4 4 3 5"), iterations=50)
    assert gc.isenabled() and 0 < share.share < 1
    gc.disable()
    try:
        lock_share(ConnectFour.from_moves("4 4 3 5"), iterations=10)
        assert not gc.isenabled()  # a caller's own choice is left alone
    finally:
        gc.enable()
