"""The exercise pages' reference results: summaries judged against exact values, node counts."""

from __future__ import annotations

from mcts_lab.exercise_results import (
    library_alphabeta,
    library_minimax,
    node_counts,
    node_table,
    reference_rows,
    summarise,
    tree_size,
)
from mcts_lab.present import Table

from mcts_course.agents import MCTSAgent
from mcts_course.agents.evaluation import disc_count as disc_difference
from mcts_course.games import Othello, TicTacToe

TRAP = TicTacToe.from_moves("a1 b2 c3")  # O to move: the edges draw, the corners lose
EDGE, CORNER = TRAP.parse_action("b1"), TRAP.parse_action("c1")


def row(n: int, action: int, value: float, seed: int = 0) -> dict:
    return {
        "iterations": n,
        "c": 1.4,
        "expand_threshold": 1,
        "seed": seed,
        "action": action,
        "value": value,
        "visits": 1,
    }


def test_summaries_count_the_moves_that_keep_the_exact_value():
    rows = [
        row(10, EDGE, 0.8, 0),
        row(10, CORNER, 0.6, 1),
        row(100, EDGE, 0.5, 0),
        row(100, EDGE, 0.5, 1),
    ]
    few, many = summarise(rows, TRAP)
    assert (few.iterations, few.seeds, few.best_share, few.mean_value) == (10, 2, 0.5, 0.7)
    assert many.best_share == 1.0 and many.interval[1] == 1.0 and many.interval[0] < 1.0


def test_reference_rows_follow_the_exercise_contract():
    rows = reference_rows(TRAP, iterations=(5, 50), cs=(1.4,), thresholds=(1, 5), seeds=range(2))
    assert len(rows) == 2 * 2 * 2
    keys = {"iterations", "c", "expand_threshold", "seed", "action", "value", "visits"}
    assert all(keys <= set(r) and r["action"] in TRAP.legal_actions() for r in rows)
    # A higher threshold grows a smaller tree for the same iterations.
    by = {(r["iterations"], r["expand_threshold"], r["seed"]): r["nodes"] for r in rows}
    assert by[50, 5, 0] < by[50, 1, 0]


def test_the_library_searches_count_like_the_exercise_and_agree():
    position = Othello.from_moves("d3 c5 f6")
    counts = node_counts(position, (1, 2, 3), disc_difference, library_minimax, library_alphabeta)
    assert all(c.minimax_value == c.alphabeta_value for c in counts)
    assert counts[0].minimax_nodes == 1 + len(position.legal_actions())
    assert counts[2].alphabeta_nodes < counts[2].minimax_nodes


def test_a_missing_alphabeta_shows_as_not_implemented():
    def alphabeta(*args, **kwargs):
        raise NotImplementedError

    counts = node_counts(Othello(), (1,), disc_difference, library_minimax, alphabeta)
    assert counts[0].alphabeta_nodes is None
    assert "not implemented" in node_table(counts)._repr_markdown_()


def test_tree_size_counts_every_node():
    mcts = MCTSAgent(30, seed=0)
    mcts.select_action(TicTacToe())
    assert tree_size(mcts.last_root) == 31  # the root and one node per iteration


def test_a_table_renders_its_rows_with_their_formats():
    table = Table(["move", "mean"], [["b2", 0.5]], {"mean": ".2f"}, right=["mean"])
    assert table._repr_markdown_().splitlines() == ["| move | mean |", "|---|--:|", "| b2 | 0.50 |"]


def test_corrected_intervals_widen_with_the_family_and_hold_the_scores():
    from types import SimpleNamespace

    from mcts_lab.exercise_results import corrected_intervals

    from mcts_course.stats import wilson_interval

    one = {"a": SimpleNamespace(score=0.6, games=400)}
    five = {k: SimpleNamespace(score=0.6, games=400) for k in "abcde"}
    level1, alone = corrected_intervals(one)
    level5, together = corrected_intervals(five)
    assert level1 == 0.95 and abs(level5 - 0.99) < 1e-12
    assert alone["a"] == wilson_interval(0.6, 400, 0.95)
    low, high = together["a"]
    assert low < alone["a"][0] < 0.6 < alone["a"][1] < high  # wider, around the score
