"""The exact sign-flip test: its p-value counts every sign pattern, its interval inverts it."""

import itertools

import pytest
from mcts_lab.exact_paired import exact_difference, exact_p_value


def brute_p(d: list[float]) -> float:
    """Every sign pattern written out, the definition the fast count must agree with."""
    observed = abs(sum(d))
    patterns = list(itertools.product((1, -1), repeat=len(d)))
    sums = [abs(sum(s * x for s, x in zip(signs, d, strict=True))) for signs in patterns]
    hits = sum(total >= observed - 1e-9 for total in sums)
    return hits / len(patterns)


@pytest.mark.parametrize(
    "d",
    [
        [0.5],
        [1.0, -1.0],
        [1 / 6, 2 / 6, 0.0, -1 / 6, 0.5],
        [1.0, 0.5, 0.5, -0.5, 1 / 3, 0.0, 0.25],
        [0.2, -0.1, 0.3, 0.3, -0.4, 0.1, 0.6, 0.05, -0.05, 0.7, 0.2],
    ],
)
def test_the_p_value_counts_every_sign_pattern(d):
    assert exact_p_value(d) == pytest.approx(brute_p(d), abs=1e-12)


def test_one_sided_evidence_gets_the_smallest_p_value_there_is():
    # ten positions all won by the same side: only the observed pattern and its mirror reach it
    assert exact_p_value([1.0] * 10) == pytest.approx(2 / 2**10)
    assert exact_p_value([0.0] * 10) == 1.0


def test_the_interval_is_where_the_test_stops_rejecting():
    a = [1, 1, 0.5, 1, 0.5, 0, 1, 1, 0.5, 1, 1, 0, 1, 1, 0.5, 1, 1, 0.5, 1]
    b = [0, 0.5, 0.5, 0, 0, 0, 1, 0.5, 0, 0, 1, 0, 0.5, 0, 0, 0, 0.5, 0, 1]
    r = exact_difference(a, b, confidence=0.99)
    d = [x - y for x, y in zip(a, b, strict=True)]
    assert r.low < r.difference < r.high
    assert r.p_value == pytest.approx(exact_p_value(d))
    assert r.p_value < 0.01 and r.low > 0  # the test rejects, so zero is outside
    for edge, step in ((r.low, -1e-3), (r.high, 1e-3)):
        assert exact_p_value([x - edge + step for x in d]) > 0.01  # just inside: kept
        assert exact_p_value([x - edge - step for x in d]) <= 0.01  # just outside: rejected


def test_a_wider_level_gives_a_wider_interval_and_no_difference_holds_zero():
    a = [0.5, 0.0, 1.0, 0.5, 0.5, 1.0, 0.0, 0.5]
    b = [0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.0, 0.5]
    narrow, wide = exact_difference(a, b, 0.9), exact_difference(a, b, 0.98)
    assert wide.low < narrow.low and narrow.high < wide.high
    assert narrow.low < 0 < narrow.high


def test_too_few_positions_for_the_level_or_unpaired_sides_are_refused():
    with pytest.raises(ValueError):
        exact_difference([1, 1, 1], [0, 0, 0], confidence=0.99)  # 2/8 can never fall below 1%
    with pytest.raises(ValueError):
        exact_difference([1, 0], [1])


def test_ffo_shares_are_compared_position_by_position():
    from mcts_lab.ffo import Share, exact_paired

    best = (1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0, 0.5)
    kept = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    one = Share("a", 13, 16, 16, 5, 0.0, best, kept)
    other = Share("b", 4, 16, 16, 0, 0.0, (0.0,) * 8, kept)
    d = exact_paired(one, other)
    assert d.difference == pytest.approx(13 / 16) and d.positions == 8
    assert d.p_value == pytest.approx(2 / 2**8)  # every position favours the first share
    same = exact_paired(one, other, kept=True, comparisons=2)
    assert same.p_value == 1.0 and same.confidence == pytest.approx(0.975)
