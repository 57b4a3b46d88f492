"""MCTS one iteration at a time: the statistics of the tree after every iteration.

The earlier course's MCTS page teaches the algorithm with tables of visits, wins and UCT values
after successive iterations, unvisited moves counting as infinitely urgent, and a leaf that gets
children only once it has been visited a threshold number of times.  :func:`trace_search` runs
the package's own :meth:`MCTSAgent.step <mcts_course.agents.mcts.MCTSAgent.step>` (the method
``search`` loops over) and records, after every iteration, the table of the tree's nodes; the
chapter shows the tables and reads them.  Nothing is re-implemented here: the numbers are those
of the package's search.

A node's ``wins`` are the rewards (win 1, draw 0.5, loss 0) of the player who made the move into
it, and its UCT value is the one its parent compares:
:func:`~mcts_course.agents.bandits.ucb1` of its wins and visits and of its parent's visits.  A
legal move that has no node yet counts as unvisited (UCT value infinite), as in the package's
selection, which stops at any node with untried moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mcts_course.agents.bandits import SQRT2, ucb1
from mcts_course.agents.mcts import MCTSAgent, Node
from mcts_course.agents.rollout import reward
from mcts_course.games.base import GameState


@dataclass(frozen=True)
class Row:
    """One move of the tree after an iteration.

    ``line`` is the moves from the root (``("a2",)`` for a move at the root, ``("a2", "c2")``
    one level down), ``player`` the name of the player who makes the last of them.  ``visits``
    and ``wins`` are 0 for a move that has no node yet; ``uct`` is then infinite.
    ``children`` counts the node's children and ``legal`` its legal moves (``None`` while the
    node is a leaf whose moves have not been listed yet).  ``on_path``: the iteration went
    through this node; ``new``: the iteration added it.
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
    tree's moves in depth-first order, children by action.
    """

    number: int
    path: tuple[str, ...]
    expanded: tuple[str, ...] | None
    result: str
    rewards: tuple[float, ...]
    root_visits: int
    rows: tuple[Row, ...]

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
    """The recorded iterations of one search (``iterations[0]`` is the tree before the first),
    the agent and the root (so the search can be continued) and the search's settings."""

    state: GameState
    expand_threshold: int
    c: float
    agent: MCTSAgent
    root: Node
    iterations: list[Iteration] = field(default_factory=list)

    def expansions(self) -> list[Iteration]:
        """The iterations that gave a node below the root a child (the root always expands)."""
        return [it for it in self.iterations if it.expanded is not None and len(it.expanded) > 1]

    def readout(self):
        """The root table of the tree as it is now (an :class:`~mcts_lab.algorithm.Readout`,
        most visited move first)."""
        from mcts_lab.algorithm import Readout

        return Readout(self.root, self.agent.root_table(self.root), self.c)

    def node(self, *line: str) -> Node:
        """The tree's node for the moves ``line`` from the root."""
        node = self.root
        for move in line:
            node = node.children[node.state.parse_action(move)]
        return node

    def continue_search(self, iterations: int) -> Node:
        """Run ``iterations`` more iterations on the same tree (not recorded); return the root."""
        for _ in range(iterations):
            self.agent.step(self.root)
        return self.root


def _line(node: Node, parents: dict[int, Node]) -> tuple[str, ...]:
    moves = []
    while node.action is not None:
        parent = parents[id(node)]
        moves.append(parent.state.action_to_string(node.action))
        node = parent
    return tuple(reversed(moves))


def tree_rows(
    root: Node,
    c: float = SQRT2,
    path: list[Node] = (),
    new: Node | None = None,
) -> list[Row]:
    """The moves of the tree below ``root`` in depth-first order (children by action): every
    node, and every legal move not tried yet at a node whose moves have been listed."""
    names = root.state.PLAYER_NAMES
    on_path = {id(n) for n in path}
    rows: list[Row] = []

    def walk(node: Node, line: tuple[str, ...]) -> None:
        if node.untried is None and not node.children:
            return  # a leaf: its moves are not listed yet
        mover = names[node.state.current_player]
        moves = sorted(set(node.children) | set(node.untried or ()))
        for action in moves:
            move = line + (node.state.action_to_string(action),)
            child = node.children.get(action)
            if child is None:
                rows.append(Row(move, mover, 0, 0.0, math.inf, 0, None))
                continue
            legal = (
                None
                if child.untried is None and not child.children
                else (len(child.children) + len(child.untried or ()))
            )
            rows.append(
                Row(
                    move,
                    mover,
                    child.visits,
                    child.wins,
                    ucb1(child.wins, child.visits, node.visits, c),
                    len(child.children),
                    legal,
                    id(child) in on_path,
                    child is new,
                )
            )
            walk(child, move)

    walk(root, ())
    return rows


def trace_search(
    state: GameState, iterations: int, *, expand_threshold: int = 3, c: float = SQRT2, seed: int = 0
) -> WorkedExample:
    """Run ``iterations`` iterations of the package's MCTS from ``state``, one
    :meth:`~mcts_course.agents.mcts.MCTSAgent.step` at a time, and record the tree after each."""
    agent = MCTSAgent(iterations=iterations, expand_threshold=expand_threshold, c=c, seed=seed)
    root = Node(state)
    names = state.PLAYER_NAMES
    start_rows = tuple(
        Row((state.action_to_string(a),), names[state.current_player], 0, 0.0, math.inf, 0, None)
        for a in sorted(state.legal_actions())
    )
    example = WorkedExample(
        state, expand_threshold, c, agent, root, [Iteration(0, (), None, "", (), 0, start_rows)]
    )
    for number in range(1, iterations + 1):
        step = agent.step(root)
        parents = {id(child): node for node, child in zip(step.path, step.path[1:], strict=False)}
        line = _line(step.path[-1], parents)
        expanded = None if step.expanded is None else _line(step.expanded, parents)
        r0, r1 = step.returns
        result = "draw" if r0 == r1 else names[0 if r0 > r1 else 1]
        rewards = tuple(reward(step.returns, node.player) for node in step.path)
        rows = tree_rows(root, c, step.path, step.expanded)
        example.iterations.append(
            Iteration(number, line, expanded, result, rewards, root.visits, tuple(rows))
        )
    return example


# -- presentation ------------------------------------------------------------------------------
def _number(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.3f}"


def _children(row: Row, threshold: int) -> str:
    if row.legal is None:
        return "—" if row.visits == 0 else f"leaf ({row.visits}/{threshold})"
    if row.legal == 0:
        return "game over"
    return f"{row.children} of {row.legal}"


def iteration_table(it: Iteration, threshold: int) -> str:
    """One iteration as an HTML table: caption (what the iteration did), one row per move."""
    if it.number == 0:
        caption = "before the first iteration"
    else:
        steps = " → ".join(it.path)
        new = " (new)" if it.expanded is not None else ""
        caption = f"<b>iteration {it.number}</b>: {steps}{new}; playout: {it.result}"
        if it.result != "draw":
            caption += " wins"
    left = ' style="padding:1px 6px;text-align:left"'
    right = ' style="padding:1px 6px;text-align:right"'
    head = (
        "<tr>"
        + "".join(
            f"<th{left if k < 2 else right}>{name}</th>"
            for k, name in enumerate(("move", "by", "n", "w", "w/n", "UCT", "children"))
        )
        + "</tr>"
    )
    body = []
    for row in it.rows:
        indent = "&nbsp;&nbsp;&nbsp;" * (row.depth - 1)
        move = indent + row.line[-1]
        style = ' style="font-weight:bold;background:#ffe3e6"' if row.on_path else ""
        mark = " ✚" if row.new else ""
        mean = "—" if row.mean is None else f"{row.mean:.2f}"
        cells = (
            move + mark,
            row.player,
            row.visits,
            f"{row.wins:g}",
            mean,
            _number(row.uct),
            _children(row, threshold),
        )
        body.append(
            f"<tr{style}>"
            + "".join(f"<td{left if k < 2 else right}>{cell}</td>" for k, cell in enumerate(cells))
            + "</tr>"
        )
    return (
        f'<table class="mcts-iteration" style="font-size:80%;margin:0">'
        f'<caption style="caption-side:top;text-align:left">{caption}; N = {it.root_visits}'
        f"</caption>{head}{''.join(body)}</table>"
    )


def iteration_tables(example: WorkedExample, numbers: range | list[int] | None = None):
    """The tables of the recorded iterations (all, or those in ``numbers``) side by side, as an
    IPython HTML object: the path of each iteration shaded, the node it added marked ✚."""
    from IPython.display import HTML

    chosen = example.iterations if numbers is None else [example.iterations[k] for k in numbers]
    cells = "".join(
        f'<div style="flex:0 0 auto">{iteration_table(it, example.expand_threshold)}</div>'
        for it in chosen
    )
    return HTML(f'<div style="display:flex;flex-wrap:wrap;gap:1.2em 1.6em">{cells}</div>')
