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
    from mcts_course.stats import holm, sign_flip_p_value

    stored = rave_offline.load()
    p_values = [sign_flip_p_value(s.result.a_returns) for s in stored]
    assert [s.p_value for s in stored] == p_values
    assert list(rave_offline.holm_rejections(stored).values()) == holm(p_values)
    text = rave_offline.table(stored)._repr_markdown_()
    assert all(s.name in text for s in stored) and "not even, Holm" in text
