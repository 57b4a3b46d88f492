"""Connect Four's network generation by generation (lab/mcts_lab/c4_generations.py)."""

from __future__ import annotations

import copy

import pytest
from mcts_lab import c4_generations as gens
from mcts_lab import learning_c4

from mcts_course.learn.network import Predictor


class Oracle:
    """A predictor that knows the labels: all its prior on an optimal move, the exact value."""

    def __init__(self, positions: list[learning_c4.Labelled]) -> None:
        self.by_state = {p.state: p for p in positions}

    def predict(self, state: object) -> tuple[dict[int, float], float]:
        position = self.by_state[state]
        best = min(position.best)
        return {a: float(a == best) for a in position.values}, float(position.value)


def test_score_counts_optimal_top_moves_on_test_positions_and_squared_errors() -> None:
    positions = learning_c4.held_out()[:30]
    perfect = gens.score(7, Oracle(positions), positions)
    assert perfect.generation == 7
    assert len(perfect.top) == sum(p.is_test for p in positions) > 0
    assert all(perfect.top) and not any(perfect.squared)
    # the initial network knows nothing: some top moves miss, every squared error is positive
    first = gens.score(0, Predictor(gens.initial_network_json()), positions)
    assert not all(first.top) and all(e > 0 for e in first.squared)


def _data(tops: dict[int, list[int]]) -> dict[str, object]:
    return {
        "scores": [
            {"generation": g, "top": t, "squared": [0.5] * len(t), "searched": t}
            for g, t in tops.items()
        ]
    }


def test_compare_pairs_the_generations_on_the_same_positions() -> None:
    earlier = [0] * 20 + [1] * 20
    later = [1] * 12 + [0] * 8 + [1] * 20  # right on 12 more positions, wrong on none more
    result = gens.compare(_data({5: earlier, 60: later}), 5, 60)  # type: ignore[arg-type]
    assert result.difference == pytest.approx(12 / 40)
    assert 0 < result.interval[0] < result.difference < result.interval[1]
    assert result.p < 0.01
    same = gens.compare(_data({5: earlier, 60: earlier}), 5, 60)  # type: ignore[arg-type]
    assert same.difference == 0 and same.p == 1.0


def test_curve_puts_each_share_inside_its_interval() -> None:
    points = gens.curve(_data({0: [0, 1, 0, 0], 5: [1, 1, 0, 1]}))  # type: ignore[arg-type]
    assert [p.generation for p in points] == [0, 5]
    assert points[1].top == 0.75
    for p in points:
        assert p.top_interval[0] <= p.top <= p.top_interval[1]


def test_the_shipped_file_is_the_retrained_run_and_rechecks() -> None:
    data = gens.load()
    assert data["last_is_shipped"] is True  # the retrained last generation is the shipped net
    generations = [row["generation"] for row in data["scores"]]
    assert generations == list(range(0, generations[-1] + 1, gens.EVERY))
    assert all(c in generations for pair in gens.COMPARISONS for c in pair)
    held = learning_c4.held_out()
    assert gens.recheck(data, held, count=12, games=1)
    tampered = copy.deepcopy(data)
    tampered["scores"][-1]["squared"][0] += 0.25
    assert not gens.recheck(tampered, held, count=12, games=1)


def test_the_figure_draws_the_supervised_line_only_when_given() -> None:
    data = gens.load()
    with_line = gens.figure(data, 0.3, 0.6, 0.5, 0.7)
    without = gens.figure(data, 0.3, None, 0.5, 0.7)
    banded = gens.figure(data, 0.3, None, 0.5, 0.7, uct_interval=(0.65, 0.75))
    assert "UCT, 95% interval" in [t.get_text() for t in banded.axes[2].get_legend().get_texts()]
    labels = [t.get_text() for t in with_line.axes[0].get_legend().get_texts()]
    assert "supervised net" in labels
    labels = [t.get_text() for t in without.axes[0].get_legend().get_texts()]
    assert "supervised net" not in labels and "a random move" in labels
