"""Experiments of chapter *Flat Monte Carlo*: playout estimates and where the playouts go.

* :func:`running_estimates`: the running win rate of a few moves as playouts accumulate (how
  slowly a Monte Carlo estimate settles);
* :func:`playout_values`: each move's win, draw and loss rates under random playouts, measured
  with many batched playouts (``Othello.rollouts``), with 95% intervals;
* :func:`allocation`: flat Monte Carlo's choice of where the next playout goes, run many times
  on a bandit whose arms *are* the moves of a position (each pull draws a win, draw or loss
  with the move's measured rates): for each allocation policy and budget, how often the move
  with the best playout value is chosen at the end, the simple regret (what the chosen move's
  value lacks of the best one) and the cumulative regret (what the playouts spent on the other
  moves lacked).  Playouts are independent draws, so this *is* flat Monte Carlo on that
  position, thousands of times over, at the cost of a bandit simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mcts_course.agents.bandits import SQRT2
from mcts_course.stats import half_width, mean_interval, wilson_interval
from mcts_lab.present import span
from mcts_lab.testbed import BanditRun, policy_label, run_bandit


def _mover_rewards(state, action: int, n: int, seed: int) -> np.ndarray:
    """Rewards (1, 0.5, 0) for the player to move in ``state`` of ``n`` batched random
    playouts after ``action``."""
    returns = state.play(action).rollouts(n, seed=seed)  # player 0's return of each playout
    mine = returns if state.current_player == 0 else -returns
    return (mine + 1) / 2


@dataclass(frozen=True)
class Running:
    """The running estimate of each move's win rate after 1, 2, ..., ``n`` playouts."""

    mover: str
    moves: list[str]
    estimates: np.ndarray  # (moves, n)

    def figure(self) -> object:
        """The running estimates on a log scale of playouts, with the ±1/√n band (the widest
        95% margin of an estimate after n playouts) around the final value of each."""
        import matplotlib.pyplot as plt

        n = self.estimates.shape[1]
        x = np.arange(1, n + 1)
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for i, move in enumerate(self.moves):
            ax.semilogx(x, self.estimates[i], label=move, color=f"C{i}")
        ax.fill_between(
            x,
            0.5 - 1 / np.sqrt(x),
            0.5 + 1 / np.sqrt(x),
            color="#dddddd",
            zorder=0,
            label="0.5 ± 1/√n",
        )
        ax.set_xlabel("playouts")
        ax.set_ylabel(f"estimated win rate for {self.mover}")
        ax.set_ylim(0, 1)
        ax.set_title(f"Monte Carlo estimates settle slowly ({self.mover} to move)")
        ax.legend(title="move", fontsize=8)
        fig.tight_layout()
        return fig


def running_estimates(state, actions: Sequence[int], n: int = 4000, seed: int = 0) -> Running:
    """The running win rate, for the player to move, of ``n`` random playouts after each of
    ``actions`` (Othello: batched playouts)."""
    rows = []
    for i, action in enumerate(actions):
        wins = _mover_rewards(state, action, n, seed + i)
        rows.append(np.cumsum(wins) / np.arange(1, n + 1))
    return Running(
        state.PLAYER_NAMES[state.current_player],
        [state.action_to_string(a) for a in actions],
        np.array(rows),
    )


@dataclass(frozen=True)
class MoveValues:
    """Each move's outcomes under random playouts, for the player to move."""

    mover: str
    actions: list[int]
    moves: list[str]
    win: np.ndarray  # share of playouts won, per move
    draw: np.ndarray  # share drawn
    playouts: int  # per move
    spread: np.ndarray  # standard deviation of the reward (1, 0.5, 0) of one playout, per move

    @property
    def value(self) -> np.ndarray:
        """The expected reward of a playout after each move (a draw counts one half)."""
        return self.win + self.draw / 2

    @property
    def best(self) -> int:
        """Index of the move with the highest playout value."""
        return int(np.argmax(self.value))

    def interval(self, i: int) -> tuple[float, float]:
        """95% interval of move ``i``'s playout value."""
        half = half_width(self.spread[i], self.playouts)
        return float(self.value[i] - half), float(self.value[i] + half)

    def runner_up(self) -> int:
        """Index of the second-best move."""
        return int(np.argsort(-self.value, kind="stable")[1])

    def gap(self, i: int) -> float:
        """How far move ``i``'s value lies below the best."""
        return float(self.value[self.best] - self.value[i])

    def table(self) -> object:
        """A Markdown table: per move, the shares of its playouts won, drawn and lost (they add
        up to 100%), its playout value (won + drawn / 2) with the 95% interval, and how far it
        lies below the best move."""
        from IPython.display import Markdown

        lines = [
            f"| move | won | drawn | lost | playout value for {self.mover}, won + drawn / 2 "
            "(95% interval) | below the best |",
            "|---|--:|--:|--:|--:|--:|",
        ]
        for i in np.argsort(-self.value, kind="stable"):
            lo, hi = self.interval(int(i))
            # the printed shares add up to 100.0%: lost is what the rounded won and drawn leave
            won, drawn = round(100 * self.win[i], 1), round(100 * self.draw[i], 1)
            lines.append(
                f"| {self.moves[i]} | {won:.1f}% | {drawn:.1f}% | {100 - won - drawn:.1f}% | "
                f"{self.value[i]:.3f} ({lo:.3f} to {hi:.3f}) | {self.gap(int(i)):.3f} |"
            )
        return Markdown("\n".join(lines))


def playout_values(state, playouts: int = 20000, seed: int = 0) -> MoveValues:
    """Each legal move's win and draw rates for the player to move, from ``playouts`` random
    playouts per move (batched: ``state`` must offer ``rollouts``, as Othello does)."""
    actions = list(state.legal_actions())
    win, draw, spread = [], [], []
    for i, action in enumerate(actions):
        r = _mover_rewards(state, action, playouts, seed + i)
        win.append(float(np.mean(r == 1)))
        draw.append(float(np.mean(r == 0.5)))
        spread.append(float(r.std(ddof=1)))
    return MoveValues(
        state.PLAYER_NAMES[state.current_player],
        actions,
        [state.action_to_string(a) for a in actions],
        np.array(win),
        np.array(draw),
        playouts,
        np.array(spread),
    )


# The allocation policies compared at the root: uniform (the default agent), UCB1 with the
# analysis' constant, and a greedier UCB1 (a smaller c: less exploration, less cumulative regret).
POLICIES: tuple[tuple[str, dict], ...] = (
    ("uniform", {}),
    ("ucb1", {"c": SQRT2}),
    ("ucb1", {"c": 0.5}),
)
BUDGETS = (60, 200, 600, 2000, 6000)


@dataclass(frozen=True)
class Allocation:
    """Flat Monte Carlo on one position, ``runs`` times per policy (see :func:`allocation`)."""

    values: MoveValues
    results: dict[str, BanditRun]  # by policy label
    budgets: tuple[int, ...]
    runs: int

    def __getitem__(self, label: str) -> BanditRun:
        return self.results[label]

    def p_best(self, label: str, budget: int) -> float:
        """How often the move with the best playout value was chosen after ``budget``."""
        return float(np.mean(self.results[label].at_choice[budget] == self.values.best))

    def p_best_interval(self, label: str, budget: int) -> tuple[float, float]:
        """95% Wilson interval of :meth:`p_best`."""
        return wilson_interval(self.p_best(label, budget), self.runs)

    def _simple(self, label: str, budget: int) -> np.ndarray:
        chosen = self.results[label].at_choice[budget]
        return self.values.value[self.values.best] - self.values.value[chosen]

    def simple_regret(self, label: str, budget: int) -> float:
        """Mean simple regret: how far the chosen move's playout value lies below the best."""
        return float(self._simple(label, budget).mean())

    def simple_interval(self, label: str, budget: int) -> tuple[float, float]:
        """95% interval of :meth:`simple_regret`."""
        return mean_interval(self._simple(label, budget))

    def cumulative(self, label: str, budget: int) -> float:
        """Mean cumulative regret per playout: what the average playout lost against one
        spent on the best move (the average reward's shortfall)."""
        return float(self.results[label].at_regret[budget].mean() / budget)

    def cumulative_interval(self, label: str, budget: int) -> tuple[float, float]:
        """95% normal interval of :meth:`cumulative` over the runs."""
        return mean_interval(self.results[label].at_regret[budget] / budget)

    def best_share(self, label: str, budget: int) -> float:
        """Mean share of the budget spent on the best move."""
        counts = self.results[label].at_counts[budget]
        return float(np.mean(counts[:, self.values.best]) / budget)

    def difference(self, label: str, budget: int, baseline: str = "uniform") -> float:
        """How much more often ``label`` chose the best move than ``baseline`` did."""
        return self.p_best(label, budget) - self.p_best(baseline, budget)

    def difference_interval(
        self, label: str, budget: int, baseline: str = "uniform"
    ) -> tuple[float, float]:
        """95% interval of :meth:`difference` (Newcombe's method, independent runs)."""
        from mcts_course.stats import difference_interval

        return difference_interval(
            self.p_best(label, budget), self.runs, self.p_best(baseline, budget), self.runs
        )

    def found(self, label: str, budget: int) -> np.ndarray:
        """Per run, 1 if ``label`` chose the move with the best playout value after ``budget``."""
        return (self.results[label].at_choice[budget] == self.values.best).astype(float)

    def scan_confidence(self) -> float:
        """The confidence of each budget's interval so that the whole scan keeps 95%."""
        from mcts_course.stats import corrected_confidence

        return corrected_confidence(len(self.budgets))

    def paired_interval(
        self, label: str, budget: int, baseline: str = "uniform", confidence: float | None = None
    ) -> tuple[float, float]:
        """Bootstrap interval of :meth:`difference` over the runs, run i of ``label`` paired with
        run i of ``baseline`` (the same seed); by default at :meth:`scan_confidence`."""
        from mcts_course.stats import paired_interval

        level = self.scan_confidence() if confidence is None else confidence
        return paired_interval(self.found(label, budget), self.found(baseline, budget), level)

    def p_values(self, label: str, baseline: str = "uniform") -> dict[int, float]:
        """Per budget, the sign-flip p-value of "``label`` and ``baseline`` find the best move
        equally often" (uncorrected: give them to Holm's correction)."""
        from mcts_course.stats import sign_flip_p_value

        return {
            n: sign_flip_p_value(self.found(label, n) - self.found(baseline, n))
            for n in self.budgets
        }

    def table(self, versus: str = "UCB1 c=√2") -> object:
        """A Markdown table, one row per budget: how often each policy chose the move with the
        best playout value (95% Wilson interval), and the difference ``versus`` minus uniform in
        percentage points, with its interval over the runs (run i of each rule from the same
        seed), Bonferroni-corrected over the budgets."""
        from IPython.display import Markdown

        labels = list(self.results)
        best = self.values.moves[self.values.best]
        head = " | ".join(f"{label}: {best} chosen (95% interval)" for label in labels)
        lines = [
            f"| playouts per decision | {head} | {versus} minus uniform, points "
            f"({self.scan_confidence():.0%} interval, runs matched by seed) |",
            "|--:|" + "--:|" * (len(labels) + 1),
        ]
        for n in self.budgets:
            cells = []
            for label in labels:
                lo, hi = self.p_best_interval(label, n)
                cells.append(f"{self.p_best(label, n):.1%} ({span(lo, hi)})")
            lo, hi = self.paired_interval(versus, n)
            cells.append(
                # Two decimals: an interval end between 0 and 0.05 points must not print as 0.0.
                f"{100 * self.difference(versus, n):+.2f} points "
                f"({100 * lo:+.2f} to {100 * hi:+.2f})"
            )
            lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
        return Markdown("\n".join(lines))

    def spending_table(self) -> object:
        """A Markdown table, one row per budget: the mean share of the playouts each policy
        spent on the move with the best playout value (uniform allocation: one move's share)."""
        from IPython.display import Markdown

        labels = list(self.results)
        best = self.values.moves[self.values.best]
        head = " | ".join(f"{label}: playouts on {best}" for label in labels)
        lines = [f"| playouts per decision | {head} |", "|--:|" + "--:|" * len(labels)]
        for n in self.budgets:
            cells = [f"{self.best_share(label, n):.1%}" for label in labels]
            lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
        return Markdown("\n".join(lines))

    def figure(self) -> object:
        """Left: the simple regret (the chosen move's shortfall); right: the cumulative regret
        per playout; both with 95% intervals, against the budget, one line per policy."""
        import matplotlib.pyplot as plt

        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.9))
        for i, label in enumerate(self.results):
            simple = np.array([self.simple_regret(label, n) for n in self.budgets])
            bounds = np.array([self.simple_interval(label, n) for n in self.budgets])
            left.errorbar(
                self.budgets,
                simple,
                yerr=[simple - bounds[:, 0], bounds[:, 1] - simple],
                marker="o",
                capsize=3,
                color=f"C{i}",
                label=label,
            )
            cumulative = np.array([self.cumulative(label, n) for n in self.budgets])
            spread = np.array([self.cumulative_interval(label, n) for n in self.budgets])
            right.errorbar(
                self.budgets,
                cumulative,
                # clipped at 0: uniform allocation's regret has no spread, and rounding may
                # leave its interval a hair inside the mean
                yerr=np.maximum(0, [cumulative - spread[:, 0], spread[:, 1] - cumulative]),
                marker="o",
                capsize=3,
                color=f"C{i}",
                label=label,
            )
        for ax in (left, right):
            ax.set_xscale("log")
            ax.set_xticks(self.budgets, [f"{n:,}" for n in self.budgets])
            ax.minorticks_off()
            ax.set_xlabel("playouts for the decision, in total")
            ax.set_ylim(0, None)
            ax.legend(fontsize=8)
        left.set_ylabel("best value minus chosen move's")
        left.set_title("simple regret: the move chosen at the end")
        right.set_ylabel("best value minus mean playout's")
        right.set_title("cumulative regret per playout: the playouts spent")
        fig.tight_layout()
        return fig


def allocation(
    values: MoveValues,
    budgets: Sequence[int] = BUDGETS,
    runs: int = 5000,
    seed: int = 0,
    policies: Sequence[tuple[str, dict]] = POLICIES,
) -> Allocation:
    """Flat Monte Carlo ``runs`` times per policy on a bandit whose arms have the win and draw
    rates of ``values``; the move chosen (the best mean, ties to the smallest), the regret and
    the playouts per move are kept after each of ``budgets`` playouts."""
    k = len(values.moves)
    win = np.tile(values.win, (runs, 1))
    draw = np.tile(values.draw, (runs, 1))
    results = {}
    for policy, kw in policies:
        label = policy_label(policy, **kw)
        results[label] = run_bandit(
            win,
            policy,
            draw=draw,
            steps=max(max(budgets), k),
            checkpoints=budgets,
            seed=seed,
            label=label,
            **kw,
        )
    return Allocation(values, results, tuple(budgets), runs)


@dataclass(frozen=True)
class Spread:
    """Where one decision's playouts went, for the real agent with each policy."""

    moves: list[str]
    budget: int
    visits: dict[str, list[int]]  # per policy label, playouts per move
    means: dict[str, list[float]]  # per policy label, mean reward per move
    chosen: dict[str, str]  # per policy label, the move played

    def figure(self, mover: str = "the player to move") -> object:
        """Playouts per move (left) and mean reward per move (right), a bar per policy."""
        import matplotlib.pyplot as plt

        x = np.arange(len(self.moves))
        width = 0.8 / len(self.visits)
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for i, label in enumerate(self.visits):
            offset = (i - (len(self.visits) - 1) / 2) * width
            axes[0].bar(x + offset, self.visits[label], width, label=label, color=f"C{i}")
            axes[1].bar(x + offset, self.means[label], width, label=label, color=f"C{i}")
        axes[0].set_ylabel("playouts")
        axes[1].set_ylabel(f"mean reward for {mover}")
        axes[1].set_ylim(0, 1)
        for ax in axes:
            ax.set_xticks(x, self.moves)
            ax.set_xlabel("move")
            ax.legend(fontsize=8)
        fig.suptitle(f"Where {self.budget:,} playouts go (one decision, the real agent)")
        fig.tight_layout()
        return fig


def spread(
    state, budget: int, seed: int = 0, policies: Sequence[tuple[str, dict]] = POLICIES[:2]
) -> Spread:
    """One decision of ``MonteCarloAgent(playouts=budget, policy=...)`` per policy, from
    ``state``: the playouts and mean reward of every move, and the move played."""
    from mcts_course.agents import MonteCarloAgent

    visits, means, chosen = {}, {}, {}
    moves: list[str] = []
    for policy, kw in policies:
        label = policy_label(policy, **kw)
        agent = MonteCarloAgent(playouts=budget, policy=policy, seed=seed, **kw)
        chosen[label] = state.action_to_string(agent.select_action(state))
        moves = [row["move"] for row in agent.last_stats]
        visits[label] = [row["visits"] for row in agent.last_stats]
        means[label] = [row["mean"] for row in agent.last_stats]
    return Spread(moves, budget, visits, means, chosen)


# The flat Monte Carlo page of the earlier course material: wins and losses in 100 games of its
# flat Monte Carlo (playouts per decision, in total) against its minimax of depth 2.
EARLIER_REPORTED = {20: (25, 74), 200: (28, 69)}


@dataclass(frozen=True)
class Earlier:
    """The earlier page's two matches replayed under its rules, and reruns against the two
    minimax variants its course material suggests (see :func:`earlier_matches`)."""

    ours: dict[int, object]  # budget -> MatchResult against minimax depth 2
    reruns: dict[int, dict[str, object]]  # budget -> variant -> MatchResult
    reported: dict[int, tuple[int, int]]

    def reported_score(self, budget: int) -> float:
        from mcts_lab.present import reported_score

        return reported_score(*self.reported[budget])

    def inside(self, result, budget: int) -> bool:
        """Does the earlier page's score for ``budget`` lie in ``result``'s 95% interval?"""
        lo, hi = result.interval
        return bool(lo <= self.reported_score(budget) <= hi)

    def difference(self, result, budget: int, confidence: float = 0.95) -> tuple[float, float]:
        """The two-sample interval of ``result``'s score minus the earlier page's for ``budget``
        (our games and their 100 are independent samples)."""
        from mcts_lab.present import versus_reported

        return versus_reported(result, *self.reported[budget], confidence)

    def table(self, confidence: float = 0.95) -> object:
        """A Markdown table: each match (ours, then the reruns), our score with its 95%
        interval, the earlier page's score, and ours minus theirs with its two-sample interval
        at ``confidence`` (the section's Bonferroni level)."""
        from IPython.display import Markdown

        lines = [
            "| flat MC (playouts in total) | opponent | games | our score (95% interval) | "
            f"earlier page (won-lost) | ours − earlier ({confidence:.1%} interval) |",
            "|--:|---|--:|--:|--:|--:|",
        ]
        for budget, result in self.ours.items():
            rows = [("minimax depth 2", result), *self.reruns.get(budget, {}).items()]
            wins, losses = self.reported[budget]
            theirs = self.reported_score(budget)
            for opponent, r in rows:
                lo, hi = r.interval
                d_lo, d_hi = self.difference(r, budget, confidence)
                lines.append(
                    f"| {budget} | {opponent} | {r.games} | {r.score:.1%} ({span(lo, hi)}) "
                    f"| {theirs:.1%} ({wins}-{losses}) | "
                    f"{r.score - theirs:+.1%} ({span(d_lo, d_hi, signed=True)}) |"
                )
        return Markdown("\n".join(lines))


def earlier_matches(
    games: int = 100, rerun_games: int = 30, n_jobs: int | None = None, seed: int = 53
) -> Earlier:
    """The earlier page's matches (flat Monte Carlo with 20 and 200 playouts per decision in
    total, playouts of 21 plies scored by the disc count, against minimax of depth 2), then
    each rerun against minimax counting discs and against the lecture notes' minimax that
    looks 3 plies ahead."""
    from mcts_course.agents import MinimaxAgent
    from mcts_course.arena import match
    from mcts_course.games import Othello
    from mcts_lab.earlier import disc_count_minimax, earlier_flat, lecture_minimax

    variants = {
        "minimax 2, counting discs": disc_count_minimax,
        "minimax, 3 plies": lecture_minimax,
    }
    ours, reruns = {}, {}
    for k, budget in enumerate(EARLIER_REPORTED):
        ours[budget] = match(
            Othello,
            earlier_flat(budget),
            MinimaxAgent(depth=2),
            games=games,
            seed=seed + k,
            n_jobs=n_jobs,
            progress=False,
        )
        reruns[budget] = {
            name: match(
                Othello,
                earlier_flat(budget),
                make(),
                games=rerun_games,
                seed=seed + 2 + 10 * k + j,
                n_jobs=n_jobs,
                progress=False,
            )
            for j, (name, make) in enumerate(variants.items())
        }
    return Earlier(ours, reruns, dict(EARLIER_REPORTED))
