"""The running Othello position, asked again with much more search: what can be known of its
best move when its exact value is out of reach.

Three earlier chapters answer the running position with three different moves (minimax at
depth 2, flat Monte Carlo with 600 playouts, MCTS with 2,000 iterations).  Nothing can solve a
position with about fifty empty squares exactly, so :func:`reference_searches` asks the two
kinds of search the book has, each far stronger than before and each several times:

* MCTS with many more iterations, from several seeds: do independent searches agree?
* alpha-beta with the cell-score table at increasing depths: does its move settle?
* flat Monte Carlo with many playouts per move: the value it converges to, with intervals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mcts_course.agents import AlphaBetaAgent, MCTSAgent, MinimaxAgent, MonteCarloAgent
from mcts_course.games import GameState
from mcts_course.stats import wilson_interval
from mcts_lab import N_JOBS
from mcts_lab.basics import running_position  # the book's running position (White to move)
from mcts_lab.flat import playout_values
from mcts_lab.present import Table, percent_axis

REFERENCE_ITERATIONS = 100_000  # MCTS iterations per reference search
REFERENCE_SEEDS = 4
ALPHABETA_DEPTHS = (1, 2, 3, 4, 5, 6, 7)
FLAT_PER_MOVE = 20_000  # playouts per move: the Monte Carlo chapter's budget for the same values
ANSWER_SEEDS = 40  # seeds 0-39 for the earlier chapters' randomised answers (seed 1 among them)


def earlier_agent(method: str, seed: int = 1) -> MinimaxAgent | MonteCarloAgent | MCTSAgent:
    """The earlier chapters' agent for ``method``: minimax at depth 2 (cell scores), flat
    Monte Carlo with 600 playouts, MCTS with 2,000 iterations (the chapters used seed 1)."""
    if method == "minimax":
        return MinimaxAgent(depth=2)
    if method == "flat":
        return MonteCarloAgent(playouts=600, seed=seed)
    if method == "mcts":
        return MCTSAgent(iterations=2000, seed=seed)
    raise ValueError(f"unknown method {method!r}")


def earlier_answers(state: GameState) -> dict[str, str]:
    """The moves the earlier chapters' agents play (seed 1, as in those chapters)."""
    methods = ("minimax", "flat", "mcts")
    return {m: state.action_to_string(earlier_agent(m).select_action(state)) for m in methods}


def seed_answers(
    state: GameState, method: str, seeds: Sequence[int] = range(ANSWER_SEEDS)
) -> list[str]:
    """The move the earlier chapter's randomised agent plays with each of ``seeds``: one
    answer per seed, so that a single seed's answer is seen against the spread of answers."""
    return [state.action_to_string(earlier_agent(method, s).select_action(state)) for s in seeds]


@dataclass
class SeedSearch:
    """One long MCTS search: its move, that move's share of the visits and its mean."""

    seed: int
    move: str
    share: float
    mean: float
    runner_up: str
    runner_up_share: float


@dataclass
class Reference:
    state: GameState
    earlier: dict[str, str]
    iterations: int
    searches: list[SeedSearch]
    alphabeta: dict[int, str]  # depth: move
    flat: dict[str, tuple[float, float, float]]  # move: mean, 95% interval
    flat_per_move: int
    # per randomised method ("flat", "mcts"): the move played with each seed 0, 1, ...
    seed_choices: dict[str, list[str]] = field(default_factory=dict)

    @property
    def mcts_moves(self) -> Counter:
        return Counter(s.move for s in self.searches)

    @property
    def flat_best(self) -> str:
        return max(self.flat, key=lambda m: self.flat[m][0])

    def flat_separated(self) -> bool:
        """Does flat Monte Carlo's best move's interval lie above every other move's?"""
        best = self.flat_best
        low = self.flat[best][1]
        return all(high < low for m, (_, _, high) in self.flat.items() if m != best)

    def searches_markdown(self) -> Table:
        """One row per seed: the move MCTS plays, its share of the visits and mean, the next."""
        columns = ["seed", "MCTS plays", "its share of the visits", "its mean", "next most visited"]
        rows = [
            [s.seed, s.move, s.share, s.mean, f"{s.runner_up} ({s.runner_up_share:.1%})"]
            for s in self.searches
        ]
        formats = {"its share of the visits": ".1%", "its mean": ".3f"}
        return Table(columns, rows, formats, right=["seed", "its share of the visits", "its mean"])

    def alphabeta_markdown(self):
        from IPython.display import Markdown

        depths = list(self.alphabeta)
        return Markdown(
            "| depth | "
            + " | ".join(map(str, depths))
            + " |\n|---|"
            + "--:|" * len(depths)
            + "\n| alpha-beta plays | "
            + " | ".join(self.alphabeta[d] for d in depths)
            + " |"
        )


def reference_searches(
    state: GameState | None = None,
    iterations: int = REFERENCE_ITERATIONS,
    seeds: int = REFERENCE_SEEDS,
    depths: Sequence[int] = ALPHABETA_DEPTHS,
    flat_per_move: int = FLAT_PER_MOVE,
    n_jobs: int | None = N_JOBS,
) -> Reference:
    """The long MCTS searches (in parallel, one per seed), alpha-beta at every depth of
    ``depths`` and flat Monte Carlo with ``flat_per_move`` playouts per move."""
    from joblib import Parallel, delayed

    state = state or running_position()
    searches = Parallel(n_jobs=n_jobs)(
        delayed(_long_search)(state, iterations, seed) for seed in range(seeds)
    )
    alphabeta = {
        d: state.action_to_string(AlphaBetaAgent(depth=d).select_action(state)) for d in depths
    }
    # The Monte Carlo chapter's own computation (same function, same seed), so that the two
    # chapters show the same numbers for the same question, not two samples of it.
    values = playout_values(state, playouts=flat_per_move)
    flat = {
        move: (float(values.value[i]), *values.interval(i)) for i, move in enumerate(values.moves)
    }
    return Reference(
        state, earlier_answers(state), iterations, list(searches), alphabeta, flat, flat_per_move
    )


def _long_search(state: GameState, iterations: int, seed: int) -> SeedSearch:
    root = MCTSAgent(iterations, seed=seed).search(state)
    ranked = sorted(root.children.values(), key=lambda ch: (-ch.visits, ch.action))
    total = sum(ch.visits for ch in ranked)
    top, second = ranked[0], ranked[1]
    return SeedSearch(
        seed,
        state.action_to_string(top.action),
        top.visits / total,
        top.mean,
        state.action_to_string(second.action),
        second.visits / total,
    )


def answers_figure(ref: Reference):
    """Every method's answer in the running position on one picture.  Left: each move's value
    under random playouts (flat Monte Carlo's ``flat_per_move`` playouts, 95% intervals).
    Right: which move each method plays (the long MCTS searches: how many seeds chose it)."""
    import matplotlib.pyplot as plt

    moves = list(ref.flat)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1.3]}, sharex=True
    )
    means = [ref.flat[m][0] for m in moves]
    errors = [
        [ref.flat[m][0] - ref.flat[m][1] for m in moves],
        [ref.flat[m][2] - ref.flat[m][0] for m in moves],
    ]
    left.errorbar(range(len(moves)), means, yerr=errors, fmt="o", capsize=4)
    left.set_ylabel(f"mean reward, {ref.flat_per_move:,} random playouts")
    left.set_title("Value under random play after each move", fontsize=10)
    deepest = max(ref.alphabeta)
    rows = [
        ("minimax, depth 2", {ref.earlier["minimax"]: 1}),
        ("flat MC, 600 playouts, seed 1", {ref.earlier["flat"]: 1}),
        ("MCTS, 2,000 iterations, seed 1", {ref.earlier["mcts"]: 1}),
        (f"alpha-beta, depths 1-{deepest}", dict(Counter(ref.alphabeta.values()))),
        (f"MCTS, {ref.iterations:,} (seeds)", dict(ref.mcts_moves)),
        (f"flat MC, {ref.flat_per_move:,} a move", {ref.flat_best: 1}),
    ]
    for y, (_, chosen) in enumerate(rows):
        for move, count in chosen.items():
            x = moves.index(move)
            right.scatter([x], [y], s=80 + 60 * count, color="C1")
            if count > 1:
                right.annotate(str(count), (x, y), ha="center", va="center", fontsize=8)
    right.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=8)
    right.yaxis.tick_right()
    right.set_ylim(len(rows) - 0.5, -0.5)
    right.set_title("The move each method plays", fontsize=10)
    for ax in (left, right):
        ax.set_xticks(range(len(moves)), moves)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def choice_counts(ref: Reference, method: str) -> dict[str, tuple[int, float, float]]:
    """For one randomised method: per move ever chosen, the seeds that chose it and the 95%
    Wilson interval of its share of the seeds."""
    chosen = Counter(ref.seed_choices[method])
    n = len(ref.seed_choices[method])
    return {m: (c, *wilson_interval(c / n, n)) for m, c in chosen.items()}


def choices_figure(ref: Reference):
    """How often each randomised answer of the earlier chapters comes out over the seeds: per
    move, the share of the seeds that play it with its 95% Wilson interval, one panel per
    method, the deep searches' moves marked (axis from 0 to 1)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    moves = list(ref.flat)
    ab_move = ref.alphabeta[max(ref.alphabeta)]
    titles = {"flat": "flat MC, 600 playouts", "mcts": "MCTS, 2,000 iterations"}
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    for ax, method in zip(axes, ("flat", "mcts"), strict=True):
        counts = choice_counts(ref, method)
        n = len(ref.seed_choices[method])
        shares = [counts[m][0] / n if m in counts else 0.0 for m in moves]
        lows = [counts[m][1] if m in counts else 0.0 for m in moves]
        highs = [counts[m][2] if m in counts else wilson_interval(0.0, n)[1] for m in moves]
        colors = ["C2" if m == ab_move else "C0" for m in moves]
        ax.bar(range(len(moves)), shares, color=colors, alpha=0.8)
        ax.errorbar(
            range(len(moves)),
            shares,
            yerr=[np.subtract(shares, lows), np.subtract(highs, shares)],
            fmt="none",
            ecolor="black",
            capsize=3,
        )
        own = moves.index(ref.earlier[method])  # the earlier chapter's answer (seed 1)
        ax.annotate(
            "seed 1",
            (own, highs[own]),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
        ax.set_xticks(range(len(moves)), moves)
        ax.set_ylim(0, 1)
        ax.set_title(f"{titles[method]}, {n} seeds", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("share of the seeds playing the move")
    percent_axis(axes[0].yaxis)
    handles = [
        Patch(color="C2", alpha=0.8, label=f"deep alpha-beta's move ({ab_move})"),
        Patch(color="C0", alpha=0.8, label="other moves"),
    ]
    axes[1].legend(handles=handles, fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
