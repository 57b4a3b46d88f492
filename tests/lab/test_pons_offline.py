"""Mistake rates on Pons' published Connect Four positions (lab/mcts_lab/pons_offline.py)."""

from __future__ import annotations

import pytest
from mcts_lab import pons_offline as pons

from mcts_course.agents.exact import forget, move_values


def test_the_sets_are_pons_files_with_a_seeded_sample_and_separate_calibration() -> None:
    for name in pons.SETS:
        rows = pons.read_set(name)
        assert len(rows) == 1000
        assert all(set(moves) <= set("1234567") for moves, _ in rows)
        sample = pons.sample_lines(name)
        assert sample == pons.sample_lines(name)  # seeded: the same lines every time
        assert len(set(sample)) == pons.SAMPLE[name]
        assert not set(sample) & set(pons.calibration_lines(name))


def test_child_keeps_agrees_with_the_exact_value_of_every_move() -> None:
    # Three quick Middle-Easy positions of different classes: the null-window verdicts and the
    # centre-first order must give what the full solve of each move gives.
    rows = pons.read_set("Middle-Easy")
    for moves, score in rows[:3]:
        keeps = pons.child_keeps(moves, score)
        forget()
        values = move_values(pons.state_of(moves))
        best = max(values.values())
        assert best == pons.class_of(score)  # the package's solver agrees with Pons
        assert keeps == [None if c not in values else values[c] == best for c in range(7)]


def test_a_lost_position_has_no_mistakes_and_a_full_column_is_refused() -> None:
    moves, score = next((m, s) for m, s in pons.read_set("Middle-Easy") if s < 0)
    keeps = pons.child_keeps(moves, score)
    assert all(k for k in keeps if k is not None)
    with pytest.raises(ValueError, match="full"):
        pons.is_mistake([None, True, False, True, True, True, True], 0)
    assert pons.is_mistake([None, True, False, True, True, True, True], 2)


def test_the_cap_gives_up_on_a_slow_position() -> None:
    moves, score = pons.read_set("Middle-Medium")[0]  # a draw that takes the solver a minute
    assert pons.solve_capped(moves, score, 0.2) is None


def test_sign_test_counts_only_the_positions_where_the_agents_differ() -> None:
    assert pons.sign_test([1, 0, 1], [1, 0, 1]) == 1.0
    # five discordant positions all one way: 2 * (1/2)^5
    assert pons.sign_test([1] * 5 + [0] * 20, [0] * 25) == pytest.approx(2 / 32)
    # positions where both erred or neither did change nothing
    assert pons.sign_test([1] * 5 + [1] * 9, [0] * 5 + [1] * 9) == pytest.approx(2 / 32)
    assert pons.sign_test([1, 1, 1, 0], [0, 0, 0, 1]) == pons.sign_test([0, 0, 0, 1], [1, 1, 1, 0])


def test_the_shipped_file_is_consistent() -> None:
    data = pons.load()
    assert data["sample"] == pons.SAMPLE and data["seed"] == pons.SEED
    budgets = data["calibration"]["budgets"]
    assert budgets["PUCT + self-play net"] == pons.PUCT_ITERATIONS
    for name, rows in data["sets"].items():
        assert [r["line"] for r in rows] == pons.sample_lines(name)
        for r in rows:
            if r["keeps"] is None:
                assert "moves_played" not in r
                continue
            assert any(r["keeps"])  # some move keeps the class
            for agent, action in r["moves_played"].items():
                assert r["keeps"][action] is not None, (agent, r["line"])  # a legal move
    by_set = pons.results(data)
    family = pons.comparisons(by_set)
    assert len(family) == 3 * len(by_set)
    for result in by_set.values():
        assert sum(result.classes.values()) == result.solved
        for agent in pons.AGENTS:
            low, high = result.interval(agent)
            assert low <= result.rate(agent) <= high


def test_recheck_replays_the_shipped_file() -> None:
    assert pons.recheck(positions=2)


def test_the_figure_draws_each_agents_rate_on_each_set() -> None:
    by_set = pons.results()
    fig = pons.rates_figure(by_set)
    heights = sorted(round(p.get_height(), 9) for p in fig.axes[0].patches)
    rates = sorted(round(r.rate(a), 9) for r in by_set.values() for a in pons.AGENTS)
    assert heights == rates


def test_rates_where_a_mistake_is_possible_count_the_same_mistakes_over_fewer_positions() -> None:
    data = pons.load()
    for name, result in pons.results(data).items():
        solved = [r for r in data["sets"][name] if r["keeps"] is not None]
        # a lost position never admits a mistake; a won one may (if some move gives it away)
        for r, possible in zip(solved, result.possible, strict=True):
            if pons.class_of(r["score"]) == -1:
                assert possible == 0
            assert possible == int(False in r["keeps"])
        assert result.classes[1] + result.classes[0] >= result.contested > 0
        for agent in pons.AGENTS:
            # every mistake lies in a position where one is possible
            assert all(p for m, p in zip(result.mistakes[agent], result.possible, strict=True) if m)
            assert result.rate(agent, where_possible=True) * result.contested == pytest.approx(
                result.rate(agent) * result.solved
            )
            low, high = result.interval(agent, where_possible=True)
            assert low <= result.rate(agent, where_possible=True) <= high
