"""What the search adds to the network, measured on tic-tac-toe's solved positions.

Matches against a perfect player cannot show it: the trained policy alone already holds the
draw there.  Here every position where the choice matters (:class:`mcts_lab.learning.Truth`) is
one unit: each agent picks a move there, and the move is a *mistake* if it is not optimal.  The
agents, all at the same number of iterations and the same exploration constant:

* the network's policy alone (its most probable move, no search);
* PUCT with the network as prior and as the leaves' value (AlphaZero's search);
* PUCT with a uniform prior and the network's value (the prior taken away);
* PUCT with the network's prior and random playouts (the value head taken away);
* PUCT with a uniform prior and random playouts (both taken away).

Each search on position ``k`` is seeded by ``k``, so the agents are paired over the positions
and the table repeats exactly; the differences from AlphaZero's search are paired bootstrap
intervals over the positions, with Holm's correction over the comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcts_course.agents.puct import PUCTAgent, uniform_prior
from mcts_course.learn.network import NetGuide, Predictor
from mcts_course.stats import (
    corrected_confidence,
    paired_interval,
    sign_flip_p_value,
    wilson_interval,
)
from mcts_lab.exact_paired import sign_test_p
from mcts_lab.learning import PolicyAgent, Truth
from mcts_lab.present import Table

POLICY = "network's policy alone"
FULL = "PUCT: net prior + net value"
ARMS = (
    POLICY,
    FULL,
    "PUCT: uniform prior + net value",
    "PUCT: net prior + playouts",
    "PUCT: uniform prior + playouts",
)


def sign_flip_p(a: list[float] | list[int], b: list[float] | list[int]) -> float:
    """The sign-flip p-value of mean(a - b) = 0 over paired units.  Units with no difference
    change nothing whichever sign they get, so only the others are flipped: the same test, far
    cheaper when most positions agree (1.0 when none differ).  For paired 0/1 results (every
    difference +1 or -1) it is exact, the sign test; otherwise 10,000 random sign patterns."""
    differences = [float(x - y) for x, y in zip(a, b, strict=True) if x != y]
    if all(d in (-1.0, 1.0) for d in differences):
        # paired 0/1 results: every sign pattern counted exactly, the sign test
        return sign_test_p(differences.count(1.0), differences.count(-1.0))
    return sign_flip_p_value(differences)


def _choices(truth: Truth) -> list[int]:
    """The indices of the positions where the choice matters."""
    matters: Any = truth.matters
    return [k for k in range(truth.positions) if matters[k]]


def _agent(
    arm: str, guide: NetGuide, predictor: Predictor, iterations: int, seed: int, c: float
) -> Any:
    if arm == POLICY:
        return PolicyAgent(predictor)
    prior = uniform_prior if "uniform prior" in arm else guide.prior
    evaluator = guide if "net value" in arm else None  # None: the random playout
    return PUCTAgent(iterations, c=c, prior=prior, evaluator=evaluator, seed=seed)


@dataclass
class Ablation:
    """Mistakes (1) and optimal moves (0) of each arm, position by position (same order)."""

    iterations: int
    mistakes: dict[str, list[int]]

    @property
    def positions(self) -> int:
        return len(self.mistakes[FULL])

    def rate(self, arm: str) -> float:
        return sum(self.mistakes[arm]) / self.positions

    def interval(self, arm: str) -> tuple[float, float]:
        """95% Wilson interval of the arm's mistake rate over the positions."""
        return wilson_interval(self.rate(arm), self.positions)

    def differences(self) -> dict[str, tuple[float, tuple[float, float], float]]:
        """Each other arm against AlphaZero's search: (difference of mistake rates, its paired
        bootstrap interval, Bonferroni-corrected so that all of them hold together at 95%, and
        the sign-flip p-value, for Holm's correction)."""
        others = [arm for arm in self.mistakes if arm != FULL]
        confidence = corrected_confidence(len(others))
        full = [float(x) for x in self.mistakes[FULL]]
        out = {}
        for arm in others:
            a = [float(x) for x in self.mistakes[arm]]
            out[arm] = (
                self.rate(arm) - self.rate(FULL),
                paired_interval(a, full, confidence=confidence),
                sign_flip_p(a, full),
            )
        return out

    def table(self) -> Table:
        """Each arm's mistakes (count, share, 95% Wilson interval) and its difference from
        AlphaZero's search with the simultaneous paired interval."""
        diffs = self.differences()
        rows = []
        for arm in self.mistakes:
            lo, hi = self.interval(arm)
            d = diffs.get(arm)
            versus = "" if d is None else f"{d[0]:+.2%} ({d[1][0]:+.2%} to {d[1][1]:+.2%})"
            rows.append(
                [arm, sum(self.mistakes[arm]), self.rate(arm), f"{lo:.2%} to {hi:.2%}", versus]
            )
        columns = ["agent", "mistakes", "share", "95% interval", "minus PUCT+net (interval)"]
        return Table(columns, rows, {"share": ".2%"}, right=columns[1:])


def _arm_mistakes(
    arm: str,
    predictor: Predictor,
    iterations: int,
    c: float,
    seeds: list[int],
    states: list[Any],
    optimal: Any,
) -> list[int]:
    """One arm's mistakes (1) on ``states``, the search on ``states[i]`` seeded by
    ``seeds[i]``; ``optimal[i, a]`` says whether move ``a`` is optimal there."""
    guide = NetGuide(predictor)  # one cache of predictions for all the positions
    return [
        int(not optimal[i, _agent(arm, guide, predictor, iterations, seed, c).select_action(state)])
        for i, (seed, state) in enumerate(zip(seeds, states, strict=True))
    ]


def _run(
    tasks: list[tuple[str, Predictor, float]],
    truth: Truth,
    indices: list[int],
    iterations: int,
    seed: int,
    n_jobs: int | None,
) -> list[list[int]]:
    """The mistakes of each (arm, predictor, c) task on the positions ``indices`` of ``truth``,
    the tasks shared among ``n_jobs`` processes (each task is one process's whole job, so the
    results do not depend on how many there are)."""
    from joblib import Parallel, delayed

    states = [truth.states[k] for k in indices]
    optimal = truth.optimal[indices]
    seeds = [seed + k for k in indices]
    return list(
        Parallel(n_jobs=n_jobs)(
            delayed(_arm_mistakes)(arm, predictor, iterations, c, seeds, states, optimal)
            for arm, predictor, c in tasks
        )
    )


def ablation(
    predictor: Predictor,
    truth: Truth,
    iterations: int = 25,
    c: float = 1.0,
    sample: int | None = None,
    seed: int = 0,
    arms: tuple[str, ...] = ARMS,
    n_jobs: int | None = 1,
) -> Ablation:
    """Every arm of ``arms`` (default: all of :data:`ARMS`) on the positions of ``truth`` where
    the choice matters (or a seeded sample of ``sample`` of them), each search on position ``k``
    seeded by ``seed + k``, the arms shared among ``n_jobs`` processes."""
    import random

    indices = _choices(truth)
    if sample is not None:
        indices = sorted(random.Random(seed).sample(indices, sample))
    tasks = [(arm, predictor, c) for arm in arms]
    results = _run(tasks, truth, indices, iterations, seed, n_jobs)
    return Ablation(iterations, dict(zip(arms, results, strict=True)))


def by_generation(
    run: Any, truth: Truth, iterations: int = 25, n_jobs: int | None = 1
) -> dict[int, list[int]]:
    """AlphaZero's search with the network of each generation ``run`` kept: its mistakes on
    every position where the choice matters (seeded as :func:`ablation` seeds them)."""
    generations = sorted(run.snapshots)
    tasks = [(FULL, run.predictor(g), 1.0) for g in generations]
    results = _run(tasks, truth, _choices(truth), iterations, 0, n_jobs)
    return dict(zip(generations, results, strict=True))


def c_scan(
    predictor: Predictor,
    truth: Truth,
    values: tuple[float, ...],
    iterations: int = 25,
    n_jobs: int | None = 1,
) -> dict[float, list[int]]:
    """PUCT with the network at each exploration constant ``c`` of ``values``: its mistakes
    (1) on every position where the choice matters, the search on position ``k`` seeded by ``k``
    (paired over the positions and over the values of ``c``)."""
    tasks = [(FULL, predictor, c) for c in values]
    results = _run(tasks, truth, _choices(truth), iterations, 0, n_jobs)
    return dict(zip(values, results, strict=True))


@dataclass
class Strength:
    """PUCT with the network of each kept generation against a fixed opponent: the
    :class:`~mcts_course.arena.MatchResult` of each generation's match."""

    opponent: str
    iterations: int
    results: dict[int, Any]

    def draw(self, ax: Any) -> None:
        """The scores with their 95% Wilson intervals, by generation, on ``ax``."""
        generations = sorted(self.results)
        scores = [self.results[g].score for g in generations]
        low = [s - self.results[g].interval[0] for g, s in zip(generations, scores, strict=True)]
        high = [self.results[g].interval[1] - s for g, s in zip(generations, scores, strict=True)]
        ax.errorbar(generations, scores, yerr=[low, high], marker="o", capsize=3, gid="strength")
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("generation")
        ax.set_ylabel(f"score against {self.opponent}")
        ax.set_ylim(0, 1)
        ax.set_title(f"PUCT with each generation's network against {self.opponent}")


def match_uct(
    predictor: Predictor, iterations: int, games: int, seed: int, n_jobs: int | None = 1
) -> Any:
    """PUCT with ``predictor`` against UCT, both with ``iterations`` a move, colours alternating:
    the :class:`~mcts_course.arena.MatchResult`."""
    from mcts_course.agents.mcts import MCTSAgent
    from mcts_course.arena import match
    from mcts_course.games import TicTacToe
    from mcts_lab.learning import net_agent

    net, uct = net_agent(predictor, iterations), MCTSAgent(iterations, seed=seed)
    return match(TicTacToe, net, uct, games=games, seed=seed, n_jobs=n_jobs, keep_moves=False)


def strength_curve(
    run: Any, iterations: int = 25, games: int = 200, seed: int = 31, n_jobs: int | None = 1
) -> Strength:
    """PUCT with the network of each generation ``run`` kept (:attr:`LearningRun.snapshots`),
    ``iterations`` a move, against UCT with the same iterations (the same opponent, seeded the
    same way, for every generation), ``games`` games each, colours alternating."""

    results = {
        generation: match_uct(run.predictor(generation), iterations, games, seed, n_jobs)
        for generation in sorted(run.snapshots)
    }
    return Strength(f"UCT({iterations})", iterations, results)
