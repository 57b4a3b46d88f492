"""The shipped matches of the extensions chapter and the flip experiment's one interval."""

from __future__ import annotations

import pytest
from mcts_lab import algorithm, puct_offline
from mcts_lab.puct import PAIRINGS

from mcts_course.arena import MatchResult
from mcts_course.stats import holm, paired_interval


def test_the_flip_table_shows_the_interval_the_prose_quotes():
    positions = algorithm.decisive_positions(6, seed=3)
    flips = algorithm.flip_experiment(positions, (5, 40), seeds=2)
    for budget in flips.budgets:
        low, high = flips.difference(budget, 0.975)
        assert (low, high) == paired_interval(
            flips.without_flip[budget], flips.with_flip[budget], 0.975
        )
        assert low <= high
    text = flips.table(0.975)._repr_markdown_()
    low, high = flips.difference(40, 0.975)
    # a difference of two shares is in percentage points, as the prose quotes it
    assert f"{100 * low:+.1f} to {100 * high:+.1f}" in text and "97.5% interval" in text
    assert "(points)" in text
    # a wider confidence gives a wider interval, so the level shown is the level computed
    wide = flips.difference(40, 0.999)
    assert wide[0] <= low and high <= wide[1]


def test_flip_positions_can_be_drawn_one_per_symmetry_class():
    # Drawn at random, short openings repeat up to symmetry (a1 and c1 are one class); with
    # one_per_class no two positions drawn are rotations or reflections of each other.
    plain = algorithm.decisive_positions(80)
    assert len({p.symmetry_class() for p in plain}) < len(plain)
    distinct = algorithm.decisive_positions(80, one_per_class=True)
    assert len({p.symmetry_class() for p in distinct}) == len(distinct) == 80
    text = algorithm.flip_experiment(distinct[:3], (5,), seeds=1).table(0.9875)._repr_markdown_()
    assert "98.75% interval" in text


def test_the_prior_control_file_holds_the_matches_of_the_stated_design():
    stored = puct_offline.load()
    assert [(s.game, s.label) for s in stored] == [
        (g, label) for g in puct_offline.SEEDS for label in PAIRINGS
    ]
    assert {s.game for s in stored} == {"connect4", "othello"}
    for s in stored:
        k = list(PAIRINGS).index(s.label)
        assert s.seed == s.result.seed == puct_offline.SEEDS[s.game] + k
        assert s.result.game == s.game
        assert s.result.games == puct_offline.GAMES
        assert sorted(set(s.result.a_player)) == [0, 1]  # colours alternate
        assert all(str(puct_offline.ITERATIONS) in name for name in s.result.names)
        assert 0 < s.p_value <= 1
    rejected = puct_offline.holm_rejections(stored)
    assert list(rejected.values()) == holm([s.p_value for s in stored])
    table = puct_offline.table(stored)
    assert len(table.rows) == len(stored) == 6
    assert {row[0] for row in table.rows} == {"Connect Four", "Othello"}


def _stored(game: str, label: str, wins: int, losses: int) -> puct_offline.Stored:
    """A made-up match of ``wins`` + ``losses`` games, agent A always first."""
    returns = [(1, -1)] * wins + [(-1, 1)] * losses
    result = MatchResult(game, ("A", "B"), [0] * len(returns), returns, seed=0)
    return puct_offline.Stored(game, label, 0, result)


def test_holm_reads_the_six_matches_as_one_family():
    labels = list(PAIRINGS)
    # the middle match of Connect Four (p about 0.02) passes Holm over its own three matches
    # (its bar is 0.05/2) but not over six (0.05/5): the correction counts every match read
    connect4 = [
        _stored("connect4", label, w, 100 - w)
        for label, w in zip(labels, (70, 62, 55), strict=True)
    ]
    othello = [_stored("othello", label, 55, 45) for label in labels]
    ps = [s.p_value for s in connect4]
    assert ps[0] < 0.05 / 6 and 0.05 / 5 < ps[1] < 0.05 / 2 and ps[2] > 0.05
    alone = puct_offline.holm_rejections(connect4)
    assert list(alone.values()) == [True, True, False]
    together = puct_offline.holm_rejections(connect4 + othello)
    assert together[("connect4", labels[0])] and not together[("connect4", labels[1])]
    assert not any(together[("othello", label)] for label in labels)
    verdicts = [row[-1] for row in puct_offline.table(connect4 + othello).rows]
    assert verdicts == ["yes"] + ["no"] * 5


def test_the_prior_control_file_is_what_its_seeds_give():
    first_connect4 = puct_offline.load()[0]
    assert puct_offline.recheck(first_connect4, games=1)
    # a changed result is caught: the same match with its first game's result flipped
    changed = puct_offline.load()[0]
    r0, r1 = changed.result.returns[0]
    changed.result.returns[0] = (r1, r0)
    assert r0 != r1 and not puct_offline.recheck(changed, games=1)


@pytest.mark.slow
def test_the_prior_control_file_is_what_its_seeds_give_in_othello():
    first_othello = next(s for s in puct_offline.load() if s.game == "othello")
    assert puct_offline.recheck(first_othello, games=1)


def test_solver_against_uct_scores_both_searches_on_the_same_positions():
    from mcts_lab.solved import connect4_endgames, solver_against_uct

    from mcts_course.agents import MCTSAgent
    from mcts_course.agents.solver import MCTSSolverAgent

    positions = connect4_endgames(3, plies=30, seed=2)
    duel = solver_against_uct(positions, budgets=(20,), seeds=2)
    for rates in (duel.solver[20], duel.uct[20]):
        assert len(rates) == 3 and all(r in (0.0, 0.5, 1.0) for r in rates)
    # the rates are the searches' own choices against the single right move
    p = positions[0]
    wrong = [MCTSSolverAgent(20, seed=s).select_action(p.state) not in p.best_moves for s in (0, 1)]
    assert duel.solver[20][0] == sum(wrong) / 2
    wrong = [MCTSAgent(20, seed=s).select_action(p.state) not in p.best_moves for s in (0, 1)]
    assert duel.uct[20][0] == sum(wrong) / 2
    low, high = duel.difference(20, 0.975)
    assert low <= duel.mistakes(20, solver=False) - duel.mistakes(20) <= high
    assert "97.5%" in duel.table(0.975)._repr_markdown_()
