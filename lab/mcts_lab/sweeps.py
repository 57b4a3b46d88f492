"""Tuning MCTS, measured: the exploration constant's scale, sweeps of c and of the expansion
threshold in matches at equal iterations, and what the threshold does to one search.

* :func:`reward_scale_check`: UCB1 with c on rewards in [0, 1] and 2c on rewards in [-1, 1]
  choose the same arm (the scale argument, checked on random bandit states).
* :func:`parameter_sweep`: one setting at a time against the default (c = sqrt 2, threshold 1),
  at the same iterations per decision; :func:`plot_sweeps` draws the two sweeps.
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
from mcts_course.agents.mcts import robust_max
from mcts_course.arena import MatchResult, match
from mcts_course.games import GameState, Othello
from mcts_course.stats import wilson_interval
from mcts_lab import N_JOBS
from mcts_lab.present import error_bars, told_apart

# The sizes the chapter uses.
SCALE_TRIALS = 1000
SWEEP_ITERATIONS = 64  # iterations per decision, both sides
SWEEP_DEPTH = 20  # playouts cut after so many plies (Othello counts the discs)
SWEEP_GAMES = 60  # games per setting, colours alternated
C_VALUES = (0.35, 0.7, 2.8)  # around the default sqrt(2), by factors of two
THRESHOLD_VALUES = (5, 21)
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


def _agent(iterations: int, depth: int | None, **settings) -> MCTSAgent:
    agent = MCTSAgent(iterations, playout_depth=depth, **settings)
    if settings:
        agent.name = "MCTS(" + ", ".join(f"{k}={v:g}" for k, v in settings.items()) + ")"
    else:
        agent.name = "MCTS(c=√2, threshold 1)"
    return agent


@dataclass
class Sweep:
    """Each value of one parameter against the default, at equal iterations per decision."""

    parameter: str  # "c" or "expand_threshold"
    label: str
    results: dict[float, MatchResult]

    def told_apart(self, value: float) -> int:
        """+1: the setting beats the default beyond the noise; -1: loses to it; 0: cannot say."""
        return told_apart(self.results[value])


def parameter_sweep(
    parameter: str,
    values: Sequence[float],
    *,
    game: type[GameState] = Othello,
    iterations: int = SWEEP_ITERATIONS,
    depth: int | None = SWEEP_DEPTH,
    games: int = SWEEP_GAMES,
    seed: int = 90,
    n_jobs: int | None = N_JOBS,
) -> Sweep:
    """``MCTSAgent(parameter=value)`` against the default MCTS, both with ``iterations`` per
    decision and playouts cut at ``depth``, ``games`` games per value."""
    reference = _agent(iterations, depth)
    results = {
        value: match(
            game,
            _agent(iterations, depth, **{parameter: value}),
            reference,
            games=games,
            seed=seed + k,
            n_jobs=n_jobs,
            keep_moves=False,
        )
        for k, value in enumerate(values)
    }
    label = {"c": "exploration constant c", "expand_threshold": "expansion threshold"}
    return Sweep(parameter, label.get(parameter, parameter), results)


def plot_sweeps(sweeps: Sequence[Sweep], title: str = ""):
    """One panel per sweep: the score against the default, 95% Wilson intervals, the default's
    own value marked at 50% (a log axis labelled at the values only)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, NullLocator

    defaults = {"c": 2**0.5, "expand_threshold": 1}
    fig, axes = plt.subplots(
        1, len(sweeps), figsize=(5 * len(sweeps), 3.6), sharey=True, squeeze=False
    )
    for ax, sweep in zip(axes[0], sweeps, strict=True):
        xs = sorted(sweep.results)
        ys = [sweep.results[x].score for x in xs]
        err = error_bars(ys, [sweep.results[x].interval for x in xs])
        ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=4, label="against the default")
        default = defaults.get(sweep.parameter)
        ticks = xs
        if default is not None:
            ax.plot([default], [0.5], "D", color="grey", label="the default itself")
            ticks = sorted([*xs, default])
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{x:.2g}" for x in ticks])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(min(ticks) / 1.6, max(ticks) * 1.6)
        ax.set_xlabel(sweep.label)
    axes[0][0].set_ylabel("score against c=√2, threshold 1")
    axes[0][0].set_ylim(0, 1)
    axes[0][0].legend(fontsize=8, loc="lower left")
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
            choices[t][state.action_to_string(robust_max(root))] += 1
    return ThresholdChoices(state, iterations, seeds, nodes, choices)
