"""The k-armed bandit testbed (Sutton and Barto, 2018, chapter 2), vectorised over runs.

Each run is a fresh bandit: ``k`` Bernoulli arms whose win probabilities are drawn uniformly
from [0, 1], like moves whose random playouts are won with unknown probabilities.  A policy
pulls one arm per step for ``steps`` steps; all ``runs`` bandits advance together as numpy
arrays, so a few hundred runs of a few thousand steps take a fraction of a second.

The policies carry the library's names and parameters (:mod:`mcts_course.agents`):
``"uniform"`` (round robin), ``"egreedy"`` (``epsilon``), ``"softmax"`` (``temperature``) and
``"ucb1"`` (``c``).  As in the library, every arm is pulled once before a policy chooses, and
ties go to the smallest arm.  What is recorded at each step, averaged over the runs:

* ``reward``: the reward received (1 or 0);
* ``optimal``: whether the best arm was pulled;
* ``regret``: the cumulative (pseudo-)regret, the sum over the steps so far of
  ``p_best - p_pulled``: what the policy lost, in expectation, by not always pulling the best arm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

POLICIES = ("uniform", "egreedy", "softmax", "ucb1")


@dataclass(frozen=True)
class TestbedResult:
    """Per-step averages over the runs (arrays of length ``steps``)."""

    label: str
    reward: np.ndarray  # mean reward received at each step
    optimal: np.ndarray  # fraction of runs that pulled the best arm at each step
    regret: np.ndarray  # mean cumulative regret after each step
    runs: int


def _choose(
    policy: str,
    t: int,
    sums: np.ndarray,
    counts: np.ndarray,
    rng: np.random.Generator,
    c: float,
    epsilon: float,
    temperature: float,
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
    raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")


def run_testbed(
    policy: str,
    *,
    k: int = 10,
    runs: int = 500,
    steps: int = 1000,
    c: float = math.sqrt(2),
    epsilon: float = 0.1,
    temperature: float = 0.1,
    seed: int | None = 0,
    label: str | None = None,
) -> TestbedResult:
    """Run ``policy`` on ``runs`` random ``k``-armed Bernoulli bandits for ``steps`` steps.

    The same ``seed`` gives every policy the same bandits (the arm probabilities are drawn
    first, from their own generator), so policies are compared on equal problems.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of: {', '.join(POLICIES)}")
    if steps < k:
        raise ValueError(f"steps ({steps}) must be at least k ({k}): every arm is pulled once")
    problems = np.random.default_rng(seed)
    probs = problems.random((runs, k))
    best = probs.max(axis=1)
    best_arm = probs.argmax(axis=1)
    rng = np.random.default_rng(None if seed is None else seed + 1)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k))
    reward = np.empty(steps)
    optimal = np.empty(steps)
    loss = np.empty(steps)
    rows = np.arange(runs)
    for t in range(steps):
        if t < k:
            arms = np.full(runs, t)  # every arm once, in order
        else:
            arms = _choose(policy, t, sums, counts, rng, c, epsilon, temperature)
        p = probs[rows, arms]
        r = (rng.random(runs) < p).astype(float)
        sums[rows, arms] += r
        counts[rows, arms] += 1
        reward[t] = r.mean()
        optimal[t] = np.mean(arms == best_arm)
        loss[t] = np.mean(best - p)
    name = label or _label(policy, c, epsilon, temperature)
    return TestbedResult(name, reward, optimal, np.cumsum(loss), runs)


def _label(policy: str, c: float, epsilon: float, temperature: float) -> str:
    if policy == "egreedy":
        return f"ε-greedy ε={epsilon:g}"
    if policy == "softmax":
        return f"softmax temperature={temperature:g}"
    if policy == "ucb1":
        return f"UCB1 c={c:.2g}"
    return "uniform"


def smooth(values: np.ndarray, window: int = 25) -> np.ndarray:
    """A moving average (for plotting noisy per-step curves); same length as ``values``."""
    if window <= 1:
        return values
    kernel = np.ones(window) / window
    padded = np.concatenate([np.full(window - 1, values[0]), values])
    return np.convolve(padded, kernel, mode="valid")
