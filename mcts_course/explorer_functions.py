"""The explorer over a function-style MCTS: the exercises' ``mcts_search``, recorded as it runs.

The tic-tac-toe exercises (``exercises/ttt_mcts.py``) have students write MCTS as functions over
the given :class:`mcts_course.given.Node`: ``select_child``, ``expand``, ``simulate``,
``backpropagate`` and ``mcts_search(state, iterations, c, expand_threshold, rng) -> root``.
:class:`FunctionRecorder` records such a search for the explorer (the widget, or
:class:`~mcts_course.explorer.Session` with ``search=``), iteration by iteration, without
changing a line of it: it runs a copy of ``mcts_search`` whose module-level names
``backpropagate`` and ``simulate`` point at thin wrappers (the student's module itself is left
alone).  Each call of ``backpropagate(path, returns)`` is one iteration: its path (the root
first), the node it added (the last on the path, if it had no visit yet), and what each node's
statistics gained; the wrapper of ``simulate`` notes the moves it chose with ``rng.choice``.

The exercise's contract makes this exact: the search draws random numbers only through
``expand`` and ``simulate``, so the same seed grows the same tree, and the tree after k
iterations is the first k iterations of any longer run.  A longer run is therefore a new run
from the start (with the same seed), checked to repeat the iterations recorded before; a search
that breaks the contract is reported, not drawn wrong.
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcts_course.explorer import MAX_ITERATIONS, Iteration, Recorder, Session, key_of
from mcts_course.games.base import GameState
from mcts_course.given import Node

Search = Callable[..., Any]  # mcts_search(state, iterations, c, expand_threshold, rng) -> root


class _ChoiceLog:
    """A random generator that notes what ``choice`` returned (a playout's moves); every other
    use is passed through unchanged, so the numbers drawn are the same."""

    def __init__(self, rng: random.Random):
        self._rng, self.choices = rng, list[Any]()

    def choice(self, seq: Any) -> Any:
        picked = self._rng.choice(seq)
        self.choices.append(picked)
        return picked

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


@dataclass
class _Call:
    path: list[Any]
    returns: tuple[float, float]
    before: list[tuple[int, float]]  # each path node's (visits, wins) before the call
    gains: list[tuple[int, float]]  # and what the call added
    moves: tuple[int, ...] | None


def _instrumented(search: Search, calls: list[_Call]) -> Search:
    """A copy of ``search`` whose ``backpropagate`` and ``simulate`` (looked up in its module's
    namespace, as the exercise's ``mcts_search`` calls them) also record each call."""
    namespace = dict(search.__globals__)
    backpropagate, simulate = namespace.get("backpropagate"), namespace.get("simulate")
    if not callable(backpropagate):
        raise ValueError(
            f"{search.__name__} must call backpropagate(path, returns) from its module, as the "
            "exercise's mcts_search does: the explorer records one iteration per call"
        )
    playout: dict[str, Any] = {}

    def simulate_noted(state: GameState, rng: random.Random) -> Any:
        log = _ChoiceLog(rng)
        returns = simulate(state, log)  # type: ignore[misc]  # callable when it is called
        playout.update(state=state, moves=tuple(log.choices), returns=tuple(returns))
        return returns

    def backpropagate_noted(path: Any, returns: Any) -> None:
        path = list(path)
        before = [(node.visits, node.wins) for node in path]
        backpropagate(path, returns)
        gains = [(n.visits - v, n.wins - w) for n, (v, w) in zip(path, before, strict=True)]
        moves = None
        if playout.get("state") is path[-1].state and _replays(playout, returns):
            moves = playout["moves"]
        playout.clear()
        calls.append(_Call(path, (float(returns[0]), float(returns[1])), before, gains, moves))

    namespace["backpropagate"] = backpropagate_noted
    if callable(simulate):
        namespace["simulate"] = simulate_noted
    copy = types.FunctionType(
        search.__code__, namespace, search.__name__, search.__defaults__, search.__closure__
    )
    copy.__kwdefaults__ = search.__kwdefaults__
    return copy


def _replays(playout: dict[str, Any], returns: Any) -> bool:
    """Whether the noted choices, played from the noted state, end the game with ``returns``
    (else the playout drew its moves some other way, and they are not shown)."""
    state = playout["state"]
    try:
        for action in playout["moves"]:
            state = state.play(action)
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return state.is_terminal() and tuple(state.returns()) == tuple(returns)


@dataclass
class FunctionRecorder(Recorder):
    """A :class:`~mcts_course.explorer.Recorder` over ``search``, a function-style
    ``mcts_search(state, iterations, c, expand_threshold, rng)`` returning the root of its tree
    of :class:`mcts_course.given.Node` (see the module's text).  The table's exploration term,
    UCB value and next child are UCB1's with ``c``, as the exercise's ``select_child``."""

    search: Search | None = None

    def __post_init__(self) -> None:
        if self.search is None:
            raise ValueError("give search=, a function like the exercise's mcts_search")
        if self.playout_depth is not None:
            raise ValueError("a function-style search plays its playouts to the end")
        if self.state.is_terminal():
            raise ValueError("the game is over in this position: there is nothing to search")
        # The tree before the first iteration.  The exercises' Node has the fields the
        # recorder reads (state, action, player, children, visits, wins).
        root: Any = Node(self.state)
        self.root, self.nodes = root, {"": root}
        self.created = {"": 0}
        self._legal = {}
        self._unreplayable = set()

    def run(self, count: int = 1) -> None:
        """Record ``count`` more iterations: the search is run again from the start for the
        new total (at least twice the iterations recorded, so that stepping one at a time does
        not repeat the whole run at every step), and must repeat what was recorded."""
        total = min(
            max(self.done + count, 2 * self.done, 10), max(MAX_ITERATIONS, self.done + count)
        )
        calls: list[_Call] = []
        search = _instrumented(self.search, calls)  # type: ignore[arg-type]  # set by __post_init__
        root = search(self.state, total, self.c, self.expand_threshold, random.Random(self.seed))
        name = getattr(self.search, "__name__", "the search")
        if len(calls) != total:
            raise ValueError(
                f"{name} called backpropagate {len(calls)} times in {total} iterations"
            )
        records = [self._record(number, call) for number, call in enumerate(calls, 1)]
        old = self.iterations
        if [(r.path, r.rewards) for r in records[: len(old)]] != [(r.path, r.rewards) for r in old]:
            raise ValueError(
                f"{name} with the same seed did not repeat its first {len(old)} iterations: does "
                "it draw random numbers outside expand and simulate, or keep a tree between calls?"
            )
        self.root, self.iterations = root, records
        self.nodes, self._legal = {}, {}
        stack: list[tuple[tuple[int, ...], Any]] = [((), root)]
        while stack:
            actions, node = stack.pop()
            self.nodes[key_of(actions)] = node
            stack += [((*actions, a), child) for a, child in node.children.items()]
        self.created = {"": 0} | {r.expanded: r.number for r in records if r.expanded}
        live = {key: (n.visits, n.wins) for key, n in self.nodes.items()}
        rebuilt = self.rebuilt_stats(total)
        if live != rebuilt:
            wrong = sorted(k for k in set(live) | set(rebuilt) if live.get(k) != rebuilt.get(k))
            raise ValueError(
                f"{name}'s tree is not what its backpropagate calls added (nodes {wrong[:5]}): "
                "is a node updated outside backpropagate?"
            )

    def _record(self, number: int, call: _Call) -> Iteration:
        actions: list[int] = []
        keys = [""]
        for node in call.path[1:]:
            actions.append(node.action)
            keys.append(key_of(actions))
        expanded = keys[-1] if len(keys) > 1 and call.before[-1][0] == 0 else None
        if any(visits != 1 for visits, _ in call.gains):
            raise ValueError("backpropagate must add one visit to every node on the path")
        rewards = tuple(wins for _, wins in call.gains)
        return Iteration(number, tuple(keys), expanded, call.moves, call.returns, rewards)

    def playout_moves(self, number: int) -> tuple[int, ...] | None:
        return self.iterations[number - 1].moves


def function_session(
    game: str, moves: list[int], c: float, threshold: int, seed: int, search: Search
) -> Session:
    """An explorer :class:`~mcts_course.explorer.Session` over the function-style ``search``."""
    return Session(
        game,
        moves,
        c,
        threshold,
        seed,
        None,
        recorder=lambda state: FunctionRecorder(state, c, threshold, seed, search=search),
    )
