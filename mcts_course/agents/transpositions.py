"""MCTS on a graph: one node per position, shared by every path that reaches it.

In a tree, the position after Connect Four's columns 3 then 4 then 5 and the one after 5, 4, 3
are two different nodes, each learning the value of the same position from its own playouts.  A
*transposition table* keyed by the position (states are hashable and equal exactly when board and
mover are, see :mod:`mcts_course.games.base`) lets expansion link the node that already exists,
so the search becomes a directed acyclic graph and every playout through a position informs all
the paths to it (Childs, Brodeur and Kocsis, 2008).  None of the three games can repeat a
position (discs are only added), so the graph has no cycles.

A node's ``visits`` and ``wins`` now count every iteration through the position, by any path.
Which numbers should selection use?  Childs et al. compare several answers, which differ in
what they take from the shared node and what from the edge; we take a simple one: the *value*
of a move is the mean of the shared child node (all the playouts through that position), while
the *exploration* term counts how often this edge, this move from this parent, was taken::

    score(a) = child.mean + c * sqrt(ln N / n(s, a))

with ``N`` the parent's visits and ``n(s, a)`` the edge's.  The shared mean is the point of the
table (more samples for the same value); the edge count keeps UCB1's bookkeeping honest at each
parent: a move that this parent has rarely tried still gets its exploration bonus, even if the
position behind it was visited often through other parents.

What changes in UCT is three small hooks of the MCTS skeleton: ``make_child`` (look the
position up before making a node), ``backpropagate`` (count the edges as well as the nodes) and
``score`` (the rule above).  Playouts and the final
choice (the most visited move) are UCT's.  ``nodes`` gives the size of the graph after a search
and ``shared`` how many expansions found their position already in the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mcts_course.agents.mcts import MCTSAgent, Move, Node
from mcts_course.agents.rollout import Estimate
from mcts_course.games.base import GameState


class TranspositionMCTSAgent(MCTSAgent):
    """UCT on a graph of positions (a transposition table); takes the keywords of
    :class:`~mcts_course.agents.mcts.MCTSAgent` except ``policy`` and ``tree_reuse``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("tree_reuse"):
            raise ValueError(
                "tree_reuse is not supported with transpositions (the table is "
                "built afresh for each search)"
            )
        super().__init__(*args, **kwargs)
        self.name = self.name.replace("MCTS(", "MCTS-TT(", 1)
        self.table: dict[GameState, Node] = {}  # position -> its one node
        self.edge_visits: dict[tuple[Node, Node], int] = {}  # (parent, child) -> n(s, a)
        self.shared = 0  # expansions that found their position already in the table

    @property
    def nodes(self) -> int:
        """How many nodes the last search's graph has (one per position, the root included)."""
        return len(self.table) + 1

    def forget_tree(self) -> None:
        """A fresh table for every search (and at reset).  The root is not in the table: no
        game here can come back to a position, so no path can reach the root again."""
        self.table, self.edge_visits, self.shared = {}, {}, 0

    # -- the hooks that change ----------------------------------------------------------------
    def make_child(self, node: Node, action: int) -> Node:
        """The position's node if the table has one (a transposition), else a new node,
        entered in the table."""
        state = node.state.play(action)
        child = self.table.get(state)
        if child is None:
            child = self.table[state] = Node(state, action, node.state.current_player)
        else:
            self.shared += 1
        return child

    def backpropagate(
        self, path: list[Node], returns: Estimate, moves: Sequence[Move] = ()
    ) -> None:
        """Every node on the path counts the result (as in UCT), and so does every edge."""
        super().backpropagate(path, returns, moves)
        for parent, child in zip(path[:-1], path[1:], strict=True):
            edge = (parent, child)
            self.edge_visits[edge] = self.edge_visits.get(edge, 0) + 1

    def score(self, parent: Node, child: Node) -> float:
        """The shared child's mean plus the exploration bonus of the edge."""
        explore = self.c * math.sqrt(math.log(parent.visits) / self.edge_visits[parent, child])
        return child.mean + explore
