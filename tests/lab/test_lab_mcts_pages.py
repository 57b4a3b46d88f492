"""The experiments of the MCTS algorithm page and of the step-by-step page (mcts_lab:
algorithm, worked_example, asymmetry), on tiny sizes."""

from __future__ import annotations

import math
import re

import pytest
from mcts_lab.algorithm import cut_playouts, read_off, threshold_trees, tree_size
from mcts_lab.asymmetry import (
    depth_profiles,
    forced_line,
    forced_line_position,
    full_width_levels,
    loses_at_once,
    only_move,
    plot_depth_profiles,
    wins_at_once,
)
from mcts_lab.worked_example import iteration_tables, trace_search

from mcts_course.agents.bandits import ucb1
from mcts_course.games import ConnectFour, Othello, TicTacToe

BLOCK = TicTacToe.from_moves("b2 a1 c3 a3")  # X must block at a2


# -- the worked example -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def example():
    return trace_search("tictactoe", "b2 a1 c3 a3", 16, expand_threshold=3, seed=6)


def test_before_the_first_iteration_every_move_is_unvisited(example):
    start = example.iterations[0]
    assert [row.line for row in start.rows] == [("b1",), ("c1",), ("a2",), ("c2",), ("b3",)]
    assert all(row.visits == 0 and math.isinf(row.uct) for row in start.rows)


def test_every_move_is_tried_once_before_any_is_tried_twice(example):
    first = [it.path for it in example.iterations[1:6]]
    assert sorted(first) == sorted(row.line for row in example.iterations[0].rows)
    assert all(it.expanded == it.path for it in example.iterations[1:6])


def test_a_leaf_gets_children_only_after_threshold_visits(example):
    assert example.expansions(), "16 iterations expand some node below the root"
    for it in example.expansions():
        parent = example.iterations[it.number - 1].row(*it.expanded[:-1])
        assert parent.visits >= example.expand_threshold
    for it in example.iterations[1:]:
        for row in it.rows:
            if row.depth == 2:
                assert it.row(row.line[0]).visits > example.expand_threshold


def test_the_tables_are_the_trees_statistics(example):
    for it in example.iterations[1:]:
        top = it.top_level()
        assert sum(row.visits for row in top) == it.root_visits == it.number
        for row in top:
            if row.visits:
                assert row.uct == pytest.approx(ucb1(row.wins, row.visits, it.number))


def test_selection_goes_to_the_highest_uct_value(example):
    for before, it in zip(example.iterations, example.iterations[1:], strict=False):
        assert it.path[0] in before.next_choices()


def test_the_rewards_flip_between_levels(example):
    for it in example.iterations[1:]:
        if it.result == "draw":
            assert set(it.rewards) == {0.5}
        else:
            assert all(a + b == 1 for a, b in zip(it.rewards, it.rewards[1:], strict=False))


def test_the_tables_are_the_explorers_with_the_ucb_value_split(example):
    from mcts_course.explorer_draw import table_html

    html = iteration_tables(example, range(3, 6)).data
    assert html.count("<table") == 3 and "Iteration 5" in html
    assert table_html(example.iterations[5].view, nested=True).split("</caption>")[1] in html
    c2 = example.iterations[5].row("c2")  # one visit: mean 1 + exploration = its UCT value
    fifth = html.split("Iteration 5")[1]  # c2's row there: mean + exploration, their sum below
    parts = re.search(
        r">c2[^<]*</td>.*?>([\d.]+) \+ ([\d.]+)</span><br/><span[^>]*>= ([\d.]+)<", fifth
    )
    assert parts and parts.groups() == ("1.000", f"{c2.uct - 1:.3f}", f"{c2.uct:.3f}")


def test_the_search_continues_on_the_same_tree(example):
    visits = example.root.visits
    example.continue_search(10)
    assert example.root.visits == visits + 10


# -- asymmetry ----------------------------------------------------------------------------------
THREAT = ConnectFour.from_moves("5 3 6 3 7")  # X threatens 4-5-6-7: O must block at 4


def test_only_move_finds_the_block():
    assert wins_at_once(THREAT.play(THREAT.parse_action("1"))) == [THREAT.parse_action("4")]
    assert loses_at_once(THREAT, THREAT.parse_action("1"))
    assert only_move(THREAT) == THREAT.parse_action("4")
    assert only_move(ConnectFour()) is None
    assert forced_line(THREAT)[0] == THREAT.parse_action("4")


def test_forced_line_position_finds_a_forced_position():
    found = forced_line_position(ConnectFour(), games=20, max_played=12)
    assert found is not None
    state = found.state
    for move in found.line:
        assert only_move(state) == state.parse_action(move)
        state = state.play(state.parse_action(move))
    assert ConnectFour.from_moves(list(found.moves)) == found.state


def test_full_width_levels_count_positions_breadth_first():
    assert full_width_levels(TicTacToe(), 10) == ([1, 9], 1)
    assert full_width_levels(TicTacToe(), 50) == ([1, 9, 40], 1)
    assert full_width_levels(TicTacToe(), 82) == ([1, 9, 72], 2)


def test_depth_profiles_count_the_mcts_tree():
    profiles = depth_profiles(THREAT, 300, seed=0)
    assert profiles.nodes == sum(profiles.full_width)
    assert sum(profiles.visits.values()) == 300
    assert profiles.levels["4"][0] == 1
    assert max(profiles.moves, key=profiles.share) == "4"
    assert profiles.pv[0] == ("4", profiles.visits["4"])
    assert profiles.complete_to("4") >= 1
    assert plot_depth_profiles(profiles, best="4") is not None


# -- the algorithm page -------------------------------------------------------------------------
def test_read_off_gives_the_root_table_and_its_uct_terms():
    readout = read_off(BLOCK, 60, seed=1)
    assert readout.iterations == 60
    assert [r["visits"] for r in readout.rows] == sorted(
        (r["visits"] for r in readout.rows), reverse=True
    )
    row = readout.choice
    assert row["mean"] + readout.bonus(row) == pytest.approx(row["uct"])
    assert readout.spread("uct") >= 0 and "| move |" in readout.table().data


def test_a_higher_threshold_grows_a_smaller_tree():
    trees = threshold_trees(ConnectFour(), 200, (1, 5), seed=1)
    assert trees[0].nodes == 201 > trees[1].nodes
    assert trees[0].depth >= trees[1].depth


def test_tree_size_counts_the_root():
    readout = read_off(TicTacToe(), 30, seed=0)
    assert tree_size(readout.root) == 31


def test_cut_playouts_compare_the_cut_with_the_finished_game():
    result = cut_playouts(Othello(), 4, iterations=20, playouts=30, seed=0)
    assert result.playouts == 30
    assert result.full_rate > 0 and result.cut_rate > 0
    assert 0 <= result.ahead_score <= 1 and 0 <= result.behind_score <= 1
    lo, hi = result.difference_interval
    assert lo <= result.difference <= hi
