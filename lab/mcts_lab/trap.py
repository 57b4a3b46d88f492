"""Search measured against exact values on tic-tac-toe: convergence, and a trap for flat MC.

Tic-tac-toe is small enough to know two exact numbers for every move:

* its **game value** (:func:`mcts_course.agents.exact.move_values`): what the move gets against
  best play, +1 win, 0 draw, -1 loss;
* its **random-playout value** (:func:`playout_value`): the mover's expected reward (win 1,
  draw 1/2, loss 0) when both sides play uniformly at random after it.  Flat Monte Carlo's
  estimate of a move converges to this number, whatever its budget.

:func:`convergence` counts how often MCTS and flat Monte Carlo play a move of the best game
value on many positions; :func:`find_trap` finds the position where the two values disagree
most (a losing move has the best random-playout value), and :func:`trap_experiment` shows what
each agent makes of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.agents.exact import exact_value, move_values
from mcts_course.games import GameState, TicTacToe
from mcts_course.stats import half_width, wilson_interval
from mcts_lab.experiments import decisive_positions, root_value, sample, to_unit
from mcts_lab.paired import PairedDifference, corrected, paired_difference
from mcts_lab.present import error_bars


def markdown(text: str):
    """A Markdown table for the notebook (IPython's display object)."""
    from IPython.display import Markdown

    return Markdown(text)


# The sizes the chapter uses (tests/test_book_claims.py checks the promised minimums).
CONV_POSITIONS: int | None = None  # None: every symmetry class of the decisive positions
CONV_BUDGETS = (10, 30, 100, 300, 1000)  # playouts per decision, in total
TRAP_BUDGETS = (100, 300, 1000, 3000, 10000)  # playouts per decision, in total
TRAP_TABLE_BUDGET = 3000  # the budget of the table of moves
TRAP_SEEDS = 20  # independent searches per agent and budget


def decisive_classes() -> list[TicTacToe]:
    """One position per symmetry class of the decisive tic-tac-toe positions: the class's
    canonical member (:meth:`TicTacToe.is_canonical`).  The 8 rotations and reflections of a
    position have the same values up to the same symmetry of the moves, so symmetric copies are
    one position counted several times, not independent evidence: the class is the unit."""
    return [
        s for s in decisive_positions(TicTacToe) if isinstance(s, TicTacToe) and s.is_canonical()
    ]


# -- convergence on many positions --------------------------------------------------------------
@dataclass
class Convergence:
    """Per budget: how many of the positions each agent played a best move in, and MCTS's
    error on the root's value, position by position."""

    budgets: list[int]
    positions: int
    decisive: int  # how many decisive positions (symmetric copies counted) there are
    mcts_hits: list[int]
    flat_hits: list[int]
    random_share: float  # the share of best moves a uniformly random move gets, on average
    root_errors: list[list[float]]  # |MCTS root value - exact value| on the [0, 1] scale
    # per budget, per position: 1 if the agent played a best move there (the paired data)
    mcts_best: list[list[int]] = field(default_factory=list)
    flat_best: list[list[int]] = field(default_factory=list)

    @property
    def comparisons(self) -> int:
        """The family the chapter reads from this scan: MCTS against flat MC at every budget,
        and one change of flat MC's share between two budgets."""
        return len(self.budgets) + 1

    @property
    def level(self) -> float:
        """The confidence of each interval, so that the whole family keeps 95% (Bonferroni)."""
        return corrected(self.comparisons)

    def mcts_minus_flat(self, i: int) -> PairedDifference:
        """MCTS's share of best moves minus flat MC's at budget ``i``, paired by position, the
        interval corrected for the family of :attr:`comparisons`."""
        return paired_difference(self.mcts_best[i], self.flat_best[i], self.level)

    def flat_gain(self, i: int, j: int) -> PairedDifference:
        """Flat MC's share at budget ``j`` minus at budget ``i``, paired by position (the one
        change between budgets in the family)."""
        return paired_difference(self.flat_best[j], self.flat_best[i], self.level)

    @property
    def mcts_share(self) -> list[float]:
        return [h / self.positions for h in self.mcts_hits]

    @property
    def flat_share(self) -> list[float]:
        return [h / self.positions for h in self.flat_hits]

    def mcts_interval(self, i: int) -> tuple[float, float]:
        return wilson_interval(self.mcts_share[i], self.positions)

    def flat_interval(self, i: int) -> tuple[float, float]:
        return wilson_interval(self.flat_share[i], self.positions)

    @property
    def root_error(self) -> list[float]:
        return [float(np.mean(e)) for e in self.root_errors]

    @property
    def root_error_halfwidth(self) -> list[float]:
        """Half the width of a 95% interval of each mean error (normal approximation)."""
        return [half_width(float(np.std(e, ddof=1)), len(e)) for e in self.root_errors]


def convergence(
    budgets: Sequence[int] = CONV_BUDGETS,
    positions: int | None = CONV_POSITIONS,
    seed: int = 7,
) -> Convergence:
    """MCTS and flat Monte Carlo (UCB1 over the moves) at equal playouts per decision, on one
    representative of every symmetry class of the decisive tic-tac-toe positions (those whose
    moves differ in game value), or on a seeded sample of ``positions`` of them; every search
    is seeded by the position's index."""
    classes = decisive_classes()
    chosen = classes if positions is None else sample(classes, positions, seed=seed)
    decisive = decisive_positions(TicTacToe)
    values = [move_values(s) for s in chosen]
    random_share = float(
        np.mean(
            [sum(v == max(vals.values()) for v in vals.values()) / len(vals) for vals in values]
        )
    )
    mcts_hits, flat_hits, root_errors = [], [], []
    mcts_best, flat_best = [], []
    for budget in budgets:
        hits_m = hits_f = 0
        errors, best_m, best_f = [], [], []
        for k, (state, vals) in enumerate(zip(chosen, values, strict=True)):
            best = max(vals.values())
            mcts = MCTSAgent(budget, seed=seed + k)
            best_m.append(int(vals[mcts.select_action(state)] == best))
            hits_m += best_m[-1]
            errors.append(abs(root_value(mcts.last_root) - to_unit(exact_value(state))))
            flat = MonteCarloAgent(playouts=budget, policy="ucb1", seed=seed + k)
            best_f.append(int(vals[flat.select_action(state)] == best))
            hits_f += best_f[-1]
        mcts_best.append(best_m)
        flat_best.append(best_f)
        mcts_hits.append(hits_m)
        flat_hits.append(hits_f)
        root_errors.append(errors)
    return Convergence(
        list(budgets),
        len(chosen),
        len(decisive),
        mcts_hits,
        flat_hits,
        random_share,
        root_errors,
        mcts_best,
        flat_best,
    )


def plot_convergence(conv: Convergence):
    """Two panels: the share of best moves per budget (95% Wilson intervals over the
    positions) and MCTS's mean error on the root's value (95% intervals of the mean)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    n = len(conv.budgets)
    for share, interval, label, fmt in (
        (conv.mcts_share, conv.mcts_interval, "MCTS", "o-"),
        (conv.flat_share, conv.flat_interval, "flat Monte Carlo (UCB1)", "s--"),
    ):
        err = error_bars(share, [interval(i) for i in range(n)])
        axes[0].errorbar(conv.budgets, share, yerr=err, fmt=fmt, capsize=4, label=label)
    axes[0].axhline(conv.random_share, color="grey", ls=":", label="a random legal move")
    axes[0].set_ylabel("share of best moves")
    axes[0].set_ylim(0, 1.02)
    axes[0].legend(fontsize=8, loc="lower right")
    axes[1].errorbar(
        conv.budgets, conv.root_error, yerr=conv.root_error_halfwidth, fmt="o-", capsize=4
    )
    axes[1].set_ylabel("mean |root value - exact value|")
    axes[1].set_ylim(0, None)
    for ax, label in zip(axes, ("playouts per decision", "MCTS iterations"), strict=True):
        _log_budgets(ax, conv.budgets)
        ax.set_xlabel(label)
    fig.suptitle(
        f"One position per symmetry class ({conv.positions} classes of {conv.decisive:,} "
        "decisive tic-tac-toe positions), 95% intervals"
    )
    fig.tight_layout()
    return fig


def _log_budgets(ax, budgets: Sequence[int]) -> None:
    """A log axis labelled at the budgets only (no minor labels to collide with them)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.set_xticks(list(budgets), [f"{b:,}" for b in budgets])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


# -- the trap ------------------------------------------------------------------------------------
@cache
def _playout_reward(state: GameState, player: int) -> float:
    if state.is_terminal():
        return (state.returns()[player] + 1) / 2
    actions = state.legal_actions()
    return sum(_playout_reward(state.play(a), player) for a in actions) / len(actions)


def playout_value(state: GameState, action: int) -> float:
    """The exact expected reward, for the player to move in ``state``, of a uniformly random
    playout after ``action`` (win 1, draw 1/2, loss 0): what flat Monte Carlo estimates."""
    return _playout_reward(state.play(action), state.current_player)


def trap_margin(state: GameState) -> float:
    """How far the best random-playout value of a losing move lies above the best
    random-playout value of the moves of the best game value (negative: no trap).  Positions
    where every move loses, or where the top random-playout move does not lose, are no traps."""
    values = move_values(state)
    best = max(values.values())
    losing = [a for a, v in values.items() if v < 0]
    if best < 0 or not losing:
        return -math.inf
    lure = max(playout_value(state, a) for a in losing)
    good = max(playout_value(state, a) for a, v in values.items() if v == best)
    return lure - good


def find_trap(game: type[GameState] = TicTacToe) -> GameState:
    """The decisive position of ``game`` with the largest :func:`trap_margin` (ties: the one
    with most legal moves, then the last by its printed board, so the choice is fixed)."""
    positions = decisive_positions(game)
    return max(positions, key=lambda s: (trap_margin(s), len(s.legal_actions()), str(s)))


@dataclass
class MoveRow:
    """One legal move of the trap position."""

    move: str
    value: int  # game value for the mover: +1 win, 0 draw, -1 loss
    playout_value: float  # exact expected reward of a random playout after it
    flat_mean: float  # flat Monte Carlo's estimate at the table's budget (seed 0)
    flat_low: float  # its 95% Wilson interval
    flat_high: float
    flat_playouts: int
    mcts_visits: int  # MCTS's visits at the table's budget (seed 0)


@dataclass
class TrapResult:
    """What flat Monte Carlo and MCTS make of the trap, budget by budget, over many seeds."""

    state: GameState
    rows: list[MoveRow]
    budgets: list[int]
    seeds: int
    flat_best: list[int]  # per budget: seeds in which flat Monte Carlo played a best move
    flat_ucb1_best: list[int]  # the same for flat Monte Carlo with UCB1
    mcts_best: list[int]  # the same for MCTS
    refutations: dict[str, list[str]]  # losing move: the opponent's replies that win

    @property
    def lure(self) -> MoveRow:
        """The losing move with the highest random-playout value."""
        return max((r for r in self.rows if r.value < 0), key=lambda r: r.playout_value)

    @property
    def best(self) -> list[MoveRow]:
        top = max(r.value for r in self.rows)
        return [r for r in self.rows if r.value == top]

    def share_interval(self, hits: int) -> tuple[float, float]:
        return wilson_interval(hits / self.seeds, self.seeds)

    def table(self):
        """The moves as a Markdown table, best random-playout value first."""
        word = {1: "win", 0: "draw", -1: "loss"}
        n = self.rows[0].flat_playouts
        iterations = sum(r.mcts_visits for r in self.rows)  # every iteration visits one move
        lines = [
            "| move | against best play | random-playout value (exact) | "
            f"flat MC estimate ({n} playouts) | 95% interval | "
            f"MCTS visits ({iterations:,} iterations) |",
            "|---|---|--:|--:|--:|--:|",
        ]
        for r in sorted(self.rows, key=lambda r: -r.playout_value):
            lines.append(
                f"| {r.move} | {word[r.value]} | {r.playout_value:.3f} | "
                f"{r.flat_mean:.3f} | {r.flat_low:.3f} to {r.flat_high:.3f} | "
                f"{r.mcts_visits:,} |"
            )
        return markdown("\n".join(lines))


def _refutations(state: GameState, action: int) -> list[str]:
    """The opponent's replies to ``action`` that win for the opponent."""
    child = state.play(action)
    return [child.action_to_string(a) for a, v in move_values(child).items() if v > 0]


def trap_experiment(
    state: GameState,
    budgets: Sequence[int] = TRAP_BUDGETS,
    seeds: int = TRAP_SEEDS,
    table_budget: int = TRAP_TABLE_BUDGET,
) -> TrapResult:
    """Flat Monte Carlo (equal playouts per move, and UCB1) and MCTS on ``state``: at every
    budget (playouts per decision, in total) and seed, did each play a move of the best game
    value?  The table of moves uses seed 0 at ``table_budget``."""
    values = move_values(state)
    best = max(values.values())
    flat_best, ucb_best, mcts_best = [], [], []
    for budget in budgets:
        flat_best.append(
            sum(
                values[MonteCarloAgent(budget, seed=s).select_action(state)] == best
                for s in range(seeds)
            )
        )
        ucb_best.append(
            sum(
                values[MonteCarloAgent(budget, policy="ucb1", seed=s).select_action(state)] == best
                for s in range(seeds)
            )
        )
        mcts_best.append(
            sum(
                values[MCTSAgent(budget, seed=s).select_action(state)] == best for s in range(seeds)
            )
        )
    flat = MonteCarloAgent(table_budget, seed=0)
    flat.select_action(state)
    mcts = MCTSAgent(table_budget, seed=0)
    mcts.select_action(state)
    rows = []
    for stat in flat.last_stats:
        a = stat["action"]
        low, high = wilson_interval(stat["mean"], stat["visits"])
        child = mcts.last_root.children.get(a)
        rows.append(
            MoveRow(
                stat["move"],
                values[a],
                playout_value(state, a),
                stat["mean"],
                low,
                high,
                stat["visits"],
                child.visits if child else 0,
            )
        )
    refutations = {
        state.action_to_string(a): _refutations(state, a) for a, v in values.items() if v < 0
    }
    return TrapResult(
        state, rows, list(budgets), seeds, flat_best, ucb_best, mcts_best, refutations
    )


def plot_trap(result: TrapResult):
    """Left: flat Monte Carlo's estimate of every move with its 95% interval, the exact
    random-playout value and the move's game value (colour).  Right: the share of seeds in
    which each agent played a best move, per budget, with 95% Wilson intervals."""
    import matplotlib.pyplot as plt

    colour = {1: "#2a9d4a", 0: "#4c72b0", -1: "#d1495b"}
    word = {1: "wins", 0: "draws", -1: "loses"}
    rows = sorted(result.rows, key=lambda r: -r.playout_value)
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.9))
    ax = axes[0]
    xs = range(len(rows))
    err = error_bars([r.flat_mean for r in rows], [(r.flat_low, r.flat_high) for r in rows])
    for x, r, lo, hi in zip(xs, rows, err[0], err[1], strict=True):
        ax.bar(
            x,
            r.flat_mean,
            yerr=[[lo], [hi]],
            capsize=4,
            color=colour[r.value],
            label=f"the move {word[r.value]}",
        )
        ax.plot([x - 0.4, x + 0.4], [r.playout_value] * 2, color="black", lw=1.5)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=8, loc="lower right")
    ax.set_xticks(list(xs), [r.move for r in rows])
    ax.set_ylim(0, 0.75)
    ax.set_ylabel("mean reward for the mover")
    ax.set_title(f"flat MC, {rows[0].flat_playouts} playouts a move (black: exact)", fontsize=10)
    ax = axes[1]
    for hits, label, fmt in (
        (result.mcts_best, "MCTS", "o-"),
        (result.flat_best, "flat MC (equal playouts per move)", "s--"),
        (result.flat_ucb1_best, "flat MC (UCB1)", "^:"),
    ):
        shares = [h / result.seeds for h in hits]
        err = error_bars(shares, [result.share_interval(h) for h in hits])
        ax.errorbar(result.budgets, shares, yerr=err, fmt=fmt, capsize=4, label=label)
    _log_budgets(ax, result.budgets)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("playouts per decision (in total)")
    ax.set_ylabel(f"share of {result.seeds} seeds playing a best move")
    ax.set_title("equal budget: does the agent play a drawing move?", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig
