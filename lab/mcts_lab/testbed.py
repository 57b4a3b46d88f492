"""The k-armed bandit testbed (Sutton and Barto, 2018, chapter 2), vectorised over runs.

Each run is a fresh bandit: ``k`` Bernoulli arms whose win probabilities are drawn uniformly
from [0, 1], like moves whose random playouts are won with unknown probabilities.  A policy
pulls one arm per step for ``steps`` steps; all ``runs`` bandits advance together as numpy
arrays, so a few hundred runs of a few thousand steps take a fraction of a second.

The policies carry the library's names and parameters (:mod:`mcts_course.agents`):
``"uniform"`` (round robin), ``"egreedy"`` (``epsilon``), ``"softmax"`` (``temperature``) and
``"ucb1"`` (``c``); two more, not in the library, for the chapter's comparison with Sutton and
Barto's policies: ``"thompson"`` (Thompson sampling with a uniform Beta prior) and
``"optimistic"`` (greedy on means that start with ``optimism`` imaginary wins).  As in the
library, every arm is pulled once before a policy chooses, and ties go to the smallest arm.
What is recorded at each step, averaged over the runs:

* ``reward``: the reward received (1 or 0);
* ``optimal``: whether the best arm was pulled;
* ``regret``: the cumulative (pseudo-)regret, the sum over the steps so far of
  ``p_best - p_pulled``: what the policy lost, in expectation, by not always pulling the best arm.

Per run, the cumulative regret is also kept at a few steps (``checkpoints``), for intervals.
:func:`run_bandit` is the engine, on arms given by the caller (a win and a draw probability per
arm; draws pay one half, as a drawn playout does): chapter *Flat Monte Carlo* runs it on the
moves of an Othello position (:mod:`mcts_lab.flat`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mcts_course.agents.bandits import EPSILON, SQRT2, TEMPERATURE
from mcts_course.stats import mean_interval

POLICIES = ("uniform", "egreedy", "softmax", "ucb1", "thompson", "optimistic")
OPTIMISM = 5.0  # imaginary wins per arm of the optimistic greedy policy


@dataclass(frozen=True)
class BanditRun:
    """What :func:`run_bandit` measured.  Per-step arrays are averages over the runs; the
    ``at_*`` dictionaries map each checkpoint (a number of steps) to one value per run."""

    label: str
    reward: np.ndarray  # mean reward received at each step
    optimal: np.ndarray  # fraction of runs that pulled the best arm at each step
    regret: np.ndarray  # mean cumulative regret after each step
    runs: int
    at_regret: dict[int, np.ndarray] = field(repr=False)  # cumulative regret, per run
    at_choice: dict[int, np.ndarray] = field(repr=False)  # arm with the best mean, per run
    at_counts: dict[int, np.ndarray] = field(repr=False)  # pulls per arm, (runs, k)

    @property
    def steps(self) -> int:
        return len(self.regret)

    def regret_at(self, step: int) -> float:
        """Mean cumulative regret after ``step`` steps."""
        return float(self.regret[step - 1])

    def regret_interval(self, step: int | None = None) -> tuple[float, float]:
        """95% interval of the mean cumulative regret after ``step`` steps (a checkpoint;
        default the last step)."""
        return mean_interval(self.at_regret[step or self.steps])

    def slope(self, start: int, end: int | None = None) -> float:
        """Regret added per step, on average, from step ``start`` to step ``end``."""
        end = end or self.steps
        return float((self.regret[end - 1] - self.regret[start - 1]) / (end - start))

    def slope_interval(self, start: int, end: int | None = None) -> tuple[float, float]:
        """95% interval of :meth:`slope` (both steps must be checkpoints)."""
        end = end or self.steps
        return mean_interval((self.at_regret[end] - self.at_regret[start]) / (end - start))


TestbedResult = BanditRun  # the name the testbed's results went by


def choose_arms(
    policy: str,
    t: int,
    sums: np.ndarray,
    counts: np.ndarray,
    rng: np.random.Generator,
    c: float,
    epsilon: float,
    temperature: float,
    optimism: float = OPTIMISM,
) -> np.ndarray:
    """The arm each run pulls at step ``t`` (every arm has been pulled at least once)."""
    runs, k = counts.shape
    if policy == "uniform":
        return np.full(runs, t % k)
    means = sums / counts
    if policy == "ucb1":
        # The library's ucb1(wins, visits, parent_visits, c), for every arm of every run at once.
        return np.argmax(means + c * np.sqrt(math.log(t) / counts), axis=1)
    if policy == "egreedy":
        greedy = np.argmax(means, axis=1)
        explore = rng.random(runs) < epsilon
        return np.where(explore, rng.integers(0, k, runs), greedy)
    if policy == "softmax":
        weights = np.exp((means - means.max(axis=1, keepdims=True)) / temperature)
        cumulative = np.cumsum(weights, axis=1)
        draws = rng.random(runs) * cumulative[:, -1]
        return np.minimum((cumulative <= draws[:, None]).sum(axis=1), k - 1)
    if policy == "thompson":
        # One draw from each arm's posterior, Beta(1 + wins, 1 + losses) (a draw counts half
        # each way), and the arm whose draw is highest: an arm is pulled with the posterior
        # probability that it is the best.
        return np.argmax(rng.beta(1 + sums, 1 + counts - sums), axis=1)
    if policy == "optimistic":
        # Greedy, but every arm's mean starts as if it had won `optimism` extra times: an arm
        # pulled rarely keeps a high mean until its own results pull it down.
        return np.argmax((sums + optimism) / (counts + optimism), axis=1)
    raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")


_choose = choose_arms  # the name the testbed's tests knew


def run_bandit(
    win: np.ndarray,
    policy: str,
    *,
    draw: np.ndarray | None = None,
    steps: int = 1000,
    c: float = SQRT2,
    epsilon: float = EPSILON,
    temperature: float = TEMPERATURE,
    checkpoints: Sequence[int] = (),
    seed: int | None = 0,
    label: str | None = None,
    optimism: float = OPTIMISM,
) -> BanditRun:
    """Run ``policy`` for ``steps`` steps on the bandits of ``win`` (runs, k): arm ``i`` of run
    ``r`` pays 1 with probability ``win[r, i]``, 1/2 with probability ``draw[r, i]`` (default
    0), else 0.  Per run, the cumulative regret, the arm with the best mean (ties: the smallest)
    and the pulls per arm are kept after each of ``checkpoints`` steps and after the last."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")
    win = np.atleast_2d(np.asarray(win, dtype=float))
    draw = np.zeros_like(win) if draw is None else np.atleast_2d(np.asarray(draw, dtype=float))
    runs, k = win.shape
    if steps < k:
        raise ValueError(f"steps ({steps}) must be at least k ({k}): every arm is pulled once")
    marks = {int(s) for s in checkpoints if 1 <= s <= steps} | {steps}
    value = win + draw / 2  # each arm's expected reward
    best = value.max(axis=1)
    best_arm = value.argmax(axis=1)
    rng = np.random.default_rng(seed)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k))
    reward, optimal, loss = np.empty(steps), np.empty(steps), np.empty(steps)
    cumulative = np.zeros(runs)
    at_regret, at_choice, at_counts = {}, {}, {}
    rows = np.arange(runs)
    for t in range(steps):
        if t < k:
            arms = np.full(runs, t)  # every arm once, in order
        else:
            arms = choose_arms(policy, t, sums, counts, rng, c, epsilon, temperature, optimism)
        p, d = win[rows, arms], draw[rows, arms]
        u = rng.random(runs)
        r = (u < p) + 0.5 * ((u >= p) & (u < p + d))
        sums[rows, arms] += r
        counts[rows, arms] += 1
        gap = best - value[rows, arms]
        cumulative += gap
        reward[t] = r.mean()
        optimal[t] = np.mean(arms == best_arm)
        loss[t] = gap.mean()
        if t + 1 in marks:
            at_regret[t + 1] = cumulative.copy()
            at_choice[t + 1] = np.argmax(sums / counts, axis=1)
            at_counts[t + 1] = counts.copy()
    name = label or policy_label(policy, c, epsilon, temperature, optimism)
    return BanditRun(name, reward, optimal, np.cumsum(loss), runs, at_regret, at_choice, at_counts)


def run_testbed(
    policy: str,
    *,
    k: int = 10,
    runs: int = 500,
    steps: int = 1000,
    c: float = SQRT2,
    epsilon: float = EPSILON,
    temperature: float = TEMPERATURE,
    checkpoints: Sequence[int] = (),
    seed: int | None = 0,
    label: str | None = None,
    optimism: float = OPTIMISM,
) -> BanditRun:
    """Run ``policy`` on ``runs`` random ``k``-armed Bernoulli bandits for ``steps`` steps.

    The same ``seed`` gives every policy the same bandits (the arm probabilities are drawn
    first, from their own generator), so policies are compared on equal problems.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")
    probs = testbed_problems(runs, k, seed)
    return run_bandit(
        probs,
        policy,
        steps=steps,
        c=c,
        epsilon=epsilon,
        temperature=temperature,
        checkpoints=checkpoints,
        seed=None if seed is None else seed + 1,
        label=label,
        optimism=optimism,
    )


def testbed_problems(runs: int, k: int = 10, seed: int | None = 0) -> np.ndarray:
    """The win probabilities of the testbed's arms, (runs, k), uniform in [0, 1]: the same
    for every policy run with the same ``seed``."""
    return np.random.default_rng(seed).random((runs, k))


def policy_label(
    policy: str,
    c: float = SQRT2,
    epsilon: float = EPSILON,
    temperature: float = TEMPERATURE,
    optimism: float = OPTIMISM,
) -> str:
    """The short name of a policy and its parameter, as tables and figures show it."""
    if policy == "thompson":
        return "Thompson"
    if policy == "optimistic":
        return f"greedy, optimistic m={optimism:g}"
    if policy == "egreedy" and epsilon == 0:
        return "greedy"
    if policy == "egreedy":
        return f"ε-greedy ε={epsilon:g}"
    if policy == "softmax":
        return f"softmax τ={temperature:g}"
    if policy == "ucb1":
        return "UCB1 c=√2" if math.isclose(c, SQRT2) else f"UCB1 c={c:g}"
    return "uniform"


_label = policy_label


def smooth(values: np.ndarray, window: int = 25) -> np.ndarray:
    """A moving average (for plotting noisy per-step curves); same length as ``values``."""
    if window <= 1:
        return values
    kernel = np.ones(window) / window
    padded = np.concatenate([np.full(window - 1, values[0]), values])
    return np.convolve(padded, kernel, mode="valid")


# The regret's unit: the expected reward lost (a win pays 1), summed over the pulls so far.
REGRET_LABEL = "cumulative regret\n(expected wins lost)"


def label_ends(ax, ends: Sequence[tuple[float, float, str, str]], gap: float = 0.055) -> None:
    """Label curves at their right ends: ``ends`` holds (x, y, text, colour); labels closer
    than ``gap`` (a fraction of the y range) are pushed apart so that none overlaps."""
    lo, hi = ax.get_ylim()
    step = gap * (hi - lo)
    placed: list[float] = []
    for x, y, text, colour in sorted(ends, key=lambda e: e[1]):
        at = max(y, placed[-1] + step) if placed else y
        placed.append(at)
        ax.annotate(
            text,
            (x, y),
            xytext=(x, at),
            textcoords="data",
            va="center",
            color=colour,
            fontsize=9,
            xycoords="data",
            annotation_clip=False,
            horizontalalignment="left",
        )


# -- the chapter's experiment --------------------------------------------------------------------

# The policies of chapter "The bandit problem": (policy, parameters, steps); the best-tuned of
# each family, and UCB1 with the analysis' c, run on to the long horizon.
SHORT, LONG = 2000, 20000
SETTINGS: tuple[tuple[str, dict, int], ...] = (
    ("uniform", {}, SHORT),
    ("egreedy", {"epsilon": 0.01}, LONG),
    ("egreedy", {"epsilon": 0.1}, LONG),
    ("egreedy", {"epsilon": 0.3}, SHORT),
    ("softmax", {"temperature": 0.05}, LONG),
    ("softmax", {"temperature": 0.3}, SHORT),
    ("ucb1", {"c": SQRT2}, LONG),
    ("ucb1", {"c": 0.5}, LONG),
)
FAMILIES = (("ε-greedy", "ε-greedy"), ("softmax", "softmax"), ("UCB1", "UCB1"))
COLOURS = ("#1f77b4", "#d62728", "#2ca02c")


@dataclass(frozen=True)
class Testbed:
    """The policies of :data:`SETTINGS` on the same bandits (see :func:`compare_policies`).

    Every policy runs ``short`` steps; some run on to ``long`` steps.  A policy's first
    ``short`` steps are the same whichever its horizon (the same seed, the same draws), so the
    short table and the long one agree where they meet."""

    results: dict[str, BanditRun]  # by label, in the order of the settings
    runs: int
    short: int
    checkpoints: tuple[int, ...]  # where the long runs kept their per-run regret
    problems: np.ndarray = field(repr=False)  # the arms' win probabilities, (runs, k)

    @property
    def average_gap(self) -> float:
        """The mean, over the bandits, of the best arm's probability minus the average arm's:
        what a uniformly random pull loses, in expectation."""
        return float(np.mean(self.problems.max(axis=1) - self.problems.mean(axis=1)))

    @property
    def second_gap(self) -> float:
        """The mean, over the bandits, of the best arm's probability minus the second best's."""
        top = np.sort(self.problems, axis=1)
        return float(np.mean(top[:, -1] - top[:, -2]))

    def __getitem__(self, label: str) -> BanditRun:
        return self.results[label]

    @property
    def long(self) -> dict[str, BanditRun]:
        """The runs that went on beyond ``short`` steps."""
        return {label: r for label, r in self.results.items() if r.steps > self.short}

    def table(self, late: int = 1000) -> object:
        """A Markdown table after ``short`` steps: per policy, the cumulative regret with its
        95% interval, the share of best-arm pulls over the last 100 steps and the regret added
        per step over the last ``late`` steps."""
        from IPython.display import Markdown

        n = self.short
        late = min(late, n // 2)
        lines = [
            f"| policy | regret after {n:,} steps (95% interval) | best arm pulled, steps "
            f"{n - 99:,} to {n:,} | regret per step, steps {n - late + 1:,} to {n:,} |",
            "|---|--:|--:|--:|",
        ]
        for label, r in self.results.items():
            lo, hi = r.regret_interval(n)
            lines.append(
                f"| {label} | {r.regret_at(n):.0f} ({lo:.0f} to {hi:.0f}) | "
                f"{r.optimal[n - 100 : n].mean():.0%} | {r.slope(n - late, n):.3f} |"
            )
        return Markdown("\n".join(lines))

    def figure(self, window: int = 25) -> object:
        """The first ``short`` steps: % best arm pulled (top) and cumulative regret (bottom),
        one column per family of policies, each curve labelled at its end.  Uniform allocation
        is the grey reference of the top row (its regret, in the table, would flatten the
        bottom row)."""
        import matplotlib.pyplot as plt

        n = self.short
        steps = np.arange(1, n + 1)
        fig, axes = plt.subplots(2, 3, figsize=(13, 6.4), sharex=True, sharey="row")
        others = [r for label, r in self.results.items() if label != "uniform"]
        top = max(r.regret_at(n) for r in others)
        uniform = self.results.get("uniform")
        for col, (title, prefix) in enumerate(FAMILIES):
            up, down = axes[0, col], axes[1, col]
            if uniform is not None:
                up.plot(steps, 100 * smooth(uniform.optimal[:n], window), color="#999999", lw=1)
                up.annotate(
                    "uniform",
                    (n, 100 * uniform.optimal[:n].mean()),
                    xytext=(4, 0),
                    textcoords="offset points",
                    va="center",
                    color="#777777",
                    fontsize=9,
                )
            members = [r for r in others if r.label.startswith(prefix)]
            ups, downs = [], []
            for colour, r in zip(COLOURS, members, strict=False):
                name = r.label.split(" ", 1)[1]
                optimal = 100 * smooth(r.optimal[:n], window)
                up.plot(steps, optimal, color=colour, lw=1.3)
                down.plot(steps, r.regret[:n], color=colour, lw=1.6)
                ups.append((n * 1.02, optimal[-1], name, colour))
                downs.append((n * 1.02, r.regret_at(n), name, colour))
            up.set_title(title)
            up.set_ylim(0, 100)
            down.set_xlabel("steps (one pull each)")
            down.set_xlim(0, n * 1.01)  # the labels at the curves' ends lie outside the axes
            down.set_ylim(0, top * 1.08)
            label_ends(up, ups)
            label_ends(down, downs)
        axes[0, 0].set_ylabel(f"% best arm pulled\n(moving average, {window} steps)")
        axes[1, 0].set_ylabel(REGRET_LABEL)
        fig.suptitle(
            f"10-armed Bernoulli testbed: {self.runs} runs, the same bandits for every policy"
        )
        fig.tight_layout()
        return fig

    def long_table(self) -> object:
        """A Markdown table of the long runs: the regret at each checkpoint with its 95%
        interval, and the regret added per step over two stretches (early and late), with their
        intervals."""
        from IPython.display import Markdown

        marks = self.checkpoints
        early, late = (marks[0], marks[1]), (marks[-2], marks[-1])
        head = " | ".join(f"regret after {s:,} steps" for s in marks[1:])
        lines = [
            f"| policy | {head} | regret per step, steps {early[0] + 1:,} to {early[1]:,} | "
            f"steps {late[0] + 1:,} to {late[1]:,} |",
            "|---|" + "--:|" * (len(marks) + 1),
        ]
        for label, r in self.long.items():
            cells = []
            for s in marks[1:]:
                lo, hi = r.regret_interval(s)
                cells.append(f"{r.regret_at(s):.0f} ({lo:.0f} to {hi:.0f})")
            for a, b in (early, late):
                lo, hi = r.slope_interval(a, b)
                cells.append(f"{r.slope(a, b):.4f} ({lo:.4f} to {hi:.4f})")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return Markdown("\n".join(lines))

    def long_figure(self) -> object:
        """Cumulative regret of the long runs against the steps, with 95% intervals at the
        checkpoints, each curve labelled at its end: a linear regret is a straight line, a
        logarithmic one bends over."""
        import matplotlib.pyplot as plt

        colours = ["#1f77b4", "#6baed6", "#d62728", "#2ca02c", "#00441b"]
        fig, ax = plt.subplots(figsize=(8, 4.6))
        end = max(r.steps for r in self.long.values())
        marks = list(self.checkpoints)
        ends = []
        for colour, (label, r) in zip(colours, self.long.items(), strict=False):
            ax.plot(np.arange(1, r.steps + 1), r.regret, color=colour, lw=1.6)
            means = np.array([r.regret_at(s) for s in marks])
            bounds = np.array([r.regret_interval(s) for s in marks])
            ax.errorbar(
                marks,
                means,
                yerr=[means - bounds[:, 0], bounds[:, 1] - means],
                fmt="none",
                ecolor=colour,
                capsize=3,
            )
            ends.append((end * 1.02, r.regret[-1], label, colour))
        ax.set_xlim(0, end * 1.01)  # no tick past the last step: the labels lie outside the axes
        ax.set_ylim(0, max(e[1] for e in ends) * 1.1)
        label_ends(ax, ends)
        ax.set_xlabel("steps (one pull each)")
        ax.set_ylabel(REGRET_LABEL)
        ax.set_title(f"{self.runs} runs of {end:,} steps (bars: 95% intervals)")
        fig.tight_layout()
        return fig


def compare_policies(
    runs: int = 300,
    seed: int = 0,
    settings: Sequence[tuple[str, dict, int]] = SETTINGS,
    short: int = SHORT,
    checkpoints: Sequence[int] = (1000, SHORT, 10000),
    k: int = 10,
) -> Testbed:
    """Every policy of ``settings`` (policy, parameters, steps) on the same ``runs`` random
    bandits; the per-run regret is kept at ``checkpoints`` and at the end of each run."""
    results = {}
    ends = {steps for _, _, steps in settings}
    marks = tuple(sorted({*checkpoints, *ends, short}))
    for policy, kw, steps in settings:
        r = run_testbed(policy, k=k, runs=runs, steps=steps, seed=seed, checkpoints=marks, **kw)
        results[r.label] = r
    longest = max(ends)
    long_marks = tuple(s for s in marks if s <= longest)
    return Testbed(results, runs, short, long_marks, testbed_problems(runs, k, seed))


# -- Sutton and Barto's other policies -----------------------------------------------------------
# Thompson sampling and optimistic initial values (Sutton and Barto, 2018, sections 2.6 and 2.9),
# beside plain greedy and the best UCB1 of the chapter's testbed, on the same bandits.
MORE_SETTINGS: tuple[tuple[str, dict, int], ...] = (
    ("egreedy", {"epsilon": 0.0}, SHORT),
    ("optimistic", {"optimism": OPTIMISM}, SHORT),
    ("thompson", {}, SHORT),
    ("ucb1", {"c": 0.5}, SHORT),
)


def compare_more(runs: int = 300, seed: int = 0) -> Testbed:
    """The policies of :data:`MORE_SETTINGS` on the testbed's bandits (the same ``seed`` gives
    the same bandits as :func:`compare_policies`), ``SHORT`` steps each."""
    return compare_policies(runs, seed, MORE_SETTINGS, checkpoints=(1000, SHORT))
