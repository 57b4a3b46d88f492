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
from mcts_course.stats import wilson_interval
from mcts_lab.present import Table, game_title


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
            "nodes without table",
            "nodes with table",
            "with / without",
        ],
        data,
        {"nodes without table": ",", "nodes with table": ",", "with / without": ".0%"},
        right=["positions", "depth", "nodes without table", "nodes with table", "with / without"],
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
        ["game", "positions", "iterations", "tree nodes", "graph nodes", "graph / tree"],
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
        {"tree nodes": ",", "graph nodes": ",", "graph / tree": ".0%"},
        right=["positions", "iterations", "tree nodes", "graph nodes", "graph / tree"],
    )
