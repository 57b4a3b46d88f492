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
