"""The shipped flat Monte Carlo vs minimax-2 match from varied openings replays to its scores."""

from __future__ import annotations

import pytest
from mcts_lab import flat_openings_offline as fo
from mcts_lab.basics import OpeningPairs


@pytest.mark.timeout(120)
def test_recheck_replays_the_first_opening_and_notices_a_changed_score():
    stored = fo.load()
    assert fo.recheck(stored, openings=1)
    other = 0.0 if stored.scores[0] > 0 else 1.0
    changed = OpeningPairs(stored.names, [other, *stored.scores[1:]])
    assert not fo.recheck(changed, openings=1)


def test_the_shipped_file_holds_every_opening_as_a_pair_of_games():
    stored = fo.load()
    assert stored.openings == fo.OPENINGS
    assert stored.names[1] == "Minimax(2)" and "MonteCarlo" in stored.names[0].replace(" ", "")
    # two games per opening: each opening's score is a multiple of 1/4 (draws count 1/2)
    assert all(0 <= s <= 1 and (4 * s).is_integer() for s in stored.scores)
    low, high = stored.interval()
    assert low < stored.score < high
