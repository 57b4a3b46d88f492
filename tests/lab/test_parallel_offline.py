"""The equal-budget root-parallel match of chapter 13, shipped as data."""

from __future__ import annotations

from dataclasses import replace

from mcts_lab import parallel_offline

from mcts_course.agents.parallel import shutdown_workers


def test_the_shipped_match_is_what_its_settings_and_seed_give():
    stored = parallel_offline.load()
    assert stored.games == parallel_offline.GAMES and stored.seed == parallel_offline.SEED
    assert sorted(set(stored.a_player)) == [0, 1]  # colours alternate
    try:
        assert parallel_offline.recheck(stored, games=1)
        flipped = replace(stored, returns=[tuple(-x for x in r) for r in stored.returns])
        if any(r != (0, 0) for r in stored.returns[:1]):  # a draw reads the same flipped
            assert not parallel_offline.recheck(flipped, games=1)
    finally:
        shutdown_workers()
