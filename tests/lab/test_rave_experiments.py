"""The RAVE experiments of chapter 13: paired mistake rates, and the matches shipped as data."""

from __future__ import annotations

import pytest
from mcts_lab import rave_offline
from mcts_lab.learning import Truth
from mcts_lab.rave_mistakes import mistake_rates


@pytest.fixture(scope="module")
def truth() -> Truth:
    return Truth()


def test_an_agent_against_itself_differs_by_nothing(truth):
    m = mistake_rates({"a": "mcts", "b": "mcts"}, iterations=3, truth=truth)
    assert m.positions == truth.choices
    assert m.difference("a", "b") == (0.0, 0.0, 0.0)  # same seeds: the same moves


def test_more_iterations_make_fewer_mistakes(truth):
    few = mistake_rates({"UCT": "mcts"}, iterations=2, truth=truth)
    many = mistake_rates({"UCT": "mcts"}, iterations=60, truth=truth)
    assert many.rate("UCT") < few.rate("UCT")
    pooled = few.wrong["UCT"].astype(int) - many.wrong["UCT"].astype(int)
    assert 0 < pooled.mean() < 1


def test_the_shipped_matches_are_what_their_specs_and_seed_give():
    stored = rave_offline.load()
    assert [s.name for s in stored] == list(rave_offline.PAIRINGS)
    for s in stored:
        assert s.specs == rave_offline.PAIRINGS[s.name]
        assert s.result.games == rave_offline.GAMES and s.result.seed == rave_offline.SEED
        assert sorted(set(s.result.a_player)) == [0, 1]  # colours alternate
    assert rave_offline.recheck(stored[0], games=1)
