"""The shipped matches of flat Monte Carlo against minimax at depth 2 replay to the same games."""

from __future__ import annotations

import pytest
from mcts_lab import flat_minimax_offline as fm

from mcts_course.arena import MatchResult


@pytest.mark.timeout(120)
def test_recheck_replays_the_first_games_and_notices_a_changed_one():
    played = fm.play(games=1)
    assert list(played) == list(fm.BUDGETS) and all(r.games == 1 for r in played.values())
    assert fm.recheck(played, games=1)
    budget = fm.BUDGETS[0]
    r = played[budget]
    flipped = MatchResult(r.game, r.names, r.a_player, [(-a, -b) for a, b in r.returns], r.seed)
    assert not fm.recheck({**played, budget: flipped}, games=1)


def test_the_shipped_file_holds_both_budgets_with_their_games():
    stored = fm.load()
    assert list(stored) == list(fm.BUDGETS)
    assert all(r.games == fm.GAMES for r in stored.values())
    assert all(r.names[1] == "Minimax(2)" for r in stored.values())


def test_table_gives_each_budget_at_the_asked_level():
    stored = fm.load()
    narrow, wide = fm.table(stored).data, fm.table(stored, 0.99).data
    assert "95.0% interval" in narrow and "99.0% interval" in wide
    r = stored[200]
    assert f"| 200 | {r.games} | {r.wins}-{r.draws}-{r.losses} | {r.score:.1%} |" in narrow
