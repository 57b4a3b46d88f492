"""The PUCT control: the matches change one thing at a time, at equal budget."""

from __future__ import annotations

from mcts_lab.puct import PAIRINGS, iterations_per_second, prior_control

from mcts_course.agents import make_agent
from mcts_course.agents.puct import PUCTAgent
from mcts_course.games import TicTacToe


def test_the_control_differs_in_the_prior_only():
    first, second = (make_agent(s, iterations=10) for s in PAIRINGS["PUCT(cells) vs PUCT(uniform)"])
    assert isinstance(first, PUCTAgent) and isinstance(second, PUCTAgent)
    assert (first.prior_name, second.prior_name) == ("cells", "uniform")
    for key in ("c", "fpu", "expand_threshold", "iterations"):
        assert getattr(first, key) == getattr(second, key)


def test_prior_control_plays_every_pairing_at_equal_budget():
    control = prior_control(TicTacToe, 20, games=4, seed=0, n_jobs=1)
    assert list(control.results) == list(PAIRINGS)
    for r in control.results.values():
        assert r.games == 4
        assert all("20" in name for name in r.names)
    assert iterations_per_second("puct", TicTacToe(), n=50) > 0


def test_the_prior_figure_and_the_midgame():
    import matplotlib

    matplotlib.use("Agg")
    from mcts_lab.puct import othello_midgame, prior_figure

    assert not othello_midgame().is_terminal()
    assert len(prior_figure().axes) >= 2


def test_rates_table_gives_each_rate_as_a_share_of_the_first():
    from mcts_lab.puct import rates_table

    table = rates_table({"mcts": 200.0, "puct:prior=cells": 150.0})
    text = table._repr_markdown_()
    assert "100%" in text and "75%" in text and len(table.rows) == 2


def test_iteration_rates_measure_every_agent():
    from mcts_lab.puct import iteration_rates

    rates = iteration_rates({"UCT": "mcts", "PUCT": "puct"}, TicTacToe(), n=50, rounds=2)
    assert set(rates) == {"UCT", "PUCT"} and min(rates.values()) > 0


def test_game_rates_table_relates_each_rate_to_the_first_agent_in_its_own_game():
    from mcts_lab.puct import game_rates_table

    table = game_rates_table(
        {"tic-tac-toe": {"UCT": 100.0, "PUCT": 50.0}, "Othello": {"UCT": 10.0, "PUCT": 8.0}}
    )
    assert len(table.columns) == 5 and len(table.rows) == 2
    puct = table.rows[1]
    assert puct[0] == "PUCT" and puct[2] == 0.5 and puct[4] == 0.8


def test_rate_positions_give_one_live_position_per_game():
    from mcts_lab.puct import rate_positions

    positions = rate_positions()
    assert set(positions) == {"tic-tac-toe", "Connect Four", "Othello"}
    assert not any(state.is_terminal() for state in positions.values())
    assert len({type(state) for state in positions.values()}) == 3
