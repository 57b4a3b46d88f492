"""Pictures of game-tree search (mcts_course.pictures.search): what they draw is what the
search did."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from mcts_course.games import TicTacToe
from mcts_course.pictures.search import (
    alphabeta_windows,
    draw_alphabeta_trace,
    draw_transpositions,
    transpositions,
)
from mcts_course.trees import RUSSELL_NORVIG, ExplicitTree, search_trace

TREES = [
    RUSSELL_NORVIG,
    [[5, 8, 6], [4, 9, 7], [7, 6, 9]],
    [[[3, 5], [6, 9]], [[1, 2], [0, -1]]],
    [[[[0] * 3] * 3] * 3] * 3,
]


def gids(ax, name):
    return [a for a in ax.get_children() if a.get_gid() == name]


@pytest.mark.parametrize("nested", TREES)
def test_windows_visit_what_the_package_alphabeta_visits(nested):
    tree = ExplicitTree.from_nested(nested)
    windows = alphabeta_windows(tree)
    trace = search_trace(ExplicitTree.from_nested(nested))
    assert set(windows.windows) == trace.visited
    assert windows.value == trace.value
    for alpha, beta in windows.windows.values():
        assert alpha < beta  # a node is only entered with an open window


def test_the_textbook_tree_windows_by_hand():
    windows = alphabeta_windows(ExplicitTree.from_nested(RUSSELL_NORVIG))
    inf = math.inf
    # R&N figure 5.5: B is entered with [3, +inf) and cut after its first reply, 2
    assert windows.windows[()] == (-inf, inf)
    assert windows.windows[(0,)] == (-inf, inf)
    assert windows.windows[(1,)] == (3, inf)
    assert windows.values[(1,)] == 2
    assert windows.cuts == [(1,)]


def test_the_trace_picture_marks_every_window_and_cut():
    tree = ExplicitTree.from_nested(RUSSELL_NORVIG)
    ax = draw_alphabeta_trace(tree)
    inner_visited = [p for p in search_trace(tree).visited if len(p) < 2]
    assert len(gids(ax, "window")) == len(inner_visited) == 4
    assert len(gids(ax, "cut")) == 1
    assert len(gids(ax, "pruned-node")) == 2
    assert "[3, +∞]" in [t.get_text() for t in gids(ax, "window")]
    plt.close("all")


def test_transpositions_of_a_tictactoe_position():
    # four empty cells and no line can be completed within three plies: a full tree
    state = TicTacToe.from_moves("a1 b2 c1 b1 b3")
    found = transpositions(state, plies=3)
    assert len(found.paths) == 1 + 4 + 4 * 3 + 4 * 3 * 2
    # two plies cannot transpose (the two moves are by different players); three can: the
    # mover's two moves in either order, around the same reply
    assert [len(layer) for layer in found.layers] == [1, 4, 12, 12]
    assert all(found.reached(s) == 2 for s in found.layers[3])
    assert all(found.reached(s) == 1 for s in found.layers[2])


def test_the_transposition_picture_draws_one_marker_per_node():
    state = TicTacToe.from_moves("b2 a1 c3 c1")
    found = transpositions(state, plies=3)
    left, right = draw_transpositions(state, plies=3)
    assert len(gids(left, "node")) + len(gids(left, "shared-node")) == len(found.paths)
    graph_nodes = sum(len(layer) for layer in found.layers)
    assert len(gids(right, "node")) + len(gids(right, "shared-node")) == graph_nodes
    assert len(gids(right, "edge")) == len(found.edges)
    assert len(gids(left, "shared-node")) > len(gids(right, "shared-node")) > 0
    plt.close("all")
