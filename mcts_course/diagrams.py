"""Pictures of the search ideas (not of a position): UCB1's intervals, the four phases of MCTS.

::

    ucb_intervals(steps, pulls, wins, means)   # each arm's mean and UCB1 interval over time
    four_phases()                              # selection, expansion, simulation, backup

Each function draws on a new figure (or given axes) and returns the figure; every artist that
stands for something carries a ``gid`` ("arm-0", "upper-0", "phase-selection", "new-node",
"playout", "backup") so tests and readers can find it.  matplotlib is imported only here, when a
picture is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mcts_course.render import _pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SQRT2 = math.sqrt(2)
ARM_COLOURS = ("#1b7837", "#2166ac", "#b2182b", "#e08214", "#762a83", "#4d4d4d")


def ucb_intervals(
    steps: Sequence[int],
    pulls: Sequence[Sequence[int]],
    wins: Sequence[Sequence[float]],
    means: Sequence[float],
    c: float = SQRT2,
    ax: Axes | None = None,
) -> Figure:
    """At each recorded step N, each arm's mean reward (dot) and UCB1 interval
    mean ± c·sqrt(ln N / n) (bar), side by side, with the arms' pulls n under the axis and its
    true mean as a dashed line.  UCB1 pulls the arm whose bar reaches highest."""
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 4.2))
    n = np.maximum(np.asarray(pulls, dtype=float), 1)
    mean = np.asarray(wins, dtype=float) / n
    total = np.asarray(steps, dtype=float)
    bonus = c * np.sqrt(np.log(np.maximum(total, 2))[:, None] / n)
    k = len(means)
    width = 0.7 / k
    for i, true_mean in enumerate(means):
        colour = ARM_COLOURS[i % len(ARM_COLOURS)]
        x = np.arange(len(total)) + (i - (k - 1) / 2) * width
        ax.errorbar(
            x,
            mean[:, i],
            yerr=bonus[:, i],
            fmt="o",
            color=colour,
            ms=4,
            capsize=3,
            lw=1.6,
            label=f"arm {i + 1} (μ = {true_mean:g})",
            gid=f"arm-{i}",
        )
        ax.hlines(true_mean, -0.5, len(total) - 0.5, colors=colour, linestyles="--", lw=0.8)
    counts = np.asarray(pulls, dtype=int)
    ticks = [
        f"N = {int(t):,}\nn = {', '.join(map(str, row))}"
        for t, row in zip(total, counts, strict=True)
    ]
    ax.set_xticks(range(len(total)), ticks, fontsize=8)
    ax.set_xlim(-0.5, len(total) - 0.5)
    ax.set_ylim(-1.0, 2.0)
    ax.set_ylabel("mean reward ± UCB1 bonus")
    ax.legend(loc="upper right", fontsize=8, ncols=k)
    figure = ax.get_figure()
    assert figure is not None
    return figure  # type: ignore[return-value]  # a SubFigure is also a Figure here


# -- the four phases --------------------------------------------------------------------------
# One small tree drawn four times: (x, y) per node, edges as (parent, child).
# Every position has two moves and the threshold is m = 1, as in the chapter's text: a node
# other than the root gets a child on each visit after its first, so every leaf has N = 1, b
# (N = 2) has one child, a (N = 3) both, and a2 (N = 1) gets its first child in this iteration.
_NODES = {
    "r": (2.0, 3.0),
    "a": (1.0, 2.0),
    "b": (3.0, 2.0),
    "a1": (0.5, 1.0),
    "a2": (1.5, 1.0),
    "b1": (3.0, 1.0),
}
_EDGES = [("r", "a"), ("r", "b"), ("a", "a1"), ("a", "a2"), ("b", "b1")]
_PATH = ["r", "a", "a2"]
_NEW = (1.9, 0.0)  # the node expansion adds below a2
_MOVES = 2  # moves per position in this small tree
_COUNTS = {  # W, N before the iteration
    "r": (3, 5),
    "a": (2, 3),
    "b": (0, 2),
    "a1": (0, 1),
    "a2": (1, 1),
    "b1": (1, 1),
}
_ON = "#d6604d"
_OFF = "#9e9e9e"


def _tree(ax: Axes, phase: int) -> None:
    path_edges = set(zip(_PATH, _PATH[1:], strict=False))
    for parent, child in _EDGES:
        on = (parent, child) in path_edges and phase in (0, 3)
        (x0, y0), (x1, y1) = _NODES[parent], _NODES[child]
        ax.plot([x0, x1], [y0, y1], color=_ON if on else _OFF, lw=3 if on else 1.2, zorder=1)
    for name, (x, y) in _NODES.items():
        on = name in _PATH and phase in (0, 3)
        w, n = _COUNTS[name]
        if phase == 3 and name in _PATH:
            w, n = w + (1 if name == "a" else 0), n + 1  # a win for the player who moved into a
        ax.add_patch(_circle(x, y, _ON if on else "white", gid=f"node-{name}"))
        ax.text(x, y, f"{w:g}/{n}", ha="center", va="center", fontsize=8, zorder=3)
    if phase >= 1:
        x, y = _NEW
        ax.plot([_NODES["a2"][0], x], [_NODES["a2"][1], y], color=_OFF, lw=1.2, zorder=1)
        label = "1/1" if phase == 3 else "0/0"
        ax.add_patch(_circle(x, y, "#fddbc7" if phase == 1 else "white", gid="new-node"))
        ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3)


def _circle(x: float, y: float, colour: str, gid: str):  # type: ignore[no-untyped-def]
    from matplotlib.patches import Circle

    return Circle((x, y), 0.32, facecolor=colour, edgecolor="#333333", lw=1.2, zorder=2, gid=gid)


def four_phases() -> Figure:
    """One MCTS iteration as four panels on the same small tree (W/N in each node, W counted for
    the player who moved into the node): the path selection takes, the node expansion adds, the
    random playout from it, and the statistics backpropagation updates along the path."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(12, 3.6))
    titles = ("1. Selection", "2. Expansion", "3. Simulation", "4. Backpropagation")
    notes = (
        "UCB1 at each node, down\nwhile every move has a child",
        "one child for an\nuntried move",
        "random moves to the end:\na win for the root's mover",
        "N + 1 along the path;\nW + 1 where that player moved",
    )
    for phase, ax in enumerate(axes):
        _tree(ax, phase)
        ax.set_gid(f"phase-{titles[phase].split()[1].lower()}")
        if phase == 2:
            x, y = _NEW
            t = np.linspace(0, 1, 60)
            ax.plot(x + 0.25 * np.sin(12 * t), y - 0.4 - 1.4 * t, color=_ON, lw=1.5, gid="playout")
            ax.text(x + 0.45, y - 1.9, "win", fontsize=9, color=_ON)
        if phase == 3:
            points = [*(_NODES[name] for name in _PATH), _NEW]
            for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
                ax.annotate(
                    "",
                    xy=(x0 + 0.25, y0 - 0.25),
                    xytext=(x1 + 0.25, y1 + 0.25),
                    arrowprops={"arrowstyle": "->", "color": _ON, "lw": 1.5},
                    gid="backup",
                )
        ax.set_title(titles[phase], fontsize=11)
        ax.text(2.0, -2.5, notes[phase], ha="center", va="top", fontsize=8.5)
        ax.set_xlim(-0.2, 4.0)
        ax.set_ylim(-3.4, 3.5)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.tight_layout()
    figure: Figure = fig
    return figure
