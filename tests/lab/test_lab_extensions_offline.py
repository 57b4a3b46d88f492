"""The shipped matches of the extensions chapter and the flip experiment's one interval."""

from __future__ import annotations

from mcts_lab import algorithm, puct_offline
from mcts_lab.puct import PAIRINGS

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
    assert f"{low:+.1%} to {high:+.1%}" in text and "97.5% interval" in text
    # a wider confidence gives a wider interval, so the level shown is the level computed
    wide = flips.difference(40, 0.999)
    assert wide[0] <= low and high <= wide[1]


def test_the_prior_control_file_holds_the_matches_of_the_stated_design():
    stored = puct_offline.load()
    assert [(s.game, s.label) for s in stored] == [
        (g, label) for g in puct_offline.SEEDS for label in PAIRINGS
    ]
    for s in stored:
        assert s.result.games == puct_offline.GAMES
        assert sorted(set(s.result.a_player)) == [0, 1]  # colours alternate
        assert all(str(puct_offline.ITERATIONS) in name for name in s.result.names)
        assert 0 < s.p_value <= 1
    rejected = puct_offline.holm_rejections(stored)
    assert list(rejected.values()) == holm([s.p_value for s in stored])
    assert len(puct_offline.table(stored).rows) == len(stored)


def test_the_prior_control_file_is_what_its_seeds_give():
    first_connect4 = puct_offline.load()[0]
    assert puct_offline.recheck(first_connect4, games=1)


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
