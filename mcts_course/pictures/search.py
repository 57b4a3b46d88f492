"""Pictures of game-tree search: alpha-beta's window at each node, and a tree against its graph.

::

    draw_alphabeta_trace(ExplicitTree.from_nested(RUSSELL_NORVIG))   # (alpha, beta) at each node
    draw_transpositions(TicTacToe.from_moves("b2 a1 c3 c1 a3"), plies=3)   # tree beside graph

:func:`alphabeta_windows` runs alpha-beta on a drawn tree (from MAX's side, in the children's
given order) and records the window each node was entered with, the value it returned and where
a cut-off stopped a loop; it visits exactly the nodes of :func:`mcts_course.trees.search_trace`
(a test checks it).  Artists carry a ``gid`` (``"window"``, ``"cut"``, ``"node"``,
``"shared-node"``, ``"edge"``) so tests can count what was drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcts_course.games.base import GameState
from mcts_course.trees import ExplicitTree, _layout, _new_axes, draw_game_tree, search_trace

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Path = tuple[int, ...]


@dataclass
class WindowTrace:
    """What alpha-beta did at each visited node: ``windows[path]`` the (alpha, beta) it was
    entered with, ``values[path]`` what it returned, ``cuts`` the nodes whose loop a cut-off
    stopped (their remaining children were never searched)."""

    value: float
    windows: dict[Path, tuple[float, float]] = field(default_factory=dict)
    values: dict[Path, float] = field(default_factory=dict)
    cuts: list[Path] = field(default_factory=list)


def alphabeta_windows(tree: ExplicitTree) -> WindowTrace:
    """Alpha-beta on ``tree`` (MAX at the root), recording every node's window."""
    trace = WindowTrace(0.0)

    def visit(node: ExplicitTree, alpha: float, beta: float) -> float:
        trace.windows[node.path] = (alpha, beta)
        if node.is_terminal():
            v = node.value()
        else:
            maximizing = node.current_player == 0
            v = -math.inf if maximizing else math.inf
            kids = len(node._branches())
            for i in range(kids):
                w = visit(node.play(i), alpha, beta)
                v = max(v, w) if maximizing else min(v, w)
                if (v >= beta) if maximizing else (v <= alpha):
                    if i < kids - 1:
                        trace.cuts.append(node.path)
                    break
                alpha, beta = (max(alpha, v), beta) if maximizing else (alpha, min(beta, v))
        trace.values[node.path] = v
        return v

    trace.value = visit(ExplicitTree(tree.nested), -math.inf, math.inf)
    return trace


def _bound(x: float) -> str:
    return "−∞" if x == -math.inf else "+∞" if x == math.inf else f"{x:g}"


def draw_alphabeta_trace(
    tree: ExplicitTree, ax: Axes | None = None, title: str | None = None
) -> Axes:
    """The tree as :func:`~mcts_course.trees.draw_game_tree` draws it after alpha-beta (pruned
    nodes grey and dashed), with the window [alpha, beta] each inner node was entered with
    written beside it and a red bar under every node where a cut-off stopped the search."""
    trace = alphabeta_windows(tree)
    ax = draw_game_tree(tree, search_trace(tree), ax=ax, title=title)
    paths = tree.paths()
    children: dict[Path, list[Path]] = {}
    for p in paths[1:]:
        children.setdefault(p[:-1], []).append(p)
    pos = _layout(children, ())
    for path, (alpha, beta) in trace.windows.items():
        if path not in children:
            continue  # a leaf: its value is its label
        x, y = pos[path]
        ax.text(
            x + 0.45,
            y + 0.12,
            f"[{_bound(alpha)}, {_bound(beta)}]",
            ha="left",
            va="center",
            fontsize=7.5,
            color="#1f5fa8",
            zorder=3,
            gid="window",
        )
    for path in trace.cuts:
        x, y = pos[path]
        ax.plot(
            [x - 0.3, x + 0.3],
            [y - 0.5, y - 0.5],
            color="#c0392b",
            linewidth=2.5,
            zorder=3,
            gid="cut",
        )
    return ax


# -- a tree of move sequences against the graph of positions -------------------------------
@dataclass
class Transpositions:
    """The first ``plies`` plies below a position: ``paths`` every move sequence (the tree's
    nodes), ``layers[d]`` the distinct positions after d plies (the graph's nodes), ``edges``
    the graph's (parent, child) pairs."""

    paths: list[Path]
    states: dict[Path, GameState]
    layers: list[list[GameState]]
    edges: set[tuple[GameState, GameState]]

    def reached(self, state: GameState) -> int:
        """By how many move sequences ``state`` is reached."""
        return sum(1 for s in self.states.values() if s == state)


def transpositions(state: GameState, plies: int) -> Transpositions:
    """Every move sequence of at most ``plies`` plies from ``state``, and the positions they
    reach (two orders of the same moves that reach one position are one node of the graph)."""
    paths: list[Path] = []
    states: dict[Path, GameState] = {}
    layers: list[list[GameState]] = [[] for _ in range(plies + 1)]
    edges: set[tuple[GameState, GameState]] = set()

    def walk(s: GameState, path: Path) -> None:
        paths.append(path)
        states[path] = s
        if s not in layers[len(path)]:
            layers[len(path)].append(s)
        if len(path) < plies and not s.is_terminal():
            for a in s.legal_actions():
                child = s.play(a)
                edges.add((s, child))
                walk(child, (*path, a))

    walk(state, ())
    return Transpositions(paths, states, layers, edges)


def draw_transpositions(state: GameState, plies: int, axes: Any = None) -> tuple[Axes, Axes]:
    """Left: the search tree of every move sequence of ``plies`` plies; right: the graph of the
    positions they reach.  A position reached by more than one sequence is orange in both."""
    found = transpositions(state, plies)
    children: dict[Path, list[Path]] = {}
    for p in found.paths[1:]:
        children.setdefault(p[:-1], []).append(p)
    pos = _layout(children, ())
    width = max(x for x, _ in pos.values()) + 1
    if axes is None:
        from mcts_course.trees import _pyplot

        _, axes = _pyplot().subplots(1, 2, figsize=(12, 1.2 * (plies + 1)))
    left, right = (_new_axes(ax, 1, 1) for ax in axes)
    shared = {s for s in found.states.values() if found.reached(s) > 1}
    for p, kids in children.items():
        for k in kids:
            left.plot(
                *zip(pos[p], pos[k], strict=True),
                color="#888888",
                linewidth=0.7,
                zorder=1,
                gid="edge",
            )
    for p in found.paths:
        _node(left, pos[p], found.states[p] in shared)
    spots: dict[GameState, tuple[float, float]] = {}
    for depth, layer in enumerate(found.layers):
        first_x = {s: min(pos[p][0] for p in found.paths if found.states[p] == s) for s in layer}
        ordered = sorted(layer, key=first_x.__getitem__)
        step = width / (len(ordered) + 1) if ordered else 1
        for i, s in enumerate(ordered):
            spots[s] = (step * (i + 1) - 0.5, -depth)
    for a, b in found.edges:
        right.plot(
            *zip(spots[a], spots[b], strict=True),
            color="#888888",
            linewidth=0.7,
            zorder=1,
            gid="edge",
        )
    for s, xy in spots.items():
        _node(right, xy, s in shared)
    n_tree, n_graph = len(found.paths), len(spots)
    left.set_title(f"tree of move sequences: {n_tree} nodes", fontsize=10)
    right.set_title(
        f"graph of positions: {n_graph} nodes ({len(shared)} reached twice or more)", fontsize=10
    )
    for ax in (left, right):
        ax.set_xlim(-1, width)
        ax.set_ylim(-plies - 0.5, 0.5)
    return left, right


def _node(ax: Axes, xy: tuple[float, float], shared: bool) -> None:
    # a marker, not a patch: round whatever the axes' aspect
    ax.plot(
        *xy,
        marker="o",
        markersize=7,
        markerfacecolor="#f39c12" if shared else "#ffffff",
        markeredgecolor="#333333",
        linestyle="none",
        zorder=2,
        gid="shared-node" if shared else "node",
    )
