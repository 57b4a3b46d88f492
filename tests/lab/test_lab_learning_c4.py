"""The Connect Four learning experiments (mcts_lab.learning_c4) on small inputs."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab import learning_c4 as lab

from mcts_course.agents.exact import move_values
from mcts_course.games import ConnectFour
from mcts_course.learn import load
from mcts_course.learn.network import PolicyValueNet, Predictor


@pytest.fixture(scope="module")
def late():
    """A few labelled positions late enough to solve in a blink."""
    return lab.label_positions(12, (32, 36), seed=5)


def test_labels_are_the_exact_searchs_and_distinct(late):
    assert len({p.moves for p in late}) == len(late)
    for p in late:  # a test position: a choice to make, no win on the spot
        mover = p.state.current_player
        assert p.is_test == (
            len(p.best) < len(p.values)
            and mover not in [p.state.play(a).winner() for a in p.values]
        )
    for p in late[:4]:
        assert p.values == move_values(p.state)
        assert not p.state.is_terminal()


def test_labels_survive_saving(late):
    assert lab.load_labelled(lab.save_labelled(late)) == late


def test_the_shipped_labels_agree_with_the_exact_search():
    held_out = lab.held_out()
    assert len({p.moves for p in held_out}) == len(held_out) == lab.HELD_OUT["count"]
    latest = sorted(held_out, key=lambda p: -len(p.moves))[:3]
    for p in latest:
        assert p.values == move_values(p.state)


def test_the_mirror_image_has_the_mirrored_values(late):
    for p in late[:3]:
        q = lab.mirrored(p)
        assert q.values == move_values(q.state)
        assert lab.mirrored(q) == p


def test_supervised_targets_spread_over_the_optimal_moves(late):
    x, mask, target, z = lab.supervised_examples(late)
    assert x.shape == (2 * len(late), 84)
    assert np.allclose(target.sum(axis=1), 1.0)
    for k, p in enumerate(late):
        row = target[2 * k]
        assert {a for a in range(7) if row[a] > 0} == p.best
        assert z[2 * k] == p.value == z[2 * k + 1]


def test_supervised_training_fits_its_labels(late):
    x, mask, target, z = lab.supervised_examples(late)
    net = lab.train_supervised(late, (16,), steps=150, batch=16, learning_rate=0.01, seed=3)
    untrained = PolicyValueNet.for_game(ConnectFour, (16,), seed=3)
    assert net.loss(x, mask, target, z) < 0.7 * untrained.loss(x, mask, target, z)


class Oracle:
    """Predicts the exact labels (or, with ``wrong``, the worst move and the opposite result)."""

    def __init__(self, positions, wrong=False):
        self.labels = {p.state: p for p in positions}
        self.wrong = wrong

    def predict(self, state):
        p = self.labels[state]
        pick = min if self.wrong else max
        top = pick(sorted(p.values), key=p.values.__getitem__)
        priors = {a: (0.9 if a == top else 0.1 / (len(p.values) - 1)) for a in p.values}
        return priors, float(-p.value if self.wrong else p.value) * 0.9


def test_network_accuracy_counts_right_moves_and_results(late):
    right = lab.network_accuracy("oracle", Oracle(late), late)
    assert right.top_move == 1.0 and right.outcome == 1.0
    assert right.choices == sum(p.is_test for p in late) and right.positions == len(late)
    wrong = lab.network_accuracy("anti", Oracle(late, wrong=True), late)
    assert wrong.top_move == 0.0
    assert wrong.outcome == sum(p.value == 0 for p in late) / len(late)  # -0 is still a draw
    # the nearest result: a win above 1/2, a loss below -1/2, a draw between
    assert lab.outcome_of(0.6) == 1 and lab.outcome_of(-0.6) == -1 and lab.outcome_of(0.4) == 0


def test_the_baseline_is_chance_and_the_most_common_result(late):
    base = lab.baseline_accuracy(late)
    tests = [p for p in late if p.is_test]
    assert base.choices == len(tests)
    assert 0 < base.top_move < 1
    assert base.top_move == pytest.approx(
        sum(len(p.best) / len(p.values) for p in tests) / len(tests)
    )
    most = max((1, 0, -1), key=lambda v: sum(p.value == v for p in late))
    assert base.outcome == sum(p.value == most for p in late) / len(late) >= 1 / 3


def test_optimal_shares_are_seeded_whatever_the_workers(late):
    small = Predictor(PolicyValueNet.for_game(ConnectFour, (8,), seed=1).to_json())
    one = lab.optimal_shares(late, iterations=20, supervised=small, n_jobs=1)
    two = lab.optimal_shares(late, iterations=20, supervised=small, n_jobs=2)
    assert one == two
    assert one.positions == sum(p.is_test for p in late) > 0
    assert set(one.right) == {"PUCT + self-play net", "UCT", "PUCT + supervised net"}
    assert all(0 <= n <= one.positions for n in one.right.values())
    assert "95% interval" in lab.shares_table(one).data


def test_paired_shares_compare_position_by_position():
    # A kept the exact value on positions 0-5, B on 0-1 and 6: the shares differ by 3/8 and
    # only the five positions where they disagree carry the test.
    shares = lab.Shares(20, {"A": [1, 1, 1, 1, 1, 1, 0, 0], "B": [1, 1, 0, 0, 0, 0, 1, 0]})
    paired = shares.paired("A", "B")
    low, high = paired.interval
    assert paired.difference == pytest.approx(3 / 8)
    assert low < paired.difference < high
    assert 0.05 < paired.p <= 1
    same = lab.Shares(20, {"A": [1, 0, 1], "B": [1, 0, 1]})
    assert same.paired("A", "B") == lab.PairedMeasure(0.0, (0.0, 0.0), 1.0)
    table = lab.paired_table([("A - B", paired), ("same", same.paired("A", "B"))]).data
    assert "+37.5%" in table and "1.000" in table
    two = lab.shares_table([shares, lab.Shares(40, shares.kept)]).data
    assert two.count("| A |") == 2 and "| 40 |" in two


def test_the_match_and_its_table():
    result = lab.net_vs_uct(games=2, seed=1, iterations=10, n_jobs=1)
    assert result.games == 2 and result.a_player == [0, 1]
    assert "PUCT(net," in result.names[0] and result.names[1].startswith("MCTS(")
    assert "score" in lab.match_table({"equal iterations": result}).data
    with pytest.raises(ValueError, match="one of them"):
        lab.net_vs_uct(games=2, seed=1)


def test_the_shipped_networks_and_the_learning_curve():
    log = lab.training_log()
    assert [row["generation"] for row in log] == list(range(1, len(log) + 1))
    figure = lab.learning_curve(log)
    assert len(figure.axes) == 1
    assert len(figure.axes[0].lines[0].get_xdata()) == len(log)  # one point per generation
    supervised, self_play = lab.supervised_network(), load("connect4")
    assert supervised.hidden == self_play.hidden  # the same architecture
    held_out = lab.held_out()[:40]
    rows = [
        lab.network_accuracy(n, p, held_out)
        for n, p in (("self-play", self_play), ("supervised", supervised))
    ]
    assert all(0 <= a.top_move <= 1 and 0 <= a.outcome <= 1 for a in rows)
    assert "top move optimal" in lab.accuracy_table(rows).data
    table = lab.accuracy_table([lab.baseline_accuracy(held_out), *rows])
    assert [row[0] for row in table.rows][:2] == ["a random move", "the most common result"]
    assert table.rows[0][2] == "(expected)" and table.rows[1][1] == ""  # two rules, two rows


def test_iterations_in_a_time_limit():
    states = lab.game_positions(3, seed=1)
    assert len(states) == 3 and not any(s.is_terminal() for s in states)
    rates = lab.iterations_in(0.002, states)
    assert set(rates) == {"PUCT + self-play net", "UCT"}
    assert all(rate >= 1 for rate in rates.values())


def test_the_match_table_reads_matches_together_with_holm():
    from mcts_course.arena import MatchResult

    won = MatchResult(
        "connect4",
        ("A", "B"),
        [k % 2 for k in range(30)],
        [(1, -1) if k % 2 == 0 else (-1, 1) for k in range(30)],
    )
    even = MatchResult("connect4", ("A", "B"), [0, 1, 0, 1], [(1, -1), (1, -1), (0, 0), (0, 0)])
    assert won.score == 1.0 and even.score == 0.5
    assert lab.match_p_value(won) < 0.001 and lab.match_p_value(even) == 1.0
    table = lab.match_table({"won": won, "even": even}, holm=True)
    assert table.columns[-2:] == ["p (even)", "not even, Holm"]
    assert [row[-1] for row in table.rows] == ["yes", "no"]
    assert len(lab.match_table({"won": won}).columns) == 7


def test_two_networks_compared_on_the_same_positions(late):
    net = load("connect4")
    same = lab.compare_networks(net, net, late)
    assert set(same) == {"top", "outcome", "squared"}
    assert all(m.difference == 0 and m.p == 1.0 for m in same.values())
    heads = lab.per_position(net, late)
    assert len(heads["top"]) == sum(p.is_test for p in late)
    assert len(heads["squared"]) == len(heads["outcome"]) == len(late)


def test_mirror_pairs_are_counted_once():
    # column 3 is the centre: [3] is its own mirror; [0, 1] and [6, 5] mirror each other
    assert lab.mirror_pairs([[3], [0, 1], [6, 5], [2, 2]]) == (1, 1)
    assert lab.mirror_pairs([[0], [1], [2]]) == (0, 0)
