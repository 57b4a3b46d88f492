"""Parallel search measured: iterations per second on two cores, and strength.

Three measurements, each of the agents of :mod:`mcts_course.agents.parallel`:

* :func:`iteration_rates`: how many iterations one search, root parallelization (2 processes) and
  tree parallelization (2 threads) run in the same time per move, the three taking turns on the
  same positions (so that a busy moment of the machine falls on all three alike), with the
  speedup of each over one search for every turn;
* :func:`lock_share`: which share of an iteration's time tree parallelization spends under its
  lock, and so what threads that truly ran at once could gain at most (Amdahl's law);
* :func:`equal_time_match` and :func:`equal_budget_match`: root parallelization against one
  search at equal time per move (games one after the other, so that each agent's workers have
  the cores to themselves) and at an equal total number of iterations (what splitting one tree
  into independent ones costs; deterministic, so the arena may play the games in parallel).
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from mcts_course.agents import MCTSAgent, make_agent, with_params
from mcts_course.agents.mcts import Node
from mcts_course.agents.parallel import TreeParallelAgent
from mcts_course.arena import MatchResult, match
from mcts_course.games import GameState
from mcts_lab import N_JOBS
from mcts_lab.present import Table, game_title, span

SINGLE, ROOT, TREE = "one search", "root, 2 processes", "tree, 2 threads"


def specs(time_limit: float, workers: int = 2) -> dict[str, str]:
    """The three agents at ``time_limit`` seconds per move."""
    base = with_params("mcts", time_limit=time_limit)
    return {
        SINGLE: base,
        ROOT: with_params(base, workers=workers, parallel="root"),
        TREE: with_params(base, workers=workers, parallel="tree"),
    }


@dataclass
class Rates:
    """Iterations per second (wall clock) of each agent, one entry per turn (repeat × position),
    and the root-parallel moves' overhead: their wall time minus the time limit."""

    game: str
    time_limit: float
    rates: dict[str, list[float]]
    overheads: list[float] = field(default_factory=list)

    def speedups(self, label: str) -> list[float]:
        """Per turn: ``label``'s rate over one search's rate in the same turn."""
        return [r / s for r, s in zip(self.rates[label], self.rates[SINGLE], strict=True)]

    def median_speedup(self, label: str) -> float:
        return statistics.median(self.speedups(label))

    def middle_half(self, label: str) -> tuple[float, float]:
        """The quartiles of ``label``'s speedups: half of the turns lie between them.  (Not the
        smallest and largest: one turn in which the machine paused a search can be off by a
        factor of ten, and says nothing about the method.)"""
        low, _, high = statistics.quantiles(self.speedups(label), n=4, method="inclusive")
        return low, high

    @property
    def overhead(self) -> float:
        """The median extra wall time of a root-parallel move, in seconds."""
        return statistics.median(self.overheads)


def rates_table(measured: list[Rates]) -> Table:
    """One row per game and agent: the median rate, and the speedup over one search (median, and
    the quartiles over the turns)."""
    rows = []
    for rates in measured:
        for label, values in rates.rates.items():
            low, high = rates.middle_half(label)
            rows.append(
                [
                    game_title(rates.game),
                    f"{rates.time_limit:g} s",
                    label,
                    statistics.median(values),
                    rates.median_speedup(label),
                    f"{low:.2f} to {high:.2f}",
                ]
            )
    rate, median, middle = (
        "iterations per second (median)",
        "speedup (median)",
        "speedup (middle half of the turns)",
    )
    return Table(
        ["game", "time per move", "search", rate, median, middle],
        rows,
        {rate: ",.0f", median: ".2f"},
        right=["time per move", rate, median, middle],
    )


def iteration_rates(
    states: list[GameState], time_limit: float = 0.1, repeats: int = 3, workers: int = 2
) -> Rates:
    """Every agent of :func:`specs` searches each of ``states`` (positions of one game) for
    ``time_limit`` seconds, the
    agents taking turns, ``repeats`` times; the rate is the iterations over the wall time of the
    whole search (the root-parallel dispatch included).  The worker processes are started
    before, and that start is not counted."""
    agents = {label: make_agent(spec, seed=1) for label, spec in specs(time_limit, workers).items()}
    for _ in range(2):  # start the pool's processes (once per session) and settle them: untimed
        agents[ROOT].search(states[0])  # type: ignore[attr-defined]
    rates: dict[str, list[float]] = {label: [] for label in agents}
    overheads = []
    try:
        for _ in range(repeats):
            for state in states:
                for label, agent in agents.items():
                    _settle_memory()
                    started = time.perf_counter()
                    agent.search(state)  # type: ignore[attr-defined]
                    wall = time.perf_counter() - started
                    rates[label].append(agent.last_iterations / wall)  # type: ignore[attr-defined]
                    if label == ROOT:
                        overheads.append(wall - time_limit)
    finally:
        gc.unfreeze()
    return Rates(states[0].NAME, time_limit, rates, overheads)


def _settle_memory() -> None:
    """Collect, then freeze what is left, so that the garbage collector, during the next search,
    walks that search's own objects only.  Without it the searches in this process (one search,
    the threads) pay for every object the caller holds (a notebook's earlier results: a full
    collection then cost some turns half their iterations), and the worker processes, whose heaps
    are small, do not."""
    gc.collect()
    gc.freeze()


@dataclass
class LockShare:
    """Where one thread of tree parallelization spends an iteration's time: ``locked`` seconds
    selecting, expanding and backing up (under the tree's lock), ``unlocked`` in playouts."""

    game: str
    iterations: int
    locked: float
    unlocked: float

    @property
    def share(self) -> float:
        """The share of the time under the lock: the part no number of threads can overlap."""
        return self.locked / (self.locked + self.unlocked)

    def bound(self, threads: int) -> float:
        """The most iterations ``threads`` threads could run per one thread's: the lock is held
        by one thread at a time for ``share`` of each iteration, while the others run their
        playouts, so the lock allows ``1 / share`` and the threads ``threads``.  (Amdahl's law,
        ``1 / (share + (1 - share) / threads)``, would hold if no thread's playout could overlap
        another's locked part: it is the bound of one iteration's time, not of the rate.)"""
        return min(float(threads), 1 / self.share)


def lock_share(state: GameState, iterations: int = 3000, seed: int = 0) -> LockShare:
    """Time tree parallelization's phases in one thread, ``iterations`` times from ``state``, in
    processor time of this thread (``time.thread_time``), so that other programs on the machine
    do not enter the ratio.  The garbage collector is paused meanwhile: its pauses land on
    whichever phase allocates when they come, and their length grows with everything else the
    process holds (a notebook kernel late in a chapter).  A book build once measured Othello's
    share above one half, where it is about a fifth alone; the collector is the likely cause."""
    import gc

    agent = TreeParallelAgent(MCTSAgent(iterations), workers=1, seed=seed)
    root, rng = Node(state), random.Random(seed)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        locked, unlocked = _timed_phases(agent, root, rng, iterations)
    finally:
        if was_enabled:
            gc.enable()
    return LockShare(state.NAME, iterations, locked, unlocked)


def _timed_phases(
    agent: TreeParallelAgent, root: Node, rng: random.Random, iterations: int
) -> tuple[float, float]:
    """Processor seconds of this thread under the lock and in playouts, over ``iterations``."""
    locked = unlocked = 0.0
    for _ in range(iterations):
        t0 = time.thread_time()
        path = agent.descend(root)  # under the lock
        t1 = time.thread_time()
        returns = agent.base.evaluator.evaluate(path[-1].state, rng)  # the playout, unlocked
        t2 = time.thread_time()
        agent.ascend(path, returns)  # under the lock
        t3 = time.thread_time()
        locked += (t1 - t0) + (t3 - t2)
        unlocked += t2 - t1
    return locked, unlocked


def gil_enabled() -> bool:
    """Does this Python run with the global interpreter lock?  (Always, before 3.13; a
    free-threaded 3.13t build can run without it.)"""
    check = getattr(sys, "_is_gil_enabled", None)
    return True if check is None else bool(check())


def python_version() -> str:
    return ".".join(map(str, sys.version_info[:3]))


def equal_budget_match(
    game: type[GameState],
    iterations: int,
    games: int,
    seed: int,
    workers: int = 2,
    n_jobs: int | None = N_JOBS,
) -> MatchResult:
    """Root parallelization whose ``workers`` searches share ``iterations`` per move between
    them, against one search with all ``iterations``: the cost of splitting the tree.  With a
    fixed number of iterations the games do not depend on the machine, and inside the arena's
    worker processes the searches run one after the other with the same result."""
    first = make_agent("mcts", iterations=iterations, workers=workers)
    return match(
        game,
        first,
        make_agent("mcts", iterations=iterations),
        games=games,
        seed=seed,
        n_jobs=n_jobs,
        keep_moves=False,
    )


def match_table(rows: list[tuple[str, str, MatchResult]]) -> Table:
    """One row per match: the game, the budget, wins-draws-losses of root parallelization and its
    score with the 95% interval."""
    body = []
    for budget, label, r in rows:
        lo, hi = r.interval
        body.append(
            [
                game_title(r.game),
                label,
                budget,
                r.games,
                f"{r.wins}-{r.draws}-{r.losses}",
                r.score,
                span(lo, hi),
            ]
        )
    return Table(
        [
            "game",
            "root parallelization (2 workers) against one search",
            "budget",
            "games",
            "wins-draws-losses",
            "score",
            "95% interval",
        ],
        body,
        {"score": ".1%"},
        right=["games", "wins-draws-losses", "score", "95% interval"],
    )
