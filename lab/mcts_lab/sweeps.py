"""Tuning MCTS, measured: the exploration constant's scale, sweeps of c and of the expansion
threshold against exact values on tic-tac-toe, and what the threshold does to one search.

* :func:`reward_scale_check`: UCB1 with c on rewards in [0, 1] and 2c on rewards in [-1, 1]
  choose the same arm (the scale argument, checked on random bandit states).
* :func:`tuning_scan`: each setting of c or of the threshold decides one position of every
  symmetry class of the decisive tic-tac-toe positions, several seeds each, at one budget,
  paired with the default on position and seed; :func:`holm_rejections` reads all
  the comparisons together and :func:`plot_scans` draws them with their intervals.
* :func:`threshold_choices`: many seeded searches of one position per threshold: the tree's
  size and the move chosen, so that "the threshold changes the move" is counted, not guessed
  from one seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mcts_course.agents import MCTSAgent
from mcts_course.agents.bandits import ucb1
from mcts_course.agents.exact import move_values
from mcts_course.agents.mcts import most_visited_child
from mcts_course.games import GameState
from mcts_course.stats import (
    bootstrap_interval,
    corrected_confidence,
    difference_interval,
    holm,
    sign_flip_p_value,
    wilson_interval,
)
from mcts_lab.families import fisher_exact
from mcts_lab.present import error_bars, percent_axis
from mcts_lab.trap import decisive_classes

# The sizes the chapter uses.
SCALE_TRIALS = 1000
# The scan of c and of the threshold: one budget, fixed before the comparisons are read (a
# budget where MCTS is far from converged on tic-tac-toe, so that settings can differ).
SCAN_ITERATIONS = 60
SCAN_SEEDS = 5  # searches per symmetry class and setting; the class's share is the unit
C_DEFAULT = 2**0.5
C_SCAN = (0.05, 0.2, 0.5, C_DEFAULT, 4.0, 16.0)  # from a thirtieth to ten times the default
THRESHOLD_SCAN = (1, 3, 9)  # 1 is the default: expand at the second visit
BOOTSTRAP = 4000
SWEEP_DEPTH = 20  # playouts cut after so many plies in the Othello threshold searches
CHOICE_ITERATIONS = 2000
CHOICE_SEEDS = 40
CHOICE_THRESHOLDS = (1, 5, 21)


def reward_scale_check(trials: int = SCALE_TRIALS, seed: int = 0) -> int:
    """In how many of ``trials`` random bandit states (6 arms, up to 49 pulls each) UCB1 with
    c = 1 on rewards in [0, 1] picks the same arm as UCB1 with c = 2 on the same pulls counted
    in [-1, 1]."""
    rng = np.random.default_rng(seed)
    same = 0
    for _ in range(trials):
        n = rng.integers(1, 50, size=6)
        w = rng.binomial(n, rng.random(6)).astype(float)  # rewards in [0, 1]
        total = int(n.sum())
        pick01 = int(np.argmax([ucb1(wi, ni, total, c=1.0) for wi, ni in zip(w, n, strict=True)]))
        w11 = 2 * w - n  # the same pulls counted in [-1, 1]
        pick11 = int(np.argmax([ucb1(wi, ni, total, c=2.0) for wi, ni in zip(w11, n, strict=True)]))
        same += pick01 == pick11
    return same


@dataclass
class TuningScan:
    """Every setting of one parameter decided the same positions (one per symmetry class of the
    decisive tic-tac-toe positions) with the same seeds: per setting and position, the share of
    its searches that chose a move of the best exact value.  The position is the unit; each
    setting is compared with the default, paired on position and seeds."""

    parameter: str  # "c" or "expand_threshold"
    default: float
    iterations: int
    hits: dict[float, np.ndarray]  # setting -> share of best moves per position
    seeds: int = 1  # searches per position and setting

    @property
    def positions(self) -> int:
        return len(self.hits[self.default])

    def share(self, value: float) -> float:
        return float(self.hits[value].mean())

    def interval(self, value: float) -> tuple[float, float]:
        """95% bootstrap interval over the positions of the share of best moves."""
        return bootstrap_interval(self.hits[value].astype(float), resamples=BOOTSTRAP)

    def difference(self, value: float) -> np.ndarray:
        """Per position: this setting's hit minus the default's (paired on position and seed)."""
        return self.hits[value].astype(float) - self.hits[self.default].astype(float)

    def p_value(self, value: float) -> float:
        """Sign-flip p-value of "no difference from the default" over the positions."""
        return sign_flip_p_value(self.difference(value), resamples=BOOTSTRAP)

    @property
    def others(self) -> list[float]:
        return [v for v in self.hits if v != self.default]


def tuning_scan(
    parameter: str,
    values: Sequence[float],
    default: float,
    iterations: int = SCAN_ITERATIONS,
    seed: int = 7,
    seeds: int = SCAN_SEEDS,
    positions: int | None = None,
) -> TuningScan:
    """MCTS with each of ``values`` for ``parameter`` (``default`` among them) on one position
    per symmetry class of the decisive tic-tac-toe positions (the first ``positions`` of them,
    or all), ``seeds`` searches of ``iterations`` each per position; search j on position k is
    seeded ``seed + k * seeds + j`` for every setting, so the settings differ only in the
    parameter."""
    chosen = decisive_classes()[:positions]
    exact = [move_values(s) for s in chosen]
    hits = {}
    for value in values:
        row = []
        for k, (state, vals) in enumerate(zip(chosen, exact, strict=True)):
            best = max(vals.values())
            found = 0
            for j in range(seeds):
                agent = MCTSAgent(iterations, seed=seed + k * seeds + j, **{parameter: value})
                found += vals[agent.select_action(state)] == best
            row.append(found / seeds)
        hits[value] = np.array(row, dtype=float)
    return TuningScan(parameter, default, iterations, hits, seeds)


def holm_rejections(scans: Sequence[TuningScan]) -> dict[tuple[str, float], bool]:
    """Holm's correction over every non-default setting of all ``scans`` read together."""
    keys = [(scan.parameter, v) for scan in scans for v in scan.others]
    pvals = [scan.p_value(v) for scan in scans for v in scan.others]
    return dict(zip(keys, holm(pvals), strict=True))


def plot_scans(scans: Sequence[TuningScan], title: str = ""):
    """One panel per scan: the mistake rate per setting (positions where MCTS does not play a
    best move) with its 95% bootstrap interval over the positions, on an axis that starts at 0,
    the default drawn as a diamond and as a dashed line (log axis for the settings)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, NullLocator

    labels = {"c": "exploration constant c", "expand_threshold": "expansion threshold"}
    fig, axes = plt.subplots(
        1, len(scans), figsize=(5 * len(scans), 3.6), sharey=True, squeeze=False
    )
    top = 0.0
    for ax, scan in zip(axes[0], scans, strict=True):
        xs = sorted(scan.hits)
        ys = [1 - scan.share(x) for x in xs]
        intervals = [(1 - hi, 1 - lo) for lo, hi in (scan.interval(x) for x in xs)]
        top = max(top, max(hi for _, hi in intervals))
        ax.errorbar(
            xs, ys, yerr=error_bars(ys, intervals), fmt="o-", capsize=4, label="mistake rate"
        )
        ax.plot(
            [scan.default],
            [1 - scan.share(scan.default)],
            "D",
            color="grey",
            ms=8,
            label="the default",
        )
        ax.axhline(1 - scan.share(scan.default), color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{x:.2g}" for x in xs])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(min(xs) / 1.6, max(xs) * 1.6)
        ax.set_xlabel(labels.get(scan.parameter, scan.parameter))
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylim(0, top * 1.15)  # from 0: the heights are the mistake rates themselves
    axes[0][0].set_ylabel("searches that miss a best move")
    percent_axis(axes[0][0].yaxis)
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


@dataclass
class ThresholdChoices:
    """Per threshold, over many seeded searches of one position: tree sizes and moves chosen."""

    state: GameState
    iterations: int
    seeds: int
    nodes: dict[int, list[int]]  # threshold: tree size per seed
    choices: dict[int, Counter]  # threshold: move name -> seeds that chose it

    def share(self, threshold: int, move: str) -> float:
        return self.choices[threshold][move] / self.seeds

    def interval(self, threshold: int, move: str) -> tuple[float, float]:
        return wilson_interval(self.share(threshold, move), self.seeds)

    def compare(
        self, move: str, first: int, second: int, comparisons: int = 1
    ) -> tuple[float, float, float, float]:
        """How much more often ``move`` is chosen with threshold ``first`` than with
        ``second``: the difference of shares, its interval (Newcombe, at the Bonferroni level
        for ``comparisons`` read together) and Fisher's exact two-sided p-value (uncorrected)."""
        a, b = self.choices[first][move], self.choices[second][move]
        low, high = difference_interval(
            a / self.seeds,
            self.seeds,
            b / self.seeds,
            self.seeds,
            corrected_confidence(comparisons),
        )
        return (a - b) / self.seeds, low, high, fisher_exact(a, self.seeds, b, self.seeds)

    def top(self, threshold: int) -> str:
        """The move chosen most often with this threshold (ties: the first in move order)."""
        counts = self.choices[threshold]
        return max(sorted(counts), key=lambda m: counts[m])

    @property
    def moves(self) -> list[str]:
        """Every move some search chose, most chosen overall first."""
        total = Counter()
        for counts in self.choices.values():
            total.update(counts)
        return [m for m, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))]

    def table(self):
        """Markdown: mean tree size, then the share of seeds choosing each move (95% Wilson)."""
        from IPython.display import Markdown

        head = "| threshold | nodes (mean) | " + " | ".join(self.moves) + " |"
        lines = [head, "|--:|--:|" + "--:|" * len(self.moves)]
        for t in self.choices:
            cells = []
            for m in self.moves:
                lo, hi = self.interval(t, m)
                cells.append(f"{self.choices[t][m]} ({lo:.0%}-{hi:.0%})")
            lines.append(f"| {t} | {np.mean(self.nodes[t]):,.0f} | " + " | ".join(cells) + " |")
        return Markdown("\n".join(lines))


def tree_size(node) -> int:
    """The number of nodes of a search tree."""
    return 1 + sum(tree_size(child) for child in node.children.values())


def threshold_choices(
    state: GameState,
    thresholds: Sequence[int] = CHOICE_THRESHOLDS,
    iterations: int = CHOICE_ITERATIONS,
    seeds: int = CHOICE_SEEDS,
    depth: int | None = SWEEP_DEPTH,
) -> ThresholdChoices:
    """``seeds`` searches of ``state`` per threshold (seeds 0, 1, ...), ``iterations`` each."""
    nodes, choices = {}, {}
    for t in thresholds:
        nodes[t], choices[t] = [], Counter()
        for s in range(seeds):
            root = MCTSAgent(iterations, expand_threshold=t, playout_depth=depth, seed=s).search(
                state
            )
            nodes[t].append(tree_size(root))
            choices[t][state.action_to_string(most_visited_child(root))] += 1
    return ThresholdChoices(state, iterations, seeds, nodes, choices)
