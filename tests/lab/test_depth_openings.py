"""The depth round robin of chapter 4: the shipped file is what the agents and the seed give."""

from mcts_lab import depth_openings


def test_the_round_robin_covers_every_pair_of_depths_once():
    pairs = depth_openings.pairs((1, 2, 3))
    assert pairs == [(1, 2), (1, 3), (2, 3)]


def test_the_stored_round_robin_replays_and_its_statistics_are_sound():
    stored = depth_openings.load()
    assert set(stored.scores) == set(depth_openings.pairs())
    assert stored.openings == depth_openings.OPENINGS
    assert depth_openings.recheck(stored, 1)
    for a, b in stored.scores:
        low, high = stored.interval(a, b, 0.99)
        assert low <= stored.score(a, b) <= high
        assert 0.0 <= stored.p_value(a, b) <= 1.0


def test_an_opening_score_is_the_deeper_search_s_mean_of_two_games():
    result = depth_openings.play(1, 2, openings=2)
    assert result.names == ("AlphaBeta(2)", "AlphaBeta(1)")  # the deeper search is agent A
    assert all(score in (0.0, 0.25, 0.5, 0.75, 1.0) for score in result.scores)
