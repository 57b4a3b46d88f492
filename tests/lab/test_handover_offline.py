"""The endgame chapter's hand-over match at fixed budgets, shipped as data."""

from __future__ import annotations

import dataclasses

from mcts_lab import handover_offline as ho
from mcts_lab.endgames import seeded_openings


def test_the_budget_is_the_multiple_of_50_nearest_the_target_time():
    assert ho.budget(ho.SECONDS / 1000) == 1000
    assert ho.budget(ho.SECONDS / 1020) == 1000
    assert ho.budget(ho.SECONDS / 1030) == 1050
    assert ho.budget(1.0) == 50  # never below 50 iterations


def test_a_game_hands_over_at_the_endgame_and_repeats_exactly():
    start = seeded_openings(1, ho.PLIES, 5, ho.EMPTIES)[0]
    a_player, returns, moves = ho.game(start, 50, index=1)
    assert a_player == 1  # odd games: the hybrid is White
    assert sum(returns) == 0 and returns[0] in (-1, 0, 1)
    assert moves[0].empties == ho.EMPTIES
    assert moves[0].agent == int(start.current_player != a_player)  # 0: the hybrid
    assert {m.agent for m in moves} == {0, 1}
    assert [m.empties for m in moves] == sorted((m.empties for m in moves), reverse=True)
    assert all(m.seconds >= 0 for m in moves)
    again = ho.game(start, 50, index=1)
    assert (again[0], again[1]) == (a_player, returns)


def test_the_shipped_match_is_what_its_budget_and_seeds_give():
    data, stored = ho.load()
    assert data["iterations"] % 50 == 0
    assert stored.result.names == ho.specs(data["iterations"])
    assert stored.result.games == 2 * ho.OPENINGS == len(stored.games)
    assert stored.result.a_player[:4] == [0, 1, 0, 1]  # each opening twice, colours swapped
    assert all(g[0].empties == ho.EMPTIES for g in stored.games)
    assert ho.recheck(data, stored, openings=1)


def test_a_changed_result_is_caught():
    data, stored = ho.load()
    flipped = [(r[1], r[0]) for r in stored.result.returns]
    if flipped[:2] == stored.result.returns[:2]:  # two draws: change a colour instead
        changed = dataclasses.replace(
            stored.result, a_player=[1 - a for a in stored.result.a_player]
        )
    else:
        changed = dataclasses.replace(stored.result, returns=flipped)
    assert not ho.recheck(data, dataclasses.replace(stored, result=changed), openings=1)
