"""The measurements of the MCTS algorithm page: one search read off, what the expansion
threshold does to the tree, and what cutting the playouts costs and changes.

Each function runs the package's :class:`~mcts_course.agents.mcts.MCTSAgent` (or its playouts)
and returns a small result object; the chapter shows it and its prose quotes it through glue.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from mcts_course.agents.mcts import MCTSAgent, Node, robust_max
from mcts_course.games.base import GameState
from mcts_course.stats import difference_interval, wilson_interval
from mcts_lab.present import Table


# -- one search, read off ----------------------------------------------------------------------
@dataclass
class Readout:
    """One search: its root, the root table (``rows``, most visited first, as
    :meth:`MCTSAgent.root_table <mcts_course.agents.mcts.MCTSAgent.root_table>` gives it) and
    the exploration constant ``c``."""

    root: Node
    rows: list[dict]
    c: float

    @property
    def iterations(self) -> int:
        return self.root.visits

    @property
    def choice(self) -> dict:
        """The row of the move played (the most visited)."""
        return self.rows[0]

    def bonus(self, row: dict) -> float:
        """The exploration term of ``row``'s UCT value, c * sqrt(ln N / n)."""
        return self.c * math.sqrt(math.log(self.root.visits) / row["visits"])

    def spread(self, key: str) -> float:
        """max - min of ``key`` ("mean", "uct", "visits") over the root's moves."""
        values = [row[key] for row in self.rows]
        return max(values) - min(values)

    def standard_error(self, row: dict) -> float:
        """The standard error of ``row``'s mean reward (at most 0.5 / sqrt(n) for rewards in
        [0, 1]; estimated here from the mean, as for a win-or-loss reward)."""
        p = row["mean"]
        return math.sqrt(max(p * (1 - p), 1e-12) / row["visits"])

    def table(self) -> Table:
        """The root table: every move's visits, wins, mean and UCT value."""
        columns = ["move", "visits *n*", "wins *w*", "mean *w/n*", "UCT value"]
        rows = [[r["move"], r["visits"], r["wins"], r["mean"], r["uct"]] for r in self.rows]
        formats = {"visits *n*": ",", "wins *w*": "g", "mean *w/n*": ".3f", "UCT value": ".3f"}
        return Table(columns, rows, formats, right=columns[1:])


def read_off(state: GameState, iterations: int, *, seed: int = 1, **settings) -> Readout:
    """Search ``state`` with the package's MCTS and return its root table."""
    agent = MCTSAgent(iterations=iterations, seed=seed, **settings)
    root = agent.search(state)
    return Readout(root, agent.root_table(root), agent.c)


# -- the expansion threshold -------------------------------------------------------------------
def tree_size(node: Node) -> int:
    """The nodes of the tree below ``node``, ``node`` included."""
    return 1 + sum(tree_size(child) for child in node.children.values())


@dataclass(frozen=True)
class ThresholdTree:
    """One search with expansion threshold ``threshold``: its tree's size, its depth and the
    move it plays with its visits."""

    threshold: int
    nodes: int
    depth: int
    move: str
    visits: int


def threshold_trees(
    state: GameState, iterations: int, thresholds: tuple[int, ...], *, seed: int = 1, **settings
) -> list[ThresholdTree]:
    """The tree of one search of ``iterations`` iterations for each expansion threshold."""
    from mcts_course.trees import depth_profile

    out = []
    for threshold in thresholds:
        agent = MCTSAgent(iterations=iterations, expand_threshold=threshold, seed=seed, **settings)
        root = agent.search(state)
        best = root.children[robust_max(root)]
        out.append(
            ThresholdTree(
                threshold,
                tree_size(root),
                len(depth_profile(root)) - 1,
                state.action_to_string(best.action),
                best.visits,
            )
        )
    return out


def threshold_table(trees: list[ThresholdTree]):
    """The trees of :func:`threshold_trees` as an IPython Markdown table."""
    from IPython.display import Markdown

    lines = ["| expansion threshold | nodes | deepest node (plies) |", "|--:|--:|--:|"]
    lines += [f"| {t.threshold} | {t.nodes:,} | {t.depth} |" for t in trees]
    return Markdown("\n".join(lines))


# -- cut playouts ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CutPlayouts:
    """Cut against full playouts from one position.

    ``full_rate`` and ``cut_rate``: MCTS iterations per second with full playouts and with
    playouts cut after ``plies`` plies (on the machine that ran this).  Of ``playouts`` random
    games from the position, ``ahead`` were ahead on discs after ``plies`` plies for the player
    to move (a cut playout's win) and ``behind`` were not (level or behind: a cut playout's draw
    or loss); ``ahead_score`` and ``behind_score`` are that player's mean reward (win 1, draw
    0.5, loss 0) in the same random games played to the end.
    """

    plies: int
    full_rate: float
    cut_rate: float
    ahead: int
    ahead_score: float
    behind: int
    behind_score: float

    @property
    def speedup(self) -> float:
        return self.cut_rate / self.full_rate

    @property
    def playouts(self) -> int:
        return self.ahead + self.behind

    @property
    def ahead_interval(self) -> tuple[float, float]:
        return wilson_interval(self.ahead_score, self.ahead)

    @property
    def behind_interval(self) -> tuple[float, float]:
        return wilson_interval(self.behind_score, self.behind)

    @property
    def difference(self) -> float:
        return self.ahead_score - self.behind_score

    @property
    def difference_interval(self) -> tuple[float, float]:
        """95% interval of ``ahead_score - behind_score`` (Newcombe)."""
        return difference_interval(self.ahead_score, self.ahead, self.behind_score, self.behind)

    def table(self):
        """The comparison as an IPython Markdown table."""
        from IPython.display import Markdown

        a_lo, a_hi = self.ahead_interval
        b_lo, b_hi = self.behind_interval
        lines = [
            f"| | full playouts | playouts cut after {self.plies} plies |",
            "|---|--:|--:|",
            f"| MCTS iterations per second | {self.full_rate:,.0f} | {self.cut_rate:,.0f} |",
            "",
            f"| random games: after {self.plies} plies, the side to move now is | games | "
            "its score at the end | 95% interval |",
            "|---|--:|--:|--:|",
            f"| ahead on discs | {self.ahead:,} | {self.ahead_score:.1%} | "
            f"{a_lo:.1%} to {a_hi:.1%} |",
            f"| level or behind | {self.behind:,} | {self.behind_score:.1%} | "
            f"{b_lo:.1%} to {b_hi:.1%} |",
        ]
        return Markdown("\n".join(lines))


def cut_playouts(
    state: GameState,
    plies: int = 20,
    *,
    iterations: int = 1000,
    playouts: int = 2000,
    seed: int = 0,
) -> CutPlayouts:
    """Time MCTS with full and with cut playouts from ``state`` (``iterations`` each, the faster
    of two runs); then play ``playouts`` random games from ``state`` and compare who was ahead
    after ``plies`` plies with who won at the end."""
    rates = []
    for depth in (None, plies):
        best = math.inf  # the faster of two runs: a busy machine only ever slows a run down
        for _ in range(2):
            agent = MCTSAgent(iterations=iterations, playout_depth=depth, seed=seed)
            started = time.perf_counter()
            agent.search(state)
            best = min(best, time.perf_counter() - started)
        rates.append(iterations / best)
    rng = random.Random(seed)
    me = state.current_player
    ahead, behind = [], []
    for _ in range(playouts):
        s = state
        for _ in range(plies):
            if s.is_terminal():
                break
            actions = s.legal_actions()
            s = s.play(actions[int(rng.random() * len(actions))])
        final = s.returns() if s.is_terminal() else s.rollout(rng)
        (ahead if s.cutoff_returns()[me] > 0 else behind).append((final[me] + 1) / 2)
    return CutPlayouts(
        plies, rates[0], rates[1], len(ahead), _mean(ahead), len(behind), _mean(behind)
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
