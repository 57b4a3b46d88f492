"""The corrections the chapter "MCTS measured" reads its comparisons with (mcts_lab.families),
the threshold comparison, the seed answers of the running position, the tuning figure's axis
and the extension of a stored duel by the seeding rule of its games."""

from __future__ import annotations

import json
from collections import Counter
from math import comb

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from mcts_lab import duels_extend, duels_offline
from mcts_lab import experiments as ex
from mcts_lab import families as fam
from mcts_lab import reference as ref
from mcts_lab import sweeps as sw

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.arena import match
from mcts_course.games import Othello, TicTacToe
from mcts_course.stats import bradley_terry, holm


def test_fisher_exact_sums_the_tables_no_likelier_than_the_observed_one():
    # 3 of 3 against 0 of 3: the two most extreme tables, each 1 / C(6, 3).
    assert fam.fisher_exact(3, 3, 0, 3) == pytest.approx(2 / comb(6, 3))
    # Equal shares cannot be told apart; the test is symmetric in the two samples.
    assert fam.fisher_exact(5, 10, 5, 10) == pytest.approx(1.0)
    assert fam.fisher_exact(19, 40, 5, 40) == pytest.approx(fam.fisher_exact(5, 40, 19, 40))
    assert fam.fisher_exact(19, 40, 5, 40) < 0.01 < fam.fisher_exact(8, 40, 5, 40)
    with pytest.raises(ValueError):
        fam.fisher_exact(4, 3, 0, 3)


def test_holm_adjusted_p_values_agree_with_holms_rejections():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = list(rng.uniform(0, 0.1, size=int(rng.integers(1, 8))))
        adjusted = fam.holm_adjusted(p)
        assert all(a >= q for a, q in zip(adjusted, p, strict=True))
        assert [a <= 0.05 for a in adjusted] == holm(p)
    assert fam.holm_adjusted([0.01, 0.04]) == pytest.approx([0.02, 0.04])


def test_bootstrap_p_value_is_small_only_when_the_draws_lie_on_one_side():
    assert fam.bootstrap_p_value(np.linspace(1, 2, 999)) == pytest.approx(2 / 1000)
    assert fam.bootstrap_p_value(np.linspace(-1, 1, 1001)) > 0.9
    with pytest.raises(ValueError):
        fam.bootstrap_p_value([1.0])


def _tournament(edges: dict[tuple[str, str], list[float]]) -> ex.Tournament:
    names = ["random", "cell score", "minimax 2", "alpha-beta ID", "flat MC", "MCTS"]
    k = len(names)
    points, games = np.zeros((k, k)), np.zeros((k, k))
    by_opening = {}
    for i in range(k):
        for j in range(i + 1, k):
            scores = edges.get((names[j], names[i]), [0.9, 1.0] * 10)  # later names stronger
            by_opening[(j, i)] = scores
            points[j, i], points[i, j] = 2 * sum(scores), 2 * (len(scores) - sum(scores))
            games[i, j] = games[j, i] = 2 * len(scores)
    return ex.Tournament(
        names, {}, points, games, bradley_terry(names, points, games), 0.0, by_opening
    )


def test_the_round_robin_family_has_ten_comparisons_and_corrects_them():
    from mcts_lab import mcts_matches as mm

    clear = _tournament({})
    family = fam.round_robin_family(clear, mm.elo_draws(clear), mm.pair_scores)
    assert len(family) == 10 and all(c.survives for c in family)
    # An even head-to-head between minimax 2 and the cell-score agent does not survive.
    even = _tournament({("minimax 2", "cell score"): [1.0, 0.0] * 10})
    family = fam.round_robin_family(even, mm.elo_draws(even), mm.pair_scores)
    head = next(c for c in family if "head to head" in c.words)
    assert not head.survives and head.adjusted >= head.p_value


def test_threshold_comparison_counts_the_searches():
    state = TicTacToe.from_moves("a1 b2 c3")
    choices = sw.threshold_choices(state, thresholds=(1, 9), iterations=40, seeds=6, depth=None)
    move = choices.top(1)
    diff, low, high, p = choices.compare(move, 1, 9, comparisons=2)
    a, b = choices.choices[1][move], choices.choices[9][move]
    assert diff == pytest.approx((a - b) / 6) and low <= diff <= high
    assert p == pytest.approx(fam.fisher_exact(a, 6, b, 6))
    # Two comparisons read together widen each interval.
    _, low1, high1, _ = choices.compare(move, 1, 9, comparisons=1)
    assert high - low > high1 - low1


def test_seed_answers_repeat_and_include_the_earlier_chapters_seed():
    state = ref.running_position()
    answers = ref.seed_answers(state, "flat", seeds=range(3))
    assert answers == ref.seed_answers(state, "flat", seeds=range(3))
    assert answers[1] == ref.earlier_answers(state)["flat"]  # seed 1 is the chapter's seed
    with pytest.raises(ValueError):
        ref.earlier_agent("alphazero")


def test_the_stored_seed_answers_and_the_choices_figure():
    r = duels_offline.reference_searches(duels_offline.load())
    for method in ("flat", "mcts"):
        assert len(r.seed_choices[method]) == ref.ANSWER_SEEDS
        assert r.seed_choices[method][1] == r.earlier[method]  # seed 1: the earlier answer
        counts = ref.choice_counts(r, method)
        assert sum(c for c, _, _ in counts.values()) == ref.ANSWER_SEEDS
        assert all(lo <= c / ref.ANSWER_SEEDS <= hi for c, lo, hi in counts.values())
    fig = ref.choices_figure(r)
    assert all(ax.get_ylim() == (0.0, 1.0) for ax in fig.axes)


def test_the_tuning_figure_plots_mistake_rates_from_zero():
    hits = {0.5: np.array([1, 1, 0, 1]), 2**0.5: np.array([1, 1, 1, 0])}
    scan = sw.TuningScan("c", 2**0.5, 10, hits)
    fig = sw.plot_scans([scan])
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0
    line = ax.lines[0]
    assert list(line.get_ydata()) == pytest.approx([0.25, 0.25])


def test_extending_a_stored_duel_plays_the_games_a_longer_match_would(tmp_path):
    full = match(
        Othello,
        MCTSAgent(4),
        MonteCarloAgent(4, policy="ucb1"),
        games=3,
        seed=5,
        n_jobs=1,
        keep_moves=True,
    )
    short = full.to_json()
    short = {k: (v[:1] if isinstance(v, list) and k != "names" else v) for k, v in short.items()}
    path = tmp_path / "duels.json"
    path.write_text(json.dumps({"othello_duel": {"4": short}}))
    data = json.loads(path.read_text())
    stored = data["othello_duel"]["4"]
    for index in duels_extend.missing_games(stored, 3):
        duels_extend.play_into(stored, "othello", 4, index)
    assert stored["returns"] == [list(r) for r in full.returns]
    assert stored["moves"] == [list(m) for m in full.moves]
    assert list(duels_extend.missing_games(stored, 3)) == []


def test_the_stored_othello_duel_has_a_hundred_games_at_every_budget():
    duel = duels_offline.othello_duel(duels_offline.load())
    assert {b: r.games for b, r in duel.items()} == {100: 100, 300: 100, 1000: 100}
    assert Counter(duel[1000].a_player) == {0: 50, 1: 50}
