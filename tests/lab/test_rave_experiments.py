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


def test_the_matches_play_the_settings_the_tic_tac_toe_tuning_chose():
    from mcts_lab import rave_scan

    tuned = {agent: rave_scan.load().tuned(agent) for agent in ("UCT", "RAVE", "RAVE as MoGo")}
    mogo, plain = rave_offline.PAIRINGS.values()
    # the tuned spec's settings, each present in the match's spec (which adds the budget)
    for spec, agent in ((mogo[0], "RAVE as MoGo"), (plain[0], "RAVE"), (mogo[1], "UCT")):
        settings = tuned[agent].split(":", 1)[1].split(",")
        assert all(s.replace("c=0.0", "c=0") in spec.split(",") for s in settings), (spec, agent)
    assert mogo[1] == plain[1]  # one UCT opponent for both


def test_the_verdicts_are_holms_over_both_matches():
    from mcts_course.stats import holm

    stored = rave_offline.load()
    p_values = [rave_offline.sign_test_p(s.result.wins, s.result.losses) for s in stored]
    assert [s.p_value for s in stored] == p_values
    assert list(rave_offline.holm_rejections(stored).values()) == holm(p_values)
    text = rave_offline.table(stored)._repr_markdown_()
    assert all(s.name in text for s in stored) and "not even, Holm" in text
    assert "0.0010" not in text  # no resampling floor: below 0.001 the table says so


def test_the_sign_test_is_exact():
    from math import comb

    from mcts_course.stats import sign_flip_p_value

    assert rave_offline.sign_test_p(0, 0) == 1.0
    assert rave_offline.sign_test_p(5, 5) == 1.0
    assert rave_offline.sign_test_p(0, 5) == rave_offline.sign_test_p(5, 0) == 2 / 32
    assert rave_offline.sign_test_p(2, 8) == 2 * (1 + 10 + 45) / 1024  # binomial(10, 1/2) tails
    # 31 wins and 66 losses: 0.00049, below the 1/10,001 steps of a resampled sign-flip test
    exact = rave_offline.sign_test_p(31, 66)
    assert exact == 2 * sum(comb(97, i) for i in range(32)) / 2**97
    assert 0.0004 < exact < 0.0006
    # the resampled sign-flip test over the same games estimates the same p-value
    returns = [1.0] * 8 + [0.0] * 3 + [-1.0] * 2
    assert abs(sign_flip_p_value(returns, resamples=40_000) - rave_offline.sign_test_p(8, 2)) < 0.01
