"""The experiments of the chapter on MCTS's properties, at tiny sizes."""

from __future__ import annotations

import random

from mcts_lab.properties import (
    WinningMovePlayout,
    anytime,
    narrow_trap,
    playout_outcomes,
    playout_search,
)

from mcts_course.agents import MCTSAgent
from mcts_course.games import ConnectFour, TicTacToe


def test_anytime_plays_every_budget_against_perfect_play():
    result = anytime([5, 50], games=4, seed=0, n_jobs=1)
    assert list(result.results) == [5, 50]
    assert all(r.games == 4 and r.wins == 0 for r in result.results.values())  # never beats it
    assert all(lo <= s <= hi for s, (lo, hi) in zip(result.not_lost, result.intervals, strict=True))
    assert result.microseconds > 0


def test_the_trap_has_two_losing_corners_that_random_playouts_favour():
    trap = narrow_trap([10, 300], seeds=5)
    names = {trap.state.action_to_string(a): v for a, v in trap.values.items()}
    assert names == {"b1": 0, "c1": -1, "a2": 0, "c2": 0, "a3": -1, "b3": 0}
    assert trap.random_share == 4 / 6
    corners = {round(trap.means[a], 9) for a, v in trap.values.items() if v < 0}
    edges = {round(trap.means[a], 9) for a, v in trap.values.items() if v == 0}
    assert corners == {round(7 / 12, 9)} and edges == {round(11 / 20, 9)}  # exact averages
    assert trap.depth_seen == 4  # corner, forced block, a block, the fork's win
    assert len(trap.mcts_safe) == len(trap.flat_safe) == 2
    assert all(0 <= k <= 5 for k in trap.mcts_safe + trap.flat_safe)
    # a corrected confidence widens every interval around the same share
    for (lo, hi), (wlo, whi), share in zip(
        trap.intervals("mcts"), trap.intervals("mcts", 0.99), trap.share("mcts"), strict=True
    ):
        assert wlo <= lo <= share <= hi <= whi and (wlo, whi) != (lo, hi)


def test_the_winning_move_playout_takes_a_win_when_there_is_one():
    state = TicTacToe.from_moves("a1 b1 a2 b2")  # X to move, a3 wins
    for seed in range(5):
        assert WinningMovePlayout().evaluate(state, random.Random(seed)) == (1, -1)
    agent = MCTSAgent(30, evaluator=WinningMovePlayout(), seed=0)
    assert agent.select_action(ConnectFour.from_moves("1 2 1 2 1 2")) == 0


def test_playout_outcomes_are_shares():
    for row in playout_outcomes(TicTacToe(), 50, seed=0):
        assert abs(row.x_wins + row.draws + row.o_wins - 1) < 1e-9
        assert row.microseconds > 0


def test_playout_search_plays_the_three_matches():
    result = playout_search(5, 10, games=2, seed=0, n_jobs=1)
    assert set(result.results) == {"random", "takes a win", "random, equal time"}
    assert result.cost_ratio > 0


def test_the_three_solved_positions_agree_with_their_published_values():
    from mcts_lab.ffo import load_ffo
    from mcts_lab.properties import exact_positions, pons_check

    (othello, _, margins), (connect4, _, values), (ttt, _, ttt_values) = exact_positions()
    assert margins == load_ffo()[0].margins  # the package's solver against the FFO file
    published, ours = pons_check()
    assert published == ours == max(values.values())  # Pons' class against the exact search
    assert set(values) == set(connect4.legal_actions())
    assert sorted(ttt_values.values()) == [-1, -1, 0, 0, 0, 0]
    assert set(margins) == set(othello.legal_actions())


def test_panels_count_every_visit_and_name_the_losing_moves():
    import matplotlib

    matplotlib.use("Agg")
    from mcts_lab.properties import plot_against_exact, visits_against_exact

    panels = visits_against_exact(iterations=60, seed=0)
    for panel in panels:
        assert panel.total == 60 and set(panel.visits) <= set(panel.values)
        assert panel.choice in panel.values
        assert all(panel.values[a] < 0 <= panel.best for a in panel.losing)
        assert all(panel.values[a] >= 0 for a in panel.values if a not in panel.losing)
    fig = plot_against_exact(panels)
    assert len([ax for ax in fig.axes if ax.get_title()]) == 3
    import matplotlib.pyplot as plt

    plt.close(fig)
