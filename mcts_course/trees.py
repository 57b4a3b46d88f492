"""Trees you can see: game trees searched by minimax and alpha-beta, and MCTS search trees.

::

    tree = ExplicitTree.from_nested(RUSSELL_NORVIG)      # the textbook's two-ply tree
    trace = search_trace(tree, alpha_beta=True)           # the package's alphabeta_value, traced
    draw_game_tree(tree, trace)                           # values, pruned branches dashed

    draw_search_tree(agent.last_root, highlight=step.path)   # an MCTS tree, wins/visits labels
    depth_profile(root), principal_variation(root)           # its shape and the line it believes

The searches are the package's own (:func:`~mcts_course.agents.minimax.alphabeta_value`,
:func:`~mcts_course.agents.minimax.minimax_value`): an :class:`ExplicitTree` is a tiny "game"
whose moves are the branches of a given tree, so the same code that plays Othello searches it,
and a trace records which nodes it looked at.

Every drawn artist that stands for something carries a ``gid`` (``"node"``, ``"pruned-node"``,
``"edge"``, ``"pruned-edge"``, ``"path-edge"``, ``"label"``) so tests can count what was drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from mcts_course.agents.minimax import SearchStats, alphabeta_value, minimax_value

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.axes import Axes

    from mcts_course.agents.mcts import Node

# Russell and Norvig's two-ply example (Figure 5.2 of the 3rd and 4th editions): MAX moves at
# the root, MIN at B, C and D; the leaves are MAX's payoffs.
RUSSELL_NORVIG: list[list[int]] = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]

Nested = float | Sequence["Nested"]


@dataclass(frozen=True)
class ExplicitTree:
    """A node of a given game tree, usable as a game state by the package's searches.

    ``path`` is the sequence of branch indices from the root.  MAX (player 0) moves at even
    depths, MIN (player 1) at odd ones; a leaf's ``value`` is MAX's payoff.
    """

    nested: Any = field(repr=False, compare=False)
    path: tuple[int, ...] = ()
    log: list[tuple[int, ...]] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_nested(cls, nested: Nested) -> ExplicitTree:
        """The root of the tree given as nested lists whose innermost items are leaf values."""
        return cls(nested)

    @property
    def subtree(self) -> Nested:
        node: Nested = self.nested
        for i in self.path:
            node = cast("Sequence[Nested]", node)[i]  # a path runs through inner nodes only
        return node

    def _branches(self) -> Sequence[Nested]:
        """The children of an inner node (the caller knows it is not a leaf)."""
        return cast("Sequence[Nested]", self.subtree)

    @property
    def current_player(self) -> int:
        return len(self.path) % 2

    def is_terminal(self) -> bool:
        return not isinstance(self.subtree, Sequence)

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        self.log.append(self.path)  # a search asks for the moves of every inner node it visits
        return list(range(len(self._branches())))

    def play(self, action: int) -> ExplicitTree:
        return ExplicitTree(self.nested, (*self.path, action), self.log)

    def value(self) -> float:
        """A leaf's payoff for MAX."""
        return float(cast(float, self.subtree))

    def paths(self) -> list[tuple[int, ...]]:
        """Every node's path, in depth-first order (the root first)."""
        out: list[tuple[int, ...]] = []

        def walk(node: Nested, path: tuple[int, ...]) -> None:
            out.append(path)
            if isinstance(node, Sequence):
                for i, child in enumerate(node):
                    walk(child, (*path, i))

        walk(self.nested, ())
        return out


@dataclass
class SearchTrace:
    """What a search of an :class:`ExplicitTree` did: its value, the nodes it visited (by path)
    and the value it computed for each visited node."""

    value: float
    visited: set[tuple[int, ...]]
    values: dict[tuple[int, ...], float]
    nodes: int

    def pruned(self, tree: ExplicitTree) -> list[tuple[int, ...]]:
        """The nodes of ``tree`` that the search never looked at."""
        return [p for p in tree.paths() if p not in self.visited]


def search_trace(tree: ExplicitTree, alpha_beta: bool = True) -> SearchTrace:
    """Search ``tree`` with the package's alpha-beta (in the children's given order) or minimax,
    and record which nodes were visited and the value found for each (for MAX)."""
    tree.log.clear()
    leaves: list[tuple[int, ...]] = []

    def payoff(state: ExplicitTree, player: int) -> float:
        leaves.append(state.path)
        return state.value() if player == 0 else -state.value()

    stats = SearchStats()
    if alpha_beta:
        value = alphabeta_value(tree, 99, payoff, 0, stats=stats, order=False)  # type: ignore[arg-type]  # ExplicitTree: a duck-typed GameState
    else:
        value = minimax_value(tree, 99, payoff, 0, stats=stats)  # type: ignore[arg-type]  # ExplicitTree: a duck-typed GameState
    visited = set(tree.log) | set(leaves)
    values = _values(tree, visited)
    return SearchTrace(value, visited, values, stats.nodes)


def _values(tree: ExplicitTree, visited: set[tuple[int, ...]]) -> dict[tuple[int, ...], float]:
    """The minimax value of every visited node over its visited children: what the search
    knew about it (a bound, at a node whose other children were pruned)."""
    values: dict[tuple[int, ...], float] = {}

    def walk(state: ExplicitTree) -> float:
        if state.is_terminal():
            values[state.path] = state.value()
            return values[state.path]
        n = len(state._branches())
        kids = [walk(state.play(i)) for i in range(n) if (*state.path, i) in visited]
        values[state.path] = max(kids) if state.current_player == 0 else min(kids)
        return values[state.path]

    walk(ExplicitTree(tree.nested))
    return values


# -- layout ----------------------------------------------------------------------------------
def _layout(children: dict[Any, list[Any]], root: Any) -> dict[Any, tuple[float, float]]:
    """x, y of every node: leaves evenly spaced left to right, a parent above its children's
    middle, depth downwards."""
    pos: dict[Any, tuple[float, float]] = {}
    next_x = [0.0]

    def place(node: Any, depth: int) -> float:
        kids = children.get(node, [])
        if not kids:
            x = next_x[0]
            next_x[0] += 1.0
        else:
            xs = [place(kid, depth + 1) for kid in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[node] = (x, -depth)
        return x

    place(root, 0)
    return pos


def _pyplot() -> ModuleType:
    from mcts_course.render import _pyplot as pyplot

    return pyplot()


def _new_axes(ax: Axes | None, width: float, height: float) -> Axes:
    if ax is None:
        _, ax = _pyplot().subplots(figsize=(width, height))
    ax.set_axis_off()
    return ax


def _caption(ax: Axes, x: float, y: float, text: str, va: str, colour: str, gid: str) -> None:
    """A small centred note above or below a node (its move, or "pruned")."""
    ax.text(x, y, text, ha="center", va=va, fontsize=7, color=colour, zorder=3, gid=gid)


def _triangle(ax: Axes, x: float, y: float, up: bool, size: float, **style: Any) -> None:
    from matplotlib.patches import RegularPolygon

    orientation = 0.0 if up else 3.141592653589793
    ax.add_patch(RegularPolygon((x, y), 3, radius=size, orientation=orientation, **style))


def draw_game_tree(
    tree: ExplicitTree,
    trace: SearchTrace | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """The tree with MAX nodes as upward and MIN nodes as downward triangles, each visited node
    labelled with its value; with a ``trace``, nodes and edges the search never visited are grey
    and dashed (pruned), and a node some of whose children were pruned is labelled with the bound
    the search proved ("≤2" at a MIN node, "≥" at a MAX node)."""
    paths = tree.paths()
    children: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for p in paths[1:]:
        children.setdefault(p[:-1], []).append(p)
    pos = _layout(children, ())
    width = max(x for x, _ in pos.values()) + 1
    depth = -min(y for _, y in pos.values())
    ax = _new_axes(ax, max(4.0, 0.6 * width), 1.3 * (depth + 1))
    visited = set(paths) if trace is None else trace.visited
    values = trace.values if trace is not None else _values(tree, set(paths))
    for parent, kids in children.items():
        for kid in kids:
            seen = kid in visited
            (x0, y0), (x1, y1) = pos[parent], pos[kid]
            ax.plot(
                [x0, x1],
                [y0, y1],
                color="#444444" if seen else "#bbbbbb",
                linestyle="-" if seen else "--",
                linewidth=1.2,
                zorder=1,
                gid="edge" if seen else "pruned-edge",
            )
    for path in paths:
        x, y = pos[path]
        seen = path in visited
        node = ExplicitTree(tree.nested, path)
        style: dict[str, Any] = {
            "facecolor": "#ffffff" if seen else "#eeeeee",
            "edgecolor": "#222222" if seen else "#bbbbbb",
            "linestyle": "-" if seen else "--",
            "zorder": 2,
            "gid": "node" if seen else "pruned-node",
        }
        if node.is_terminal():
            from matplotlib.patches import Rectangle

            ax.add_patch(Rectangle((x - 0.25, y - 0.2), 0.5, 0.4, **style))
        else:
            _triangle(ax, x, y, up=node.current_player == 0, size=0.4, **style)
        if path in values:
            # a node whose children were cut holds a bound, not a value: <= at MIN, >= at MAX
            cut = trace is not None and any(kid not in visited for kid in children.get(path, []))
            bound = ("≥" if node.current_player == 0 else "≤") if seen and cut else ""
            ax.text(
                x,
                y,
                f"{bound}{values[path]:g}",
                ha="center",
                va="center",
                fontsize=9,
                color="#222222" if seen else "#999999",
                zorder=3,
                gid="label",
            )
        if not seen:
            _caption(ax, x, y - 0.38, "pruned", "top", "#999999", "pruned-label")
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth - 0.8, 0.6)
    ax.set_aspect("equal")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


# -- MCTS trees --------------------------------------------------------------------------------
def tree_nodes(root: Node, max_depth: int | None = None) -> list[Node]:
    """The nodes of a search tree in depth-first order, children by action, down to
    ``max_depth`` (the root has depth 0)."""
    out: list[Node] = []

    def walk(node: Node, depth: int) -> None:
        out.append(node)
        if max_depth is None or depth < max_depth:
            for action in sorted(node.children):
                walk(node.children[action], depth + 1)

    walk(root, 0)
    return out


def depth_profile(root: Node) -> list[int]:
    """How many nodes the tree has at each depth (index 0: the root)."""
    counts: list[int] = []
    frontier = [root]
    while frontier:
        counts.append(len(frontier))
        frontier = [child for node in frontier for child in node.children.values()]
    return counts


def principal_variation(root: Node) -> list[Node]:
    """The line the tree believes in: from the root, the most visited child (ties: the smallest
    action) again and again, while it has children."""
    line = []
    node = root
    while node.children:
        node = max(sorted(node.children.items()), key=lambda item: item[1].visits)[1]
        line.append(node)
    return line


def draw_search_tree(
    root: Node,
    highlight: Sequence[Node] = (),
    new: Node | None = None,
    max_depth: int | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    label: str = "wins/visits",
) -> Axes:
    """An MCTS tree: every node labelled ``wins/visits`` (the wins of the player who moved into
    it) with the move that led to it above; the nodes of ``highlight`` (an iteration's path)
    drawn in colour and the ``new`` node (just expanded) outlined.  ``label="visits"`` prints
    only visit counts (for big trees)."""
    nodes = tree_nodes(root, max_depth)
    keep = {id(n) for n in nodes}
    children = {
        id(n): [id(n.children[a]) for a in sorted(n.children) if id(n.children[a]) in keep]
        for n in nodes
    }
    pos = _layout(children, id(root))
    width = max(x for x, _ in pos.values()) + 1
    depth = -min(y for _, y in pos.values())
    ax = _new_axes(ax, max(4.0, 0.75 * width), 1.2 * (depth + 1))
    on_path = {id(n) for n in highlight}
    for node in nodes:
        for kid in children[id(node)]:
            hot = id(node) in on_path and kid in on_path
            (x0, y0), (x1, y1) = pos[id(node)], pos[kid]
            ax.plot(
                [x0, x1],
                [y0, y1],
                color="#d1495b" if hot else "#888888",
                linewidth=2.4 if hot else 1.0,
                zorder=1,
                gid="path-edge" if hot else "edge",
            )
    for node in nodes:
        x, y = pos[id(node)]
        hot = id(node) in on_path
        is_new = new is not None and node is new
        ax.text(
            x,
            y,
            _node_label(node, label),
            ha="center",
            va="center",
            fontsize=8,
            zorder=3,
            gid="label",
            bbox={
                "boxstyle": "round,pad=0.25",
                "facecolor": "#ffe3e6" if hot else "#ffffff",
                "edgecolor": "#2a9d8f" if is_new else ("#d1495b" if hot else "#555555"),
                "linewidth": 2.2 if is_new else 1.0,
            },
        )
        if node.action is not None:
            move = node.state.action_to_string(node.action)
            _caption(ax, x, y + 0.36, move, "bottom", "#555555", "move")
    ax.set_xlim(-0.8, width - 0.2)
    ax.set_ylim(-depth - 0.6, 0.8)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _node_label(node: Node, label: str) -> str:
    if label == "visits":
        return f"{node.visits}"
    return f"{node.wins:g}/{node.visits}"
