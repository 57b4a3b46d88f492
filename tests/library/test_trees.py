"""Tree pictures: the traced searches are the package's, and the drawings show what they say."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from mcts_course.agents import MCTSAgent
from mcts_course.games import TicTacToe
from mcts_course.trees import (
    RUSSELL_NORVIG,
    ExplicitTree,
    depth_profile,
    draw_game_tree,
    draw_search_tree,
    principal_variation,
    search_trace,
    tree_nodes,
)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def by_gid(ax, gid):
    return [a for a in [*ax.patches, *ax.lines, *ax.texts] if a.get_gid() == gid]


def test_the_textbook_tree_has_value_3_and_alpha_beta_prunes_two_leaves():
    tree = ExplicitTree.from_nested(RUSSELL_NORVIG)
    ab, mm = search_trace(tree, alpha_beta=True), search_trace(tree, alpha_beta=False)
    assert ab.value == mm.value == 3
    assert mm.pruned(tree) == []
    assert ab.pruned(tree) == [(1, 1), (1, 2)]  # C's 2nd and 3rd leaves: C <= 2 < 3 already
    assert ab.nodes == mm.nodes - 2


def test_alpha_beta_on_a_tree_prunes_a_whole_subtree():
    # MAX root; the second MIN node's first child (a MAX node worth at most 1) shows MIN can
    # hold MAX to 1 < 6, so its second child, a whole subtree, is never visited.
    tree = ExplicitTree.from_nested([[[5, 6], [7, 8]], [[1, 0], [[9, 9], [9, 9]]]])
    trace = search_trace(tree)
    assert trace.value == 6  # min(max(5, 6), max(7, 8))
    assert (1, 1) in trace.pruned(tree) and (1, 1, 0, 0) in trace.pruned(tree)


def test_the_drawing_shows_every_node_and_marks_the_pruned_ones():
    tree = ExplicitTree.from_nested(RUSSELL_NORVIG)
    trace = search_trace(tree)
    ax = draw_game_tree(tree, trace)
    assert len(by_gid(ax, "node")) == 11 and len(by_gid(ax, "pruned-node")) == 2
    assert len(by_gid(ax, "edge")) == 10 and len(by_gid(ax, "pruned-edge")) == 2
    labels = sorted(t.get_text() for t in by_gid(ax, "label"))
    assert labels.count("3") == 3  # the root, B and B's first leaf
    # the second MIN node, cut after its first reply (2): a bound, drawn as such; without the
    # trace (minimax) it is the exact value 2
    assert labels.count("≤2") == 1 and not any(t.startswith("≥") for t in labels)
    full = [t.get_text() for t in by_gid(draw_game_tree(tree), "label")]
    assert not any(t.startswith("≤") for t in full) and full.count("2") == 4
    assert len(by_gid(ax, "pruned-label")) == 2


def test_mcts_tree_drawing_labels_every_node_with_wins_over_visits():
    agent = MCTSAgent(25, seed=0)
    root = agent.search(TicTacToe.from_moves("b2 a1"))
    nodes = tree_nodes(root)
    pv = principal_variation(root)
    ax = draw_search_tree(root, highlight=[root, *pv], new=pv[-1])
    labels = [t.get_text() for t in by_gid(ax, "label")]
    assert len(labels) == len(nodes) == sum(depth_profile(root))
    assert f"{root.wins:g}/{root.visits}" in labels and "25" in labels[0]
    assert len(by_gid(ax, "path-edge")) == len(pv)
    assert len(by_gid(ax, "edge")) == len(nodes) - 1 - len(pv)
    ax2 = draw_search_tree(root, max_depth=1, label="visits")
    assert len(by_gid(ax2, "label")) == 1 + len(root.children)


def test_depth_profile_and_principal_variation():
    agent = MCTSAgent(200, seed=1)
    root = agent.search(TicTacToe())
    profile = depth_profile(root)
    assert profile[0] == 1 and profile[1] == 9
    assert sum(profile) == 1 + 200  # one node added per iteration (the root is the first)
    pv = principal_variation(root)
    assert pv[0].visits == max(ch.visits for ch in root.children.values())
    for parent, child in zip([root, *pv[:-1]], pv, strict=True):
        assert child.visits == max(ch.visits for ch in parent.children.values())
