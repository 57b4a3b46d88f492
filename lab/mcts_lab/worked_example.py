"""MCTS one iteration at a time: the step-by-step chapter's worked examples, read from the explorer.

The chapter follows a seeded UCT search iteration by iteration, with a table of the tree after
each.  The run is the book's explorer's (:class:`mcts_course.explorer.Session`, which records
:meth:`MCTSAgent.step <mcts_course.agents.mcts.MCTSAgent.step>` calls), and the tables and the
tree are drawn by the explorer's own renderer (:mod:`mcts_course.explorer_draw`): a table in the
chapter is the table the explorer page shows for the same position, settings, seed and
iteration, and :func:`explorer_link` opens the page there.  This module only reads the records
into rows that the chapter's claims can test.

A node's ``wins`` are the rewards (win 1, draw 0.5, loss 0) of the player who made the move into
it, and its UCT value is the one its parent compares (the explorer's UCB1 value).  A legal move
that has no node yet, at the root or at a node that already has a child, counts as unvisited
(UCT value infinite), as in the package's selection, which stops at any node with untried moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from mcts_course.agents.bandits import SQRT2
from mcts_course.agents.mcts import Node
from mcts_course.explorer import Session, key_of
from mcts_course.explorer_draw import iteration_caption, table_html
from mcts_course.games import game_class
from mcts_course.games.base import GameState

EXPLORER_PAGE = "16b_explorer.html"  # the built book's explorer, beside this chapter's page
WHOLE_TREE = 99  # the explorer's "draw the whole tree" depth


@dataclass(frozen=True)
class Row:
    """One move of the tree after an iteration.

    ``line`` is the moves from the root (``("a2",)`` for a move at the root, ``("a2", "c2")``
    one level down), ``player`` the name of the player who makes the last of them.  ``visits``
    and ``wins`` are 0 for a move that has no node yet; ``uct`` is then infinite.
    ``children`` counts the node's children and ``legal`` its legal moves (``None`` while the
    node is a leaf that has not been expanded).  ``on_path``: the iteration went through this
    node; ``new``: the iteration added it.
    """

    line: tuple[str, ...]
    player: str
    visits: int
    wins: float
    uct: float
    children: int
    legal: int | None
    on_path: bool = False
    new: bool = False

    @property
    def depth(self) -> int:
        return len(self.line)

    @property
    def mean(self) -> float | None:
        return self.wins / self.visits if self.visits else None


@dataclass(frozen=True)
class Iteration:
    """What iteration ``number`` did, and the tree after it (``number`` 0: before the first).

    ``path``: the moves from the root to the node whose position was played out (the new node
    when one was added); ``expanded``: the line of the node added, or None; ``result``: who won
    the playout ("X", "O", ... or "draw"); ``rewards``: what each node on the path added to its
    wins, root first; ``root_visits``: N, the root's visits after the iteration; ``rows``: the
    tree's moves in depth-first order, children by action; ``view``: the explorer's screen.
    """

    number: int
    path: tuple[str, ...]
    expanded: tuple[str, ...] | None
    result: str
    rewards: tuple[float, ...]
    root_visits: int
    rows: tuple[Row, ...]
    view: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def row(self, *line: str) -> Row:
        """The row of the move ``line`` (e.g. ``row("a2")`` or ``row("a2", "c2")``)."""
        for row in self.rows:
            if row.line == line:
                return row
        raise KeyError(line)

    def top_level(self) -> list[Row]:
        """The rows of the root's moves."""
        return [row for row in self.rows if row.depth == 1]

    def next_choices(self) -> list[str]:
        """The root moves with the highest UCT value, where the next iteration's selection goes:
        one move, or several tied at infinity (moves not tried yet, which expansion takes in a
        random order); among finite ties the package takes the first in action order."""
        top = max(row.uct for row in self.top_level())
        tied = [row.line[0] for row in self.top_level() if row.uct == top]
        return tied if math.isinf(top) else tied[:1]


@dataclass
class WorkedExample:
    """A recorded run (``iterations[k]``: the tree after iteration k, ``iterations[0]`` before
    the first), the explorer session behind it (so the search can be continued) and the
    search's settings."""

    game: str
    moves: tuple[int, ...]
    expand_threshold: int
    c: float
    seed: int
    session: Session
    iterations: list[Iteration] = field(default_factory=list)

    @property
    def state(self) -> GameState:
        return self.session.recorder.state

    @property
    def root(self) -> Node:
        return self.session.recorder.root

    def expansions(self) -> list[Iteration]:
        """The iterations that gave a node below the root a child (the root always expands)."""
        return [it for it in self.iterations if it.expanded is not None and len(it.expanded) > 1]

    def readout(self):
        """The root table of the tree as it is now (an :class:`~mcts_lab.algorithm.Readout`,
        most visited move first)."""
        from mcts_lab.algorithm import Readout

        agent = self.session.recorder.agent
        return Readout(self.root, agent.root_table(self.root), self.c)

    def node(self, *line: str) -> Node:
        """The tree's node for the moves ``line`` from the root."""
        node = self.root
        for move in line:
            node = node.children[node.state.parse_action(move)]
        return node

    def continue_search(self, iterations: int) -> Node:
        """Run ``iterations`` more iterations on the same tree; return the root."""
        self.session.recorder.run(iterations)
        return self.root

    def tree(self, number: int | None = None):
        """The explorer's picture of the tree after iteration ``number`` (default: the last
        recorded), the iteration's path in orange and the node it added ringed in green."""
        from IPython.display import HTML

        view = self.iterations[-1 if number is None else number].view
        return HTML(f'<div style="overflow-x:auto">{view["tree_svg"]}</div>')


def _rows(session: Session, view: dict[str, Any]) -> tuple[Row, ...]:
    """The tree's moves in depth-first action order, with the untried moves of the root and of
    every node that has a child (their UCT value infinite)."""
    rec = session.recorder
    by_key = {n["node"]: n for n in view["nodes"]}
    step = view["step"] or {}
    path = set(step.get("path", [])) | {step.get("expanded")}
    rows: list[Row] = []

    def walk(key: str, line: tuple[str, ...]) -> None:
        node = rec.nodes[key]
        mover = node.state.PLAYER_NAMES[node.state.current_player]
        for action in sorted(node.state.legal_actions()):
            child_key = key_of([*([int(a) for a in key.split(".")] if key else []), action])
            move = (*line, node.state.action_to_string(action))
            child = by_key.get(child_key)
            if child is None:
                rows.append(Row(move, mover, 0, 0.0, math.inf, 0, None))
                continue
            grown = child["children"] > 0 or (
                child["terminal"] and child["visits"] > session.recorder.expand_threshold
            )
            uct = math.inf if child["ucb"] == "inf" else float(child["ucb"])
            rows.append(
                Row(
                    move,
                    mover,
                    child["visits"],
                    child["wins"],
                    uct,
                    child["children"],
                    child["legal"] if grown and not child["terminal"] else 0 if grown else None,
                    child_key in path,
                    child_key == step.get("expanded"),
                )
            )
            if child["children"]:
                walk(child_key, move)

    walk("", ())
    return tuple(rows)


def _iteration(session: Session, number: int) -> Iteration:
    rec = session.recorder
    view = session.view(number, 4, [], WHOLE_TREE, "")
    rows = _rows(session, view)
    if number == 0:
        return Iteration(0, (), None, "", (), 0, rows, view)
    it = rec.iterations[number - 1]
    r0, r1 = it.returns
    names = rec.state.PLAYER_NAMES
    result = "draw" if r0 == r1 else names[0 if r0 > r1 else 1]
    expanded = None if it.expanded is None else tuple(rec.line(it.expanded))
    line = tuple(rec.line(it.path[-1]))
    return Iteration(number, line, expanded, result, it.rewards, number, rows, view)


def trace_search(
    game: str,
    moves: str,
    iterations: int,
    *,
    expand_threshold: int = 3,
    c: float = SQRT2,
    seed: int = 0,
) -> WorkedExample:
    """Run ``iterations`` iterations of the package's MCTS (the explorer's recorded run) from the
    position ``moves`` (names, e.g. ``"b2 a1 c3 a3"``) of ``game``, and keep the tree after
    each."""
    state, actions = game_class(game)(), []
    for word in moves.split():
        actions.append(state.parse_action(word))
        state = state.play(actions[-1])
    session = Session(game, actions, c, expand_threshold, seed, None)
    session.recorder.run(iterations)
    example = WorkedExample(game, tuple(actions), expand_threshold, c, seed, session)
    example.iterations = [_iteration(session, k) for k in range(iterations + 1)]
    return example


# -- presentation: the explorer's own tables ------------------------------------------------------
def iteration_tables(example: WorkedExample, numbers: range | list[int] | None = None):
    """The explorer's tables of the recorded iterations (all, or those in ``numbers``) side by
    side, as an IPython HTML object: the whole tree after each, the path shaded, the node added
    marked ✚, the UCB value as mean + exploration."""
    from IPython.display import HTML

    chosen = example.iterations if numbers is None else [example.iterations[k] for k in numbers]
    cells = "".join(
        '<div style="flex:0 0 auto;font-size:80%">'
        + table_html(it.view, nested=True, caption=iteration_caption(it.view))
        + "</div>"
        for it in chosen
    )
    return HTML(f'<div style="display:flex;flex-wrap:wrap;gap:1.2em 1.6em">{cells}</div>')


def explorer_link(example: WorkedExample, iteration: int, text: str, depth: int = 2) -> str:
    """An HTML link that opens the book's explorer on this run at ``iteration`` (the page's
    reproducing link: game, position, settings, seed, iteration, the tree drawn ``depth``
    levels)."""
    hash_ = (
        f"game={example.game}&moves={'.'.join(map(str, example.moves))}&c={example.c:.4f}"
        f"&t={example.expand_threshold}&playout=&seed={example.seed}&it={iteration}&phase=4"
        f"&depth={depth}&sel=&open="
    )
    return f'<a href="{EXPLORER_PAGE}#{hash_}">{text}</a>'
