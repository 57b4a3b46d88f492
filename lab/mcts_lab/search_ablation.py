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
and the table repeats exactly.  The unit of every interval and test is the **symmetry class**
(:meth:`TicTacToe.symmetry_class`), as in chapters 10 and 13: the 8 rotations and reflections
of a position pose the same problem, so its copies are not independent evidence.  A class's
number is the mean of its members' flags (each member searched with its own seed); the
differences from AlphaZero's search are paired bootstrap intervals over the classes, and the
tests exact sign tests over the classes (:func:`class_sign_p`), with Holm's correction over
the comparisons.
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
)
from mcts_lab.exact_paired import sign_test_p
from mcts_lab.learning import PolicyAgent, Truth
from mcts_lab.present import Table, p_text

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


def class_sign_p(a: list[float], b: list[float]) -> float:
    """The exact two-sided sign test over paired units (here the symmetry classes): the units
    where ``a`` is larger against those where ``b`` is, ties left out; 1.0 when none differ."""
    plus = sum(x > y for x, y in zip(a, b, strict=True))
    minus = sum(x < y for x, y in zip(a, b, strict=True))
    return sign_test_p(plus, minus)


def class_rates(flags: list[int], classes: list[Any]) -> list[float]:
    """The mean of ``flags`` within each class of ``classes`` (one label per flag, same
    order): one number per class, the classes in order of first appearance."""
    totals: dict[Any, list[int]] = {}
    for flag, label in zip(flags, classes, strict=True):
        totals.setdefault(label, []).append(flag)
    return [sum(members) / len(members) for members in totals.values()]


def choice_classes(truth: Truth) -> list[Any]:
    """The symmetry class of each position where the choice matters, in :func:`ablation`'s
    order."""
    return [_class_of(truth.states[k]) for k in _choices(truth)]


def _class_of(state: Any) -> Any:
    """The position's symmetry class (tic-tac-toe's :meth:`TicTacToe.symmetry_class`)."""
    return state.symmetry_class()


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
    """Mistakes (1) and optimal moves (0) of each arm, position by position (same order), and
    each position's symmetry class (the unit of the intervals and tests)."""

    iterations: int
    mistakes: dict[str, list[int]]
    classes: list[Any]

    @property
    def positions(self) -> int:
        return len(self.mistakes[FULL])

    @property
    def units(self) -> int:
        """The number of symmetry classes among the positions."""
        return len(set(self.classes))

    def class_rates(self, arm: str) -> list[float]:
        """The arm's mistake rate in each class (the mean over its members)."""
        return class_rates(self.mistakes[arm], self.classes)

    def share(self, arm: str) -> float:
        """The share of the positions (symmetric copies counted) where the arm erred."""
        return sum(self.mistakes[arm]) / self.positions

    def rate(self, arm: str) -> float:
        """The arm's mistake rate with the class as the unit: the mean of the class rates."""
        rates = self.class_rates(arm)
        return sum(rates) / len(rates)

    def classes_with_mistakes(self, arm: str) -> int:
        return sum(r > 0 for r in self.class_rates(arm))

    def differences(self) -> dict[str, tuple[float, tuple[float, float], float]]:
        """Each other arm against AlphaZero's search, over the classes: (difference of the mean
        class rates, its paired bootstrap interval, Bonferroni-corrected so that all of them
        hold together at 95%, and the exact sign test's p-value, for Holm's correction)."""
        others = [arm for arm in self.mistakes if arm != FULL]
        confidence = corrected_confidence(len(others))
        full = self.class_rates(FULL)
        out = {}
        for arm in others:
            a = self.class_rates(arm)
            out[arm] = (
                self.rate(arm) - self.rate(FULL),
                paired_interval(a, full, confidence=confidence),
                class_sign_p(a, full),
            )
        return out

    def table(self) -> Table:
        """Each arm's mistakes (searches and classes) and its difference from AlphaZero's
        search over the classes, with the simultaneous paired interval and the sign test."""
        diffs = self.differences()
        level = corrected_confidence(len(diffs))
        rows = []
        for arm in self.mistakes:
            d = diffs.get(arm)
            versus = "" if d is None else f"{d[0]:+.2%} ({d[1][0]:+.2%} to {d[1][1]:+.2%})"
            rows.append(
                [
                    arm,
                    sum(self.mistakes[arm]),
                    self.classes_with_mistakes(arm),
                    self.rate(arm),
                    versus,
                    "" if d is None else p_text(d[2]),
                ]
            )
        columns = [
            "agent",
            "mistakes (positions)",
            "classes with a mistake",
            "rate over classes",
            f"minus PUCT+net ({level:.2%} interval)",
            "sign test p",
        ]
        return Table(columns, rows, {"rate over classes": ".2%"}, right=columns[1:])


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
    classes = [_class_of(truth.states[k]) for k in indices]
    return Ablation(iterations, dict(zip(arms, results, strict=True)), classes)


def by_generation(
    run: Any, truth: Truth, iterations: int = 25, n_jobs: int | None = 1, arm: str = FULL
) -> dict[int, list[int]]:
    """``arm`` (by default AlphaZero's search) with the network of each generation ``run``
    kept: its mistakes on every position where the choice matters (seeded as
    :func:`ablation` seeds them)."""
    generations = sorted(run.snapshots)
    tasks = [(arm, run.predictor(g), 1.0) for g in generations]
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
