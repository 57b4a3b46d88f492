"""What real MCTS programs add: RAVE and transpositions, measured one change at a time.

The AMAF table, the node counts of alpha-beta with a transposition table and the graph search's
savings compare searches of the same positions to the same depth or with the same iterations
(RAVE's tuned scan is in :mod:`mcts_lab.rave_scan`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mcts_course.agents.mcts import MCTSAgent
from mcts_course.agents.minimax import AlphaBetaAgent
from mcts_course.agents.rave import RAVEAgent
from mcts_course.agents.transpositions import TranspositionMCTSAgent
from mcts_course.games import GameState
from mcts_course.games.base import random_position
from mcts_course.stats import paired_interval, sign_flip_p_value, wilson_interval
from mcts_lab.present import Table, game_title, span


def random_positions(game: type[GameState], plies: int, count: int, seed: int) -> list[GameState]:
    """``count`` distinct unfinished positions after ``plies`` uniformly random moves."""
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        state = random_position(game, plies, rng)
        if state is not None and state not in found:
            found.append(state)
    return found


# -- AMAF: how well does "played later" stand for "played now"? ----------------------------------
@dataclass
class AmafAgreement:
    """At the roots of plain UCT searches that also collected AMAF statistics (RAVE with K = 0:
    collected, never used): how often the move with the best AMAF mean is the move UCT
    chose, and the mean gap between a move's AMAF mean and its own mean."""

    game: str
    positions: int
    iterations: int
    same_best: int
    mean_gap: float
    amaf_per_visit: float  # AMAF samples per visit, averaged over the root's children

    @property
    def same_interval(self) -> tuple[float, float]:
        """95% Wilson interval of the share of positions where AMAF's best is UCT's move."""
        return wilson_interval(self.same_best / self.positions, self.positions)


def amaf_agreement(positions: list[GameState], iterations: int, seed: int = 0) -> AmafAgreement:
    """Compare each root move's AMAF mean with its own mean after a UCT search."""
    same, gaps, ratios = 0, [], []
    for k, state in enumerate(positions):
        agent = RAVEAgent(iterations, rave=0, seed=seed + k)
        root = agent.search(state)
        children = list(root.children.values())
        amaf = {ch: agent.amaf(ch) for ch in children}
        chosen = max(children, key=lambda ch: (ch.visits, -ch.action))
        best_amaf = max(children, key=lambda ch: (amaf[ch][0] / amaf[ch][1], -ch.action))
        same += best_amaf is chosen
        gaps += [abs(amaf[ch][0] / amaf[ch][1] - ch.mean) for ch in children]
        ratios += [amaf[ch][1] / ch.visits for ch in children]
    return AmafAgreement(
        positions[0].NAME,
        len(positions),
        iterations,
        same,
        sum(gaps) / len(gaps),
        sum(ratios) / len(ratios),
    )


def agreement_table(rows: list[AmafAgreement]) -> Table:
    return Table(
        [
            "game",
            "positions",
            "iterations",
            "AMAF's best = UCT's move",
            "95% interval",
            "mean gap, AMAF mean to own mean",
            "AMAF samples per visit",
        ],
        [
            [
                game_title(r.game),
                r.positions,
                f"{r.iterations:,}",
                r.same_best / r.positions,
                "{:.0%} to {:.0%}".format(*r.same_interval),
                r.mean_gap,
                r.amaf_per_visit,
            ]
            for r in rows
        ],
        {
            "AMAF's best = UCT's move": ".0%",
            "mean gap, AMAF mean to own mean": ".3f",
            "AMAF samples per visit": ".1f",
        },
        right=[
            "positions",
            "iterations",
            "AMAF's best = UCT's move",
            "95% interval",
            "mean gap, AMAF mean to own mean",
            "AMAF samples per visit",
        ],
    )


# -- transpositions: what the tables save -----------------------------------------------------
@dataclass
class NodeCounts:
    """Alpha-beta's nodes over a set of positions, to one depth, with and without the table,
    searching that depth at once (``fixed``) or by iterative deepening (``deepening``)."""

    game: str
    positions: int
    depth: int
    fixed: tuple[int, int]  # (without, with)
    deepening: tuple[int, int]
    same_moves: bool  # the table never changed the move played


def alphabeta_nodes(positions: list[GameState], depth: int) -> NodeCounts:
    """Nodes searched by alpha-beta with and without a transposition table on ``positions``."""
    counts = {"fixed": [0, 0], "deepening": [0, 0]}
    same = True
    for state in positions:
        for mode in counts:
            moves = []
            for tt in (False, True):
                time_limit = None if mode == "fixed" else 1e9  # deepening to ``depth``
                agent = AlphaBetaAgent(depth, time_limit=time_limit, tt=tt)
                moves.append(agent.select_action(state))
                counts[mode][tt] += agent.nodes
            same = same and moves[0] == moves[1]
    return NodeCounts(
        positions[0].NAME,
        len(positions),
        depth,
        tuple(counts["fixed"]),
        tuple(counts["deepening"]),
        same,
    )


def nodes_table(rows: list[NodeCounts]) -> Table:
    data = []
    for r in rows:
        for mode, (without, with_tt) in (
            ("depth at once", r.fixed),
            ("iterative deepening", r.deepening),
        ):
            data.append(
                [
                    game_title(r.game),
                    r.positions,
                    r.depth,
                    mode,
                    without,
                    with_tt,
                    with_tt / without,
                ]
            )
    return Table(
        [
            "game",
            "positions",
            "depth",
            "search",
            "nodes without table, total",
            "nodes with table, total",
            "with / without",
        ],
        data,
        {
            "nodes without table, total": ",",
            "nodes with table, total": ",",
            "with / without": ".0%",
        },
        right=[
            "positions",
            "depth",
            "nodes without table, total",
            "nodes with table, total",
            "with / without",
        ],
    )


@dataclass
class GraphSavings:
    """MCTS's nodes after the same number of iterations on a tree and on a graph."""

    game: str
    positions: int
    iterations: int
    tree_nodes: int
    graph_nodes: int
    shared: int  # expansions that found their position in the table


def graph_savings(positions: list[GameState], iterations: int, seed: int = 0) -> GraphSavings:
    """Nodes of UCT's tree and of the graph search after ``iterations`` from each position."""
    tree = graph = shared = 0
    for k, state in enumerate(positions):
        tree += count_nodes(MCTSAgent(iterations, seed=seed + k).search(state))
        agent = TranspositionMCTSAgent(iterations, seed=seed + k)
        agent.search(state)
        graph += agent.nodes
        shared += agent.shared
    return GraphSavings(positions[0].NAME, len(positions), iterations, tree, graph, shared)


def count_nodes(root) -> int:
    """The nodes of a tree (or of a graph, each once)."""
    seen, stack = {id(root)}, [root]
    while stack:
        for child in stack.pop().children.values():
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return len(seen)


def savings_table(rows: list[GraphSavings]) -> Table:
    return Table(
        [
            "game",
            "positions",
            "iterations",
            "tree nodes, total",
            "graph nodes, total",
            "graph / tree",
        ],
        [
            [
                game_title(r.game),
                r.positions,
                f"{r.iterations:,}",
                r.tree_nodes,
                r.graph_nodes,
                r.graph_nodes / r.tree_nodes,
            ]
            for r in rows
        ],
        {"tree nodes, total": ",", "graph nodes, total": ",", "graph / tree": ".0%"},
        right=[
            "positions",
            "iterations",
            "tree nodes, total",
            "graph nodes, total",
            "graph / tree",
        ],
    )


# -- AMAF's favourite against the exact values (tic-tac-toe) -------------------------------------
@dataclass
class AmafExact:
    """On solved positions where the choice matters, after a plain UCT search that also
    collected AMAF statistics (RAVE with K = 0): is the move with the best AMAF mean optimal,
    and is UCT's own move (the most visited) optimal?  Paired: the same search gives both."""

    iterations: int
    amaf_right: list[bool]
    uct_right: list[bool]
    numbers: tuple[int, ...] = ()  # the positions' numbers, so that two budgets can be paired

    @property
    def positions(self) -> int:
        return len(self.amaf_right)

    def share(self, amaf: bool) -> float:
        flags = self.amaf_right if amaf else self.uct_right
        return sum(flags) / len(flags)

    def interval(self, amaf: bool) -> tuple[float, float]:
        """95% Wilson interval of the share of positions where the move is optimal."""
        return wilson_interval(self.share(amaf), self.positions)

    def difference(self, confidence: float = 0.95) -> tuple[float, tuple[float, float], float]:
        """UCT's share minus AMAF's: the difference, its paired bootstrap interval over the
        positions at ``confidence``, and the sign-flip p-value."""
        uct = [float(x) for x in self.uct_right]
        amaf = [float(x) for x in self.amaf_right]
        return (
            self.share(False) - self.share(True),
            paired_interval(uct, amaf, confidence=confidence),
            sign_flip_p_value([u - a for u, a in zip(uct, amaf, strict=True)]),
        )


def amaf_exact_table(rows: list[AmafExact], confidence: float) -> Table:
    """One row per budget: how often each move is optimal, and UCT's share minus AMAF's with
    its paired interval at ``confidence`` (corrected for the number of budgets)."""
    level = f"{confidence:.1%}".replace(".0%", "%")
    out = []
    for r in rows:
        diff, (low, high), _ = r.difference(confidence)
        out.append(
            [
                f"{r.iterations:,}",
                r.positions,
                r.share(False),
                r.share(True),
                f"{diff:+.1%} ({span(low, high, signed=True)})",
            ]
        )
    columns = [
        "iterations",
        "positions",
        "UCT's move optimal",
        "AMAF's favourite optimal",
        f"UCT minus AMAF ({level} interval)",
    ]
    return Table(
        columns,
        out,
        {"UCT's move optimal": ".1%", "AMAF's favourite optimal": ".1%"},
        right=columns[1:],
    )


def amaf_exact(iterations: int, count: int | None = None, seed: int = 0) -> AmafExact:
    """Tic-tac-toe positions where the choice matters, one per symmetry class (those of
    :mod:`mcts_lab.rave_scan`): all of them, or ``count`` drawn with ``seed``; each searched
    once, seeded by its number."""
    from mcts_lab.rave_scan import tictactoe_positions

    solved = tictactoe_positions()
    every = range(len(solved.numbers))
    picks = list(every) if count is None else sorted(random.Random(seed).sample(every, count))
    amaf_right, uct_right = [], []
    for i in picks:
        agent = RAVEAgent(iterations, rave=0, seed=solved.numbers[i])
        root = agent.search(solved.states[i])
        kids = root.children  # action -> child
        amaf = {a: agent.amaf(kid) for a, kid in kids.items()}
        chosen = max(kids, key=lambda a: (kids[a].visits, -a))  # ties: the smallest action
        # A move never AMAF-sampled has no AMAF mean; it cannot be AMAF's favourite.
        sampled = [a for a in kids if amaf[a][1] > 0]
        best = max(sampled, key=lambda a: (amaf[a][0] / amaf[a][1], -a))
        amaf_right.append(best in solved.optimal[i])
        uct_right.append(chosen in solved.optimal[i])
    return AmafExact(iterations, amaf_right, uct_right, tuple(solved.numbers[i] for i in picks))


def gap_growth(
    small: AmafExact, large: AmafExact, confidence: float = 0.95
) -> tuple[float, tuple[float, float], float]:
    """How much UCT's lead over AMAF's favourite grows from ``small`` to ``large`` (two budgets
    on the same positions): per position, (UCT minus AMAF at the large budget) minus (the same
    at the small one); the mean, its bootstrap interval over the positions and the sign-flip
    p-value of "no growth".  Paired twice: both moves come from one search, and both budgets
    search the same positions with the same seeds."""
    if not small.numbers or small.numbers != large.numbers:
        raise ValueError("the two budgets must search the same positions")
    growth = [
        (float(u2) - float(a2)) - (float(u1) - float(a1))
        for u1, a1, u2, a2 in zip(
            small.uct_right, small.amaf_right, large.uct_right, large.amaf_right, strict=True
        )
    ]
    zeros = [0.0] * len(growth)
    return (
        sum(growth) / len(growth),
        paired_interval(growth, zeros, confidence=confidence),
        sign_flip_p_value(growth),
    )
