"""Tic-tac-toe's training over several seeds and strength against the perfect player
(lab/mcts_lab/learning_seeds.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest
from mcts_lab import learning_seeds as ls

from mcts_course.learn.train import CONFIGS


def test_the_shipped_file_has_every_seed_with_full_curves_and_matches() -> None:
    data = ls.load()
    assert [r["seed"] for r in data["runs"]] == list(ls.SEEDS)
    assert data["runs"][0]["seed"] == CONFIGS["tictactoe"].seed  # the chapter's seed first
    generations = CONFIGS["tictactoe"].generations
    for run in data["runs"]:
        assert len(run["steps"]) == len(run["value"]) == len(run["policy"]) == generations
        assert all(0 <= x <= 1 for x in run["value"] + run["policy"])
        assert sorted(int(g) for g in run["strength"]) == [0, *ls.KEEP]
        for counts in run["strength"].values():
            assert sum(counts.values()) == data["games"]
            assert counts["wins"] == 0  # nobody beats the perfect player at tic-tac-toe


def test_the_untrained_network_loses_to_the_perfect_player_and_repeats() -> None:
    weights = ls.untrained(0)
    assert weights == ls.untrained(0) and weights != ls.untrained(1)
    counts = ls.strength(weights, games=20)
    assert counts == ls.strength(weights, games=20)  # seeded
    assert counts["wins"] == 0 and counts["losses"] > 0


def test_first_reaching_and_same_curves() -> None:
    run = {"steps": [10, 20, 30], "value": [0.5, 0.8, 0.9], "policy": [0.85, 0.9, 0.95]}
    assert ls.first_reaching(run, "policy", 0.9) == 20
    assert ls.first_reaching(run, "value", 0.9) == 30
    assert ls.first_reaching(run, "value", 0.95) is None
    curves = {"value": [0.5, 0.8, 0.9], "policy": [0.85, 0.9, 0.95]}
    assert ls.same_curves(run, [10, 20, 30], curves)
    assert not ls.same_curves(run, [10, 20, 30], {**curves, "value": [0.5, 0.8, 0.91]})


def test_lost_share_and_its_interval() -> None:
    share, (low, high) = ls.lost({"wins": 0, "draws": 150, "losses": 50})
    assert share == pytest.approx(0.25) and low < 0.25 < high
    share, (low, high) = ls.lost({"wins": 0, "draws": 200, "losses": 0})
    assert share == 0 and low == 0 and 0 < high < 0.05


def test_the_figures_draw_every_seed() -> None:
    import matplotlib.pyplot as plt

    data = ls.load()
    fig = ls.curves_figure(data)
    assert len(fig.axes[0].lines) >= 2 * len(data["runs"])
    _, ax = plt.subplots()
    ls.strength_figure(data, ax)
    assert len(ax.containers) == len(data["runs"])
    plt.close("all")
