"""Parallel MCTS: root parallelization in processes, tree parallelization in threads.

Two of the three schemes of Chaslot, Winands and van den Herik (2008), "Parallel Monte-Carlo Tree
Search", each wrapping an :class:`~mcts_course.agents.mcts.MCTSAgent` that says how one search
goes (its ``c``, expansion, evaluator ...) and behind the usual agent interface::

    RootParallelAgent(MCTSAgent(1000), workers=2)   # two independent trees, votes merged
    TreeParallelAgent(MCTSAgent(1000), workers=2)   # two threads in one tree, virtual loss
    make_agent("mcts:iterations=1000,workers=2,parallel=root")   # the same, from a spec

**Root parallelization** runs ``workers`` independent searches from the same position, each with
its own seed and its own tree, in separate processes; at the end the root children's visits
(and wins) are summed over the trees and the most visited move is played.  Nothing is shared
while they search, so they need no locks, and processes (not threads) let them run at the same
time under CPython's global interpreter lock.  The pool is joblib's (loky, as the arena's), and
its worker processes are reused from move to move; they stop after joblib's idle timeout, when
Python exits, or at :func:`shutdown_workers`.  Inside a process that is itself one of joblib's
workers (a match played with ``n_jobs=2``), joblib runs the searches in threads of that process
instead of starting processes within processes: the moves are the same for a fixed number of
iterations (each search has its own tree and seed), but with a ``time_limit`` the searches then
share one core.

**Tree parallelization** runs ``workers`` threads on one shared tree.  A thread takes a global
lock on the tree to select a path and expand it, marks the path with a **virtual loss** (each
node on it counts a visit with reward 0, a loss, so that the other threads see it as worse and
look elsewhere), releases the lock to run its playout, and takes the lock again to replace the
virtual loss by the real result.  Only the playout runs outside the lock.  Under CPython's global
interpreter lock only one thread executes Python code at a time, so the threads take turns
rather than run at once: they add locking and switching, not speed.  A free-threaded Python
(PEP 703, the ``python3.13t`` build) lets the playouts of the threads run at once, up to the share
of the time spent under the tree's lock.

Budgets, for both schemes: ``iterations`` is the total over all workers (so the same number of
playouts as one search with that budget); ``time_limit`` is the time per move, on the clock on
the wall, that every worker searches.  A root-parallel move takes a little longer: the time to
send the work to the processes and collect their roots (and, on the first move of a session or
after the pool's idle timeout, to start the processes).
"""

from __future__ import annotations

import copy
import math
import random
import threading
import time
from collections.abc import Sequence
from typing import Any

from mcts_course.agents.base import Agent
from mcts_course.agents.mcts import MCTSAgent, Move, Node, argmax
from mcts_course.agents.rollout import Estimate
from mcts_course.errors import needs
from mcts_course.games import GameState

SCHEMES = ("root", "tree")

# A root's statistics from one tree: action -> (visits, wins), wins for the player choosing.
RootStats = dict[int, tuple[int, float]]


def merge_roots(trees: list[RootStats]) -> RootStats:
    """Chaslot et al.'s merge: each move's visits and wins summed over the independent trees."""
    merged: RootStats = {}
    for stats in trees:
        for action, (visits, wins) in stats.items():
            total_visits, total_wins = merged.get(action, (0, 0.0))
            merged[action] = (total_visits + visits, total_wins + wins)
    return merged


def most_visited(stats: RootStats) -> int:
    """The move with the most visits summed over the trees (ties: the smallest action)."""
    return argmax(stats, lambda visits_wins: visits_wins[0])


def split(iterations: int, workers: int) -> list[int]:
    """A total budget of ``iterations`` shared out over ``workers``, as evenly as it goes."""
    share, extra = divmod(iterations, workers)
    return [share + (k < extra) for k in range(workers)]


def search_one(
    agent: MCTSAgent, state: GameState, seed: int, iterations: int | None, time_limit: float | None
) -> tuple[RootStats, int]:
    """One worker's search (run in a worker process): a fresh copy of ``agent`` seeded with
    ``seed`` searches ``state`` for ``iterations`` iterations and/or ``time_limit`` seconds from
    its start; returns its root's statistics and its iterations."""
    agent = copy.deepcopy(agent)  # a worker may also run in the calling process (nested joblib)
    agent.seed(seed)
    agent.iterations, agent.time_limit = iterations, time_limit
    root = agent.search(state)
    stats = {action: (child.visits, child.wins) for action, child in root.children.items()}
    return stats, agent.last_iterations


def worker_pool(workers: int) -> Any:
    """joblib's reusable pool of ``workers`` processes, or None where joblib would not start
    processes: inside one of its own workers, or under another configured backend."""
    needs("joblib", "parallel")  # root parallelism runs its searches in joblib's processes
    from joblib.executor import get_memmapping_executor
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if type(backend).__name__ != "LokyBackend" or backend.nesting_level:
        return None
    return get_memmapping_executor(workers)


# One worker's arguments to search_one: the agent, the state, a seed, iterations, time limit.
SearchCall = tuple[MCTSAgent, GameState, int, int | None, float | None]


def run_searches(pool: Any, calls: list[SearchCall]) -> list[tuple[RootStats, int]]:
    """``search_one(*args)`` for every ``args`` in ``calls``, all at once, and their results in
    order: submitted to ``pool`` (from :func:`worker_pool`), or given to joblib's ``Parallel``
    where there is no pool, as the arena's games are.

    ``Parallel`` alone would do, but its loop that collects results sleeps 10 ms at a time, a
    tax on every move; submitting to the pool directly waits only for the searches.
    """
    if pool is None:
        from joblib import Parallel, delayed

        results: list[tuple[RootStats, int]] = Parallel(n_jobs=len(calls))(
            delayed(search_one)(*args) for args in calls
        )
        return results
    futures = [pool.submit(search_one, *args) for args in calls]
    return [future.result() for future in futures]


def shutdown_workers() -> None:
    """Stop joblib's reusable worker processes now (they also stop by themselves when idle for a
    while, and when Python exits).  The next parallel search starts new ones."""
    try:
        from joblib.externals.loky import reusable_executor
    except ImportError:  # no joblib, so no workers to stop
        return

    executor = reusable_executor._executor  # joblib's pool, if one is running
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def _parallel_name(base: MCTSAgent, scheme: str, workers: int) -> str:
    """``MCTS(1000)`` with two root workers is ``MCTS(1000,root×2)``."""
    label = f"{scheme}×{workers}"
    return f"{base.name[:-1]},{label})" if base.name.endswith(")") else f"{base.name}({label})"


class ParallelAgent(Agent):
    """What both schemes share: the search settings of ``base``, ``workers`` workers, the merged
    (root) or shared (tree) root of the last search as ``last_root``, and ``last_iterations``
    summed over the workers."""

    scheme = ""

    def __init__(self, base: MCTSAgent, workers: int = 2, seed: int | None = None):
        super().__init__(seed)
        if not isinstance(base, MCTSAgent):
            raise TypeError(f"parallel search wraps an MCTSAgent, not {base!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
        if base.iterations is not None and base.iterations < workers:
            raise ValueError(
                f"iterations ({base.iterations}) is the total over the workers: give at least "
                f"one per worker ({workers})"
            )
        self.base = base
        self.workers = workers
        self.last_root: Node | None = None
        self.last_iterations = 0
        self.name = _parallel_name(base, self.scheme, workers)

    @property
    def iterations(self) -> int | None:
        return self.base.iterations

    @property
    def time_limit(self) -> float | None:
        return self.base.time_limit

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.base.seed(seed)

    def reset(self) -> None:
        self.base.reset()
        self.last_root = None

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:  # a forced move (Othello's pass): nothing to search
            self.last_root, self.last_iterations = Node(state), 0
            return actions[0]
        root = self.search(state)
        return most_visited({a: (ch.visits, ch.wins) for a, ch in root.children.items()})

    def root_table(self, root: Node | None = None) -> list[dict[str, Any]]:
        """The statistics of the root's children after the last search (as MCTSAgent's)."""
        return self.base.root_table(root or self.last_root)

    def search(self, state: GameState) -> Node:
        raise NotImplementedError


class RootParallelAgent(ParallelAgent):
    """Root parallelization: ``workers`` independent searches in worker processes, each with its
    own seed, then the most visited move over the merged roots."""

    scheme = "root"

    def __init__(self, base: MCTSAgent, workers: int = 2, seed: int | None = None):
        if base.tree_reuse:
            raise ValueError(
                "tree_reuse keeps one tree between moves; root parallelization "
                "starts fresh trees in its workers (use parallel=tree, or no reuse)"
            )
        super().__init__(base, workers, seed)

    def search(self, state: GameState) -> Node:
        """The searches, in parallel, and their roots merged into one (``last_root``)."""
        seeds = [self.rng.randrange(2**32) for _ in range(self.workers)]
        shares = split(self.iterations, self.workers) if self.iterations else [None] * self.workers
        calls = [
            (self.base, state, seed, share, self.time_limit)
            for seed, share in zip(seeds, shares, strict=True)
        ]
        results = run_searches(worker_pool(self.workers), calls)
        merged = merge_roots([stats for stats, _ in results])
        self.last_iterations = sum(done for _, done in results)
        self.last_root = merged_root(state, merged)
        return self.last_root


def merged_root(state: GameState, stats: RootStats) -> Node:
    """A root node for ``state`` whose children carry the merged ``stats`` (for reading only:
    the trees below the root stay in the workers)."""
    root = Node(state)
    for action, (visits, wins) in sorted(stats.items()):
        child = Node(state.play(action), action, state.current_player)
        child.visits, child.wins = visits, wins
        root.children[action] = child
    root.visits = sum(visits for visits, _ in stats.values())
    root.untried = []
    return root


class TreeParallelAgent(ParallelAgent):
    """Tree parallelization: ``workers`` threads share one tree, guarded by one global lock,
    with a virtual loss on the path each thread is evaluating."""

    scheme = "tree"

    def __init__(self, base: MCTSAgent, workers: int = 2, seed: int | None = None):
        if type(base) is not MCTSAgent:
            raise ValueError(
                f"parallel=tree runs plain UCT's phases in threads, not those of "
                f"{type(base).__name__} (use parallel=root)"
            )
        super().__init__(base, workers, seed)
        self.lock = threading.Lock()

    def search(self, state: GameState) -> Node:
        """Start the threads on one root, wait for them, return the root."""
        root = self.base._reused_root(state) if self.base.tree_reuse else None
        root = root or Node(state)
        self._left = math.inf if self.iterations is None else self.iterations  # under the lock
        self._deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        self._done = 0
        rngs = [random.Random(self.rng.randrange(2**32)) for _ in range(self.workers)]
        threads = [threading.Thread(target=self.work, args=(root, rng)) for rng in rngs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.base.last_root = self.last_root = root
        self.base.last_iterations = self.last_iterations = self._done
        return root

    def work(self, root: Node, rng: random.Random) -> None:
        """One thread: iterations until the budget is spent; only the playout runs unlocked."""
        while True:
            with self.lock:
                if not self._take_iteration():
                    return
                path = self.descend(root)
            returns, moves = self.base.simulate(path[-1], rng)  # unlocked, the thread's rng
            with self.lock:
                self.ascend(path, returns, moves)

    def _take_iteration(self) -> bool:
        """Claim one iteration of the budget (called under the lock)."""
        out_of_time = self._deadline is not None and time.perf_counter() >= self._deadline
        if self._left <= 0 or (out_of_time and self._done):
            return False
        self._left -= 1
        self._done += 1
        return True

    def descend(self, root: Node) -> list[Node]:
        """Select and expand as MCTS does, then put a virtual loss on the path: every node on it
        counts one more visit and no reward until :meth:`ascend` brings the result."""
        path = self.base.select(root)
        leaf = self.base.expand(path[-1], is_root=len(path) == 1)
        if leaf is not path[-1]:
            path.append(leaf)
        for node in path:
            node.visits += 1  # the virtual loss: a visit whose reward is 0 so far
        return path

    def ascend(self, path: list[Node], returns: Estimate, moves: Sequence[Move] = ()) -> None:
        """Take the virtual loss back and backpropagate the real result."""
        for node in path:
            node.visits -= 1
        self.base.backpropagate(path, returns, moves)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["lock"]  # a lock cannot be pickled or copied: each copy gets its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()


def parallel_agent(
    base: MCTSAgent, workers: int, scheme: str = "root", seed: int | None = None
) -> Agent:
    """``base`` searched by ``workers`` workers with ``scheme`` (``"root"`` or ``"tree"``);
    one worker is ``base`` itself, plain MCTS."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown parallel scheme {scheme!r}; choose one of: {', '.join(SCHEMES)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
    if workers == 1:
        return base
    cls = RootParallelAgent if scheme == "root" else TreeParallelAgent
    return cls(base, workers, seed)
