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

from mcts_course.agents.mcts import MCTSAgent, Node, most_visited_child
from mcts_course.games.base import GameState
from mcts_course.given import Node as GivenNode
from mcts_course.stats import difference_interval, wilson_interval
from mcts_lab.present import Table, span
from mcts_lab.textbook import uct as textbook_uct
from mcts_lab.textbook.bandit import SQRT2, playout


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

    def boards(self):  # type: ignore[no-untyped-def]
        """The root's visits and mean rewards drawn on the board, side by side."""
        import matplotlib.pyplot as plt

        from mcts_course.render import draw_board, search_overlay

        fig, axes = plt.subplots(1, 2, figsize=(10, 4.3))
        state, n = self.root.state, f"{self.iterations:,}"
        draw_board(
            state,
            axes[0],
            overlay=search_overlay(self.root, "visits"),
            show_legal=False,
            cmap="Blues",
            fmt="{:.0f}",
            label="visits",
            title=f"Visits after {n} iterations",
        )
        draw_board(
            state,
            axes[1],
            overlay=search_overlay(self.root, "mean"),
            show_legal=False,
            cmap="RdYlGn",
            fmt="{:.0%}",
            vmin=0,
            vmax=1,
            label="mean reward of the mover",
            title="Mean reward of each move",
        )
        fig.tight_layout()
        return fig


def same_tree(textbook: GivenNode, engine: Node) -> bool:
    """Whether the textbook search's tree and the engine's have the same moves, visits and
    rewards at every node."""
    if (textbook.visits, textbook.wins) != (engine.visits, engine.wins):
        return False
    if set(textbook.children) != set(engine.children):
        return False
    return all(same_tree(textbook.children[a], engine.children[a]) for a in textbook.children)


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
        best = root.children[most_visited_child(root)]
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

    ``full_rate`` and ``cut_rate``: MCTS iterations per second of processor time with full
    playouts and with playouts cut after ``plies`` plies (on the machine that ran this).  Of
    ``playouts`` random games from the position, ``ahead`` were ahead on discs after ``plies``
    plies for the player to move (a cut playout's win) and ``behind`` were not (level or
    behind: a cut playout's draw or loss); ``ahead_score`` and ``behind_score`` are that
    player's mean reward (win 1, draw 0.5, loss 0) in the same random games played to the end.
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
            f"| MCTS iterations per second of processor time | {self.full_rate:,.0f} | "
            f"{self.cut_rate:,.0f} |",
            "",
            f"| random games: after {self.plies} plies, the player to move at the start is | "
            "games | its score at the end | 95% interval |",
            "|---|--:|--:|--:|",
            f"| ahead on discs | {self.ahead:,} | {self.ahead_score:.1%} | {span(a_lo, a_hi)} |",
            f"| level or behind | {self.behind:,} | {self.behind_score:.1%} | {span(b_lo, b_hi)} |",
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
        # processor time, the faster of two runs: wall time on a busy machine counts the other
        # processes' turns too (a page built beside other jobs measured no speedup at all)
        best = math.inf
        for _ in range(2):
            agent = MCTSAgent(iterations=iterations, playout_depth=depth, seed=seed)
            started = time.process_time()
            agent.search(state)
            best = min(best, time.process_time() - started)
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


# -- the reward's flip, measured -----------------------------------------------------------------
def backup_without_flip(path: list[GivenNode], reward0: float) -> None:
    """The classic bug: every node counts the reward of the player to move at the root, so the
    opponent's replies are chosen to help that player."""
    root_player = 1 - path[0].player
    mine = reward0 if root_player == 0 else 1 - reward0
    for node in path:
        node.visits += 1
        node.wins += mine


def search_with(state: GameState, iterations: int, rng: random.Random, flip: bool = True) -> int:
    """The textbook UCT search, with the textbook backup or the one without the flip."""
    backup = textbook_uct.backup if flip else backup_without_flip
    root = GivenNode(state)
    for _ in range(iterations):
        path = textbook_uct.select(root, SQRT2)
        leaf = textbook_uct.expand(path[-1], root, rng)
        if leaf is not path[-1]:
            path.append(leaf)
        backup(path, playout(leaf.state, 0, rng))
    return textbook_uct.most_visited(root)


def decisive_positions(count: int, seed: int = 0, one_per_class: bool = False) -> list[GameState]:
    """``count`` different tic-tac-toe positions, 2 to 5 plies in, drawn at random, in which
    some moves keep the exact value and others lose it (so a search can make a mistake).  With
    ``one_per_class``, no two of them are rotations or reflections of each other (a drawn
    position whose symmetry class is already in is skipped): symmetric copies have the same
    values, move for move, and are not independent evidence."""
    from mcts_course.agents.exact import best_actions
    from mcts_course.games import TicTacToe

    rng, seen = random.Random(seed), set()
    found: list[GameState] = []
    while len(found) < count:
        state = TicTacToe()
        for _ in range(rng.randint(2, 5)):
            state = state.play(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
        key = state.symmetry_class() if one_per_class else state
        if state.is_terminal() or key in seen:
            continue
        seen.add(key)
        if len(best_actions(state)) < len(state.legal_actions()):
            found.append(state)
    return found


@dataclass
class FlipResult:
    """Per position, the share of searches that chose a move losing the exact value, with and
    without the flip, at each budget."""

    budgets: tuple[int, ...]
    positions: list[GameState]
    seeds: int
    with_flip: dict[int, list[float]]
    without_flip: dict[int, list[float]]

    def mistakes(self, budget: int, flip: bool = True) -> float:
        rates = (self.with_flip if flip else self.without_flip)[budget]
        return sum(rates) / len(rates)

    def difference(self, budget: int, confidence: float) -> tuple[float, float]:
        """The paired bootstrap interval over positions of (mistakes without the flip) minus
        (mistakes with it) at ``budget``: the one interval the table shows and the prose quotes."""
        from mcts_course.stats import paired_interval

        return paired_interval(self.without_flip[budget], self.with_flip[budget], confidence)

    def table(self, confidence: float):  # type: ignore[no-untyped-def]
        """Mistake rates with their bootstrap intervals over positions, one row per budget, and
        the paired difference's interval, all at ``confidence``."""
        from mcts_course.stats import bootstrap_interval

        rows = []
        for b in self.budgets:
            cells = [f"{b:,}"]
            for rates in (self.with_flip[b], self.without_flip[b]):
                low, high = bootstrap_interval(rates, confidence)
                cells.append(f"{sum(rates) / len(rates):.1%} ({span(low, high)})")
            low, high = self.difference(b, confidence)
            cells.append(f"{100 * low:+.1f} to {100 * high:+.1f}")  # percentage points
            rows.append(cells)
        level = f"{100 * confidence:.2f}".rstrip("0").rstrip(".") + "%"  # 98.75%, 95%
        header = [
            "iterations",
            f"mistakes with the flip ({level} interval)",
            "without the flip",
            "paired difference (points)",
        ]
        return Table(header, rows)


def flip_experiment(
    positions: list[GameState], budgets: tuple[int, ...] = (30, 1000), seeds: int = 4
) -> FlipResult:
    """Each position searched with ``seeds`` seeds at each budget, with and without the flip;
    a mistake is a move whose exact value is below the position's."""
    from mcts_course.agents.exact import best_actions

    best = [set(best_actions(p)) for p in positions]
    rates: dict[bool, dict[int, list[float]]] = {True: {}, False: {}}
    for flip in (True, False):
        for budget in budgets:
            rates[flip][budget] = [
                sum(
                    search_with(p, budget, random.Random(s), flip) not in good for s in range(seeds)
                )
                / seeds
                for p, good in zip(positions, best, strict=True)
            ]
    return FlipResult(budgets, positions, seeds, rates[True], rates[False])


def mistake_rates(
    positions: list[GameState], budget: int, seeds: range, flip: bool = True
) -> list[float]:
    """Per position, the share of textbook UCT searches (one per seed) that play a move losing
    the position's exact value: one number per position, the unit of the book's statistics."""
    from mcts_course.agents.exact import best_actions

    rates = []
    for position in positions:
        best = set(best_actions(position))
        wrong = sum(
            search_with(position, budget, random.Random(s), flip) not in best for s in seeds
        )
        rates.append(wrong / len(seeds))
    return rates
