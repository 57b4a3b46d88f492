"""Chapter 13's Connect Four RAVE matches, shipped as data."""

from __future__ import annotations

from mcts_lab import rave_offline


def test_the_shipped_matches_are_what_their_specs_and_seed_give():
    stored = rave_offline.load()
    assert [s.name for s in stored] == list(rave_offline.PAIRINGS)
    for s in stored:
        assert s.specs == rave_offline.PAIRINGS[s.name]
        assert s.result.games == rave_offline.GAMES and s.result.seed == rave_offline.SEED
        assert sorted(set(s.result.a_player)) == [0, 1]  # colours alternate
    assert rave_offline.recheck(stored[0], games=1)
