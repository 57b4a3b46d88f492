"""The idea pictures draw what their captions say."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from mcts_course.diagrams import four_phases, ucb_intervals


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_ucb_intervals_draw_one_bar_per_arm_and_step_of_the_right_length():
    steps, pulls = [10, 100], [[5, 3, 2], [70, 20, 10]]
    wins = [[4, 1, 0], [49, 10, 3]]
    fig = ucb_intervals(steps, pulls, wins, [0.7, 0.5, 0.3])
    ax = fig.axes[0]
    bars = [c for c in ax.containers if c.get_label().startswith("arm")]
    assert len(bars) == 3
    arm2 = bars[1]
    points = arm2.lines[0].get_ydata()
    assert np.allclose(points, [1 / 3, 0.5])
    segments = arm2.lines[2][0].get_segments()  # the vertical bars, one per step
    top = [max(seg[:, 1]) for seg in segments]
    assert top == pytest.approx(
        [1 / 3 + math.sqrt(2 * math.log(10) / 3), 0.5 + math.sqrt(2 * math.log(100) / 20)]
    )
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[1] == "N = 100\nn = 70, 20, 10"


def test_four_phases_mark_the_path_the_new_node_the_playout_and_the_backup():
    fig = four_phases()
    assert [ax.get_gid() for ax in fig.axes] == [
        "phase-selection",
        "phase-expansion",
        "phase-simulation",
        "phase-backpropagation",
    ]
    gids = [{a.get_gid() for a in ax.get_children()} for ax in fig.axes]
    assert "new-node" not in gids[0] and all("new-node" in g for g in gids[1:])
    assert "playout" in gids[2] and "backup" in gids[3]
    texts = {t.get_text() for t in fig.axes[3].texts}
    # after a win for the root's mover: N + 1 on the whole path, W + 1 where that player moved
    assert {"3/6", "3/4", "1/2", "1/1"} <= texts
    assert {"3/5", "2/3", "1/1", "0/0"} <= {t.get_text() for t in fig.axes[1].texts}


def test_the_drawn_tree_is_one_uct_could_have_grown_and_selection_follows_ucb1():
    """The counts add up (a node's visits: its children's plus its own first one; the root is
    expanded at once), the rewards of the two players add up along each edge, and UCB1 with
    c = sqrt 2 picks the highlighted path."""
    from mcts_course.agents.bandits import ucb1
    from mcts_course.diagrams import _COUNTS, _EDGES, _MOVES, _PATH

    children = {}
    for parent, child in _EDGES:
        children.setdefault(parent, []).append(child)
    for parent, kids in children.items():
        own = 0 if parent == "r" else 1
        assert _COUNTS[parent][1] == own + sum(_COUNTS[k][1] for k in kids)
    for node, kids in children.items():
        # the rewards of the player who moved into node: what the opponent did not win below
        # it, plus the node's own first playout (none for the root)
        below = sum(_COUNTS[k][1] - _COUNTS[k][0] for k in kids)
        own = _COUNTS[node][0] - below
        assert own == 0 if node == "r" else own in (0, 0.5, 1)
    # with m = 1 a node other than the root gets a child on each visit after its first, until
    # every move has one: the tree has exactly the children its visits give it
    for node, (_, n) in _COUNTS.items():
        grown = min(n, _MOVES) if node == "r" else min(n - 1, _MOVES)
        assert len(children.get(node, [])) == grown, node
    # selection stops at the path's last node, which still has a move without a child
    assert all(len(children[v]) == _MOVES for v in _PATH[:-1])
    assert len(children.get(_PATH[-1], [])) < _MOVES
    for parent, nxt in zip(_PATH, _PATH[1:], strict=False):
        n = _COUNTS[parent][1]
        best = max(children[parent], key=lambda k: ucb1(*_COUNTS[k], n))
        assert best == nxt
