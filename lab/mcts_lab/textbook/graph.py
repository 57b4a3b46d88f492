"""MCTS on a graph (Algorithm 13.3 of the book, after Childs et al. 2008), as a textbook prints it.

UCT of :mod:`mcts_lab.textbook.uct` with a table from positions to nodes: expansion links the
node already made for a position reached by another move order, every node on the path counts
the result as in UCT, and every edge counts how often its parent chose it.  Selection adds the
edge's exploration bonus to the shared node's mean.  Plain Python over the game protocol, on the
exercises' :class:`mcts_course.given.Node`; its properties are checked against
:class:`~mcts_course.agents.TranspositionMCTSAgent` in ``tests/lab/test_textbook_graph.py``.
"""

from __future__ import annotations

import math
from random import Random
from typing import Any

from mcts_course.games.base import GameState
from mcts_course.given import Node
from mcts_lab.textbook.bandit import SQRT2, playout
from mcts_lab.textbook.uct import backup, most_visited

Edges = dict[tuple[Node, Node], int]  # (parent, child) -> how often the parent chose the child
Table = dict[GameState, Node]  # a position -> its one node


def graph_search(
    state: GameState, budget: int, rng: Random, c: float = SQRT2
) -> tuple[int, Table, Edges]:
    """The most visited move after ``budget`` iterations, the table and the edge counts."""
    root = Node(state)
    table: Table = {state: root}
    edges: Edges = {}
    for _ in range(budget):
        path = [root]
        while path[-1].children and not path[-1].untried:  # selection, by the edges' counts
            v = path[-1]
            path.append(v.children[max(v.children, key=lambda a: (score(v, a, edges, c), -a))])
        v = path[-1]
        if (v is root or v.visits > 0) and v.untried:  # expansion, threshold 1
            if not v.children:
                rng.shuffle(v.untried)
            a = v.untried.pop()
            s = v.state.play(a)
            v.children[a] = table.setdefault(s, Node(s, v, a))  # a transposition: the node there
            path.append(v.children[a])
        backup(path, playout(path[-1].state, 0, rng))  # every node counts the result
        for edge in zip(path[:-1], path[1:], strict=True):  # and every edge
            edges[edge] = edges.get(edge, 0) + 1
    return most_visited(root), table, edges


def score(v: Node, a: int, edges: Edges, c: float) -> float:
    """The shared child's mean, over every path, plus the bonus of this edge (line 11)."""
    u = v.children[a]
    return u.wins / u.visits + c * math.sqrt(math.log(v.visits) / edges[v, u])


def graph_picture(budget: int = 3000, seed: int = 0) -> Any:
    """A transposition, drawn: after ``budget`` iterations of :func:`graph_search` from the
    empty tic-tac-toe board, the two move orders X a1, O b2, X c3 and X c3, O b2, X a1 lead to
    one node.  Each board is titled with its node's visits N; each arrow with its edge's count
    n, so the shared node's N is the sum of the counts on its two incoming arrows."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import ConnectionPatch

    from mcts_course.games import TicTacToe
    from mcts_course.render import draw_board

    _, table, edges = graph_search(TicTacToe(), budget, Random(seed))
    places = {(): (0.0, 0.5), (0,): (1, 0.9), (8,): (1, 0.1), (0, 4): (2, 0.9), (8, 4): (2, 0.1)}
    places[(0, 4, 8)] = (3, 0.5)
    fig = plt.figure(figsize=(10, 5))
    axes, nodes = {}, {}
    for moves, (col, row) in places.items():
        node = table[TicTacToe.from_moves(list(moves))]
        ax = fig.add_axes((0.02 + 0.25 * col, 0.03 + 0.5 * row, 0.17, 0.36))
        draw_board(node.state, ax=ax, show_legal=False, title=f"N = {node.visits:,}")
        axes[moves], nodes[moves] = ax, node
    arrows = [((), (0,)), ((), (8,)), ((0,), (0, 4)), ((8,), (8, 4))]
    arrows += [((0, 4), (0, 4, 8)), ((8, 4), (0, 4, 8))]
    for parent, child in arrows:
        n = edges.get((nodes[parent], nodes[child]), 0)
        link = ConnectionPatch(
            (1.02, 0.5),
            (-0.02, 0.5),
            "axes fraction",
            "axes fraction",
            axesA=axes[parent],
            axesB=axes[child],
            arrowstyle="->",
        )
        fig.add_artist(link)
        a, b = axes[parent].get_position(), axes[child].get_position()
        x, y = (a.x1 + b.x0) / 2, (a.y0 + a.y1 + b.y0 + b.y1) / 4
        fig.text(
            x,
            y + 0.03,
            f"n = {n:,}",
            ha="center",
            fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    return fig
