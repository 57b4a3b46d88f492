"""Root parallelization on solved classes: the joint choice and the per-class rates."""

from __future__ import annotations

from mcts_lab.parallel_classes import class_mistakes, joint_choice
from mcts_lab.rave_scan import Positions

from mcts_course.agents.mcts import MCTSAgent
from mcts_course.games import TicTacToe


def test_joint_choice_takes_the_most_votes_and_breaks_ties_low() -> None:
    assert joint_choice({3: 5, 1: 7, 6: 7}) == 1


def test_one_tree_chooses_what_uct_chooses() -> None:
    state = TicTacToe.from_moves("b2 a1")
    from mcts_lab.textbook.parallel import merged_root_counts

    for seed in range(3):
        counts = merged_root_counts(state, 1, 40, seed=seed)
        assert joint_choice(counts) == MCTSAgent(40, seed=seed).select_action(state)


def test_rates_count_non_optimal_choices_per_class() -> None:
    state = TicTacToe.from_moves("b2 a1 c1")  # O must block at a3 (action 6)
    every = frozenset(state.legal_actions())
    positions = Positions([0, 1], [state, state], [frozenset({6}), every])
    rates = class_mistakes(positions, searches=2, iterations=40, seeds=3)
    assert rates.shape == (2,)
    assert rates[1] == 0.0  # every move is optimal: no mistake possible
    assert 0.0 <= rates[0] <= 1.0 and rates[0] * 3 == round(rates[0] * 3)
