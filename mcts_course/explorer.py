"""Watch MCTS think: a seeded UCT run recorded phase by phase, and its tree as JSON.

The book's explorer page (``book/16b_explorer.md``) runs this module in the reader's browser, as
the play page runs :mod:`mcts_course.webplay`: a Web Worker loads Pyodide and forwards every
click as one JSON request to :func:`handle`.  The search is :class:`MCTSAgent`'s own: each
iteration is one call of :meth:`MCTSAgent.step`, so the tree the page draws after k iterations is
the tree ``MCTSAgent(iterations=k, c=c, expand_threshold=t, seed=s).search(state)`` builds.

What the recorder adds to the agent, and all it relies on (kept small on purpose, since the
agent's internals may change): ``step(root)`` returning ``path``, ``expanded`` and ``returns``;
``simulate(node)``, overridden only to note the generator's state before the playout; and the
:class:`Node` fields ``children``, ``visits``, ``wins``, ``player``, ``state``.

The playout's moves are not kept by the games' fast rollouts, so :func:`replay_playout` plays
the same random numbers through the game protocol and keeps the moves only if it ends with the
same result AND the generator in the same state as the real playout (else they are reported as
unknown, never guessed).

A node is named by its moves from the root, actions joined by dots (``"4.0"``; ``""`` is the
root).  Standard library only (the browser's Python has no numpy).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mcts_course.agents.bandits import SQRT2
from mcts_course.agents.mcts import MCTSAgent, Node, Outcome
from mcts_course.agents.rollout import Estimate
from mcts_course.explorer_draw import table_html, tree_svg
from mcts_course.games import PASS, GameState, Othello, game_class

PHASES = ("selection", "expansion", "simulation", "backpropagation")
# Exact move values are offered where the solver answers in a blink, even in a browser.
EXACT_EMPTIES = {"tictactoe": 9, "connect4": 12, "othello": 10}
MAX_ITERATIONS = 20_000  # one page's run: beyond this the browser's memory and patience end
SHARE_POINTS = 200  # the visit-share chart's samples over the iterations
EAGER = 10  # runs of up to this many iterations keep their playouts' moves at once

# The positions the page offers (actions from the start), with the settings of the chapter that
# uses them.  The late positions come from seeded random games and are small enough to solve.
PRESETS: dict[str, list[dict[str, Any]]] = {
    "tictactoe": [
        {"name": "empty board", "moves": []},
        {
            "name": "chapter 9's worked example: b2 a1 c3 a3 (threshold 3, seed 6)",
            "moves": [4, 0, 8, 6],
            "threshold": 3,
            "seed": 6,
        },
    ],
    "connect4": [
        {"name": "empty board", "moves": []},
        {
            "name": "late position, 12 empty squares (exact values shown)",
            "moves": [2, 3, 3, 2, 0, 2, 2, 0, 0, 3, 0, 0, 2, 6, 0, 3, 6, 6, 1, 5]
            + [1, 2, 4, 3, 3, 6, 1, 6, 4, 1],
        },
    ],
    "othello": [
        {"name": "start", "moves": []},
        {
            "name": "chapter 8's position: f5 d6 c3 d3 c4 f4 c5 b3 c2",
            "moves": [37, 43, 18, 19, 26, 29, 34, 17, 10],
        },
        {
            "name": "endgame, 10 empty squares (exact values shown)",
            "moves": [19, 18, 17, 20, 21, 34, 45, 14, 33, 42, 29, 32, 7, 37, 43, 52, 51]
            + [44, 59, 26, 50, 49, 56, 41, 24, 61, 30, 25, 60, 16, 48, 38, 62, 10, 31]
            + [22, 8, 23, 2, 3, 11, 4, 5, 53, 40, 47, 12, 57, 54, 58],
        },
    ],
}


def key_of(actions: tuple[int, ...] | list[int]) -> str:
    """A node's name: its actions from the root joined by dots; ``""`` for the root."""
    return ".".join(str(a) for a in actions)


def parent_key(key: str) -> str | None:
    return None if key == "" else key.rpartition(".")[0]


# -- the playout's moves ---------------------------------------------------------------------------
def replay_playout(
    state: GameState, rng: random.Random, max_plies: int | None = None
) -> tuple[list[int], GameState]:
    """The moves a random playout from ``state`` plays with ``rng``, played through the game
    protocol: the draws of the games' fast rollouts (a uniform index into the sorted legal
    moves; Othello's lazy shuffle of the empty squares).  Returns the moves and the end state."""
    if isinstance(state, Othello):
        return _replay_othello(state, rng, max_plies)
    moves: list[int] = []
    plies = math.inf if max_plies is None else max_plies
    while len(moves) < plies:
        actions = state.legal_actions()
        if not actions:
            break
        action = actions[int(rng.random() * len(actions))]
        moves.append(action)
        state = state.play(action)
    return moves, state


def _replay_othello(
    state: Othello, rng: random.Random, max_plies: int | None
) -> tuple[list[int], GameState]:
    """Othello's playout draws empty squares in a lazily shuffled order until one is legal."""
    flat = [cell for row in state.board() for cell in row]
    empties = [square for square in range(64) if flat[square] == -1]  # square = its action
    moves: list[int] = []
    passed = over = False
    for _ in range(128 if max_plies is None else max_plies):
        legal = set() if over else set(state.legal_actions()) - {PASS}
        n, i, chosen, j = len(empties), 0, None, 0
        while i < n:
            j = i + int(rng.random() * (n - i))
            square = empties[j]
            if square in legal:
                chosen = square
                break
            empties[j], empties[i] = empties[i], square
            i += 1
        if chosen is not None:
            empties[j] = empties[-1]
            empties.pop()
            state = state.play(chosen)
            moves.append(chosen)
            passed = False
        elif passed:
            break  # neither player can move
        else:
            passed = True
            if PASS in state.legal_actions():
                state = state.play(PASS)
                moves.append(PASS)
            else:
                over = True  # the fast playout still draws through the empties once more
    return moves, state


# -- the recorder ----------------------------------------------------------------------------------
class _RecordingAgent(MCTSAgent):
    """MCTSAgent noting, when asked (``keep_state``), the generator's state before each playout;
    nothing else changes."""

    keep_state = False
    before_playout: Any = None

    def simulate(self, node: Node, rng: random.Random | None = None) -> Outcome:
        if self.keep_state:
            self.before_playout = (self.rng if rng is None else rng).getstate()
        return super().simulate(node, rng)


_RECORDING: dict[type, type] = {MCTSAgent: _RecordingAgent}


def _recording(agent_class: type[MCTSAgent]) -> type[_RecordingAgent]:
    """``agent_class`` (MCTSAgent or a subclass) with the recording ``simulate``."""
    if agent_class not in _RECORDING:
        _RECORDING[agent_class] = type(
            f"Recording{agent_class.__name__}", (_RecordingAgent, agent_class), {}
        )
    return _RECORDING[agent_class]


def _replayed(
    agent: _RecordingAgent, state: GameState, returns: Estimate
) -> tuple[int, ...] | None:
    """The moves of the playout ``agent`` just played from ``state``, or None unless the replay
    drew exactly the same numbers and ended with the same ``returns``."""
    replay = random.Random()
    replay.setstate(agent.before_playout)
    try:
        played, end = replay_playout(state, replay, agent.playout_depth)
    except Exception:  # a game whose playout draws otherwise: the moves stay unknown
        return None
    if replay.getstate() != agent.rng.getstate():
        return None
    return tuple(played) if tuple(end.cutoff_returns()) == tuple(returns) else None


@dataclass(frozen=True)
class Iteration:
    """What iteration ``number`` did: the ``path`` of node keys from the root to the node
    evaluated (the ``expanded`` one included), the playout's ``moves`` from there (None if not
    kept or not replayable: see :meth:`Recorder.playout_moves`), the ``returns`` (r0, r1) and
    the ``rewards`` each path node added."""

    number: int
    path: tuple[str, ...]
    expanded: str | None
    moves: tuple[int, ...] | None
    returns: tuple[float, float]
    rewards: tuple[float, ...]


@dataclass
class Recorder:
    """A UCT run from ``state`` recorded iteration by iteration (one :meth:`MCTSAgent.step`
    each), with every iteration's phases; :meth:`tree` gives the tree after any iteration.
    ``agent_class``: a subclass of MCTSAgent to run instead (its phases are recorded the same
    way; the table's exploration term, UCB value and next child stay UCB1's)."""

    state: GameState
    c: float = SQRT2
    expand_threshold: int = 1
    seed: int = 0
    playout_depth: int | None = None
    agent_class: type[MCTSAgent] = MCTSAgent
    iterations: list[Iteration] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.state.is_terminal():
            raise ValueError("the game is over in this position: there is nothing to search")
        self.agent = self._new_agent()
        self.root = Node(self.state)
        self.nodes: dict[str, Node] = {"": self.root}
        self.created: dict[str, int] = {"": 0}  # the iteration that added each node
        self._legal: dict[str, int] = {}
        self._unreplayable: set[int] = set()

    def _new_agent(self) -> _RecordingAgent:
        return _recording(self.agent_class)(
            c=self.c,
            expand_threshold=self.expand_threshold,
            playout_depth=self.playout_depth,
            seed=self.seed,
        )

    @property
    def done(self) -> int:
        return len(self.iterations)

    def run(self, count: int = 1) -> None:
        """Run ``count`` more iterations.  A few (up to :data:`EAGER`) keep their playout's
        moves at once; longer runs leave them to :meth:`playout_moves`, since replaying every
        playout would slow the run several times over."""
        self.agent.keep_state = count <= EAGER
        for _ in range(count):
            self._iterate()

    def playout_moves(self, number: int) -> tuple[int, ...] | None:
        """The moves of iteration ``number``'s playout (None if they cannot be replayed).  If
        the run did not keep them, a fresh agent with the same seed repeats the run up to that
        iteration and replays its playout (the run is deterministic)."""
        it = self.iterations[number - 1]
        if it.moves is not None or number in self._unreplayable:
            return it.moves
        agent, root = self._new_agent(), Node(self.state)
        for _ in range(number - 1):
            agent.step(root)
        agent.keep_state = True
        step = agent.step(root)
        moves = _replayed(agent, step.path[-1].state, step.returns)
        if moves is None or tuple(step.returns) != it.returns:
            self._unreplayable.add(number)
            return None
        self.iterations[number - 1] = replace(it, moves=moves)
        return moves

    def run_to(self, total: int) -> None:
        self.run(max(0, min(total, MAX_ITERATIONS) - self.done))

    def _iterate(self) -> Iteration:
        step = self.agent.step(self.root)
        keys, actions = [""], list[int]()
        for node in step.path[1:]:
            actions.append(node.action)  # type: ignore[arg-type]  # a child's action is set
            keys.append(key_of(actions))
        expanded = None
        if step.expanded is not None:
            expanded = keys[-1]
            self.nodes[expanded] = step.expanded
            self.created[expanded] = self.done + 1
        moves = None
        if self.agent.keep_state:
            moves = _replayed(self.agent, step.path[-1].state, step.returns)
            if moves is None:
                self._unreplayable.add(self.done + 1)
        r0, r1 = step.returns
        rewards = tuple((step.returns[n.player] + 1) / 2 for n in step.path)
        record = Iteration(self.done + 1, tuple(keys), expanded, moves, (r0, r1), rewards)
        self.iterations.append(record)
        return record

    # -- the tree after k iterations ---------------------------------------------------------------
    def stats(self, k: int) -> dict[str, tuple[int, float]]:
        """Visits and wins of every node that exists after ``k`` iterations (k <= done)."""
        if k == self.done:
            return {key: (n.visits, n.wins) for key, n in self.nodes.items()}
        return self.rebuilt_stats(k)

    def rebuilt_stats(self, k: int) -> dict[str, tuple[int, float]]:
        """Visits and wins of every node after ``k`` iterations, summed from the records."""
        table: dict[str, list[float]] = {"": [0, 0.0]}
        for it in self.iterations[:k]:
            for key, reward in zip(it.path, it.rewards, strict=True):
                entry = table.setdefault(key, [0, 0.0])
                entry[0] += 1
                entry[1] += reward
        return {key: (int(v), w) for key, (v, w) in table.items()}

    def legal_count(self, key: str) -> int:
        if key not in self._legal:
            self._legal[key] = len(self.nodes[key].state.legal_actions())
        return self._legal[key]

    def next_child(self, key: str, stats: dict[str, tuple[int, float]]) -> str | None:
        """The child selection takes next from node ``key`` (the agent's rule: the highest UCB1,
        ties to the smallest action), or None when selection stops there (moves not tried
        yet, a leaf, or the end of the game)."""
        children = self.children(key, stats)
        if not children or len(children) < self.legal_count(key):
            return None
        parent_visits = stats[key][0]
        best, best_value = None, -1.0
        for child in children:  # in action order, so that ties keep the smallest action
            value = ucb_parts(stats[child], parent_visits, self.c)[2]
            if value > best_value:
                best, best_value = child, value
        return best

    def children(self, key: str, stats: dict[str, tuple[int, float]]) -> list[str]:
        """The keys of the children of ``key`` that exist in ``stats``, in action order."""
        node = self.nodes[key]
        prefix = key + "." if key else ""
        return [prefix + str(a) for a in sorted(node.children) if prefix + str(a) in stats]

    def move_name(self, key: str) -> str:
        node, parent = self.nodes[key], self.nodes[key.rpartition(".")[0]]  # key is not the root
        if node.action is None:
            raise ValueError("the root has no move")
        return parent.state.action_to_string(node.action)

    def line(self, key: str) -> list[str]:
        """The moves' names from the root to ``key``."""
        names, parts = [], key.split(".") if key else []
        for i in range(1, len(parts) + 1):
            names.append(self.move_name(".".join(parts[:i])))
        return names

    def tree(self, k: int | None = None) -> dict[str, Any]:
        """The whole tree after ``k`` iterations (default: all done), as plain data: per node
        its key, visits, wins, mean, and the exploration term and UCB value at its parent's
        visits; per parent the child selection takes next."""
        k = self.done if k is None else k
        stats = self.stats(k)
        return {"iteration": k, "nodes": [self.node_view(key, stats) for key in sorted(stats)]}

    def node_view(self, key: str, stats: dict[str, tuple[int, float]]) -> dict[str, Any]:
        visits, wins = stats[key]
        node = self.nodes[key]
        view: dict[str, Any] = {
            "node": key,
            "parent": parent_key(key),
            "move": self.move_name(key) if key else "",
            "by": node.state.PLAYER_NAMES[node.player],
            "visits": visits,
            "wins": wins,
            "mean": wins / visits if visits else 0.0,
            "children": len(self.children(key, stats)),
            "legal": self.legal_count(key),
            "terminal": node.state.is_terminal(),
        }
        if key:
            parent_visits = stats[key.rpartition(".")[0]][0]
            _, explore, ucb = ucb_parts(stats[key], parent_visits, self.c)
            view["explore"], view["ucb"] = _number(explore), _number(ucb)
        view["next"] = self.next_child(key, stats)
        return view


def ucb_parts(stat: tuple[int, float], parent_visits: int, c: float) -> tuple[float, float, float]:
    """(mean, exploration term, UCB1 value) of a child with (visits, wins) = ``stat`` at the
    parent's ``parent_visits``: the two parts of :func:`~mcts_course.agents.bandits.ucb1`."""
    visits, wins = stat
    if visits == 0:
        return 0.0, math.inf, math.inf
    mean = wins / visits
    explore = c * math.sqrt(math.log(parent_visits) / visits) if parent_visits > 0 else 0.0
    return mean, explore, mean + explore


def _number(value: float) -> float | str:
    """JSON has no infinity: an untried child's terms travel as the text "inf"."""
    return "inf" if math.isinf(value) else value


# -- what the page shows ---------------------------------------------------------------------------
class Session:
    """One explorer on the page: a position, settings, the recorded run, and exact values.
    ``agent_class``: a subclass of MCTSAgent to record instead; ``recorder``: makes the
    recorder of the position instead (e.g. of a function-style search:
    :func:`mcts_course.explorer_functions.function_session`)."""

    def __init__(
        self,
        game: str,
        moves: list[int],
        c: float,
        threshold: int,
        seed: int,
        playout_depth: int | None,
        agent_class: type[MCTSAgent] = MCTSAgent,
        recorder: Callable[[GameState], Recorder] | None = None,
    ):
        state = game_class(game)()
        for action in moves:
            state = state.play(action)
        self.game, self.moves = game, list(moves)
        self.recorder = (
            Recorder(state, c, threshold, seed, playout_depth, agent_class)
            if recorder is None
            else recorder(state)
        )
        self._exact: dict[int, int] | None = None

    def exact(self) -> dict[int, int] | None:
        """The exact value (+1, 0, -1 for the player to move) of each root move, where the
        position is small enough (see :data:`EXACT_EMPTIES`); else None."""
        state = self.recorder.state
        empties = sum(cell == -1 for row in state.board() for cell in row)
        if empties > EXACT_EMPTIES.get(self.game, 0):
            return None
        if self._exact is None:
            from mcts_course.agents.exact import move_values

            self._exact = move_values(state)
        return self._exact

    def view(
        self, iteration: int, phase: int, open_keys: list[str], depth: int, selected: str
    ) -> dict[str, Any]:
        """The screen at ``iteration`` (its ``phase``: 1-4 = selection .. backpropagation, 4 the
        iteration done): the drawn nodes, the selected node's table, the phases, the charts."""
        rec = self.recorder
        rec.run_to(iteration)
        iteration = min(iteration, rec.done)
        phase = 4 if iteration == 0 else max(1, min(phase, 4))
        it = rec.iterations[iteration - 1] if iteration else None
        shown = iteration if phase == 4 else iteration - 1
        stats = rec.stats(shown)
        if it is not None and it.expanded is not None and phase in (2, 3):
            stats = {**stats, it.expanded: (0, 0.0)}  # added, not yet counted
        # While an iteration is stepped through (phases 1-3), its path is drawn down to the node
        # it adds, whatever the depth asked, so the reader sees expansion's node; once it is
        # done, the tree is the reader's (by default the root's children) again.
        opened = set(open_keys) | {""}
        if it is not None and phase < 4:
            opened |= set(it.path if it.expanded is None else it.path[:-1])
        drawn = self._drawn(stats, opened, depth)
        if selected not in stats:
            selected = ""
        state = rec.state
        result: dict[str, Any] = {
            "game": self.game,
            "moves": self.moves,
            "settings": {
                "c": rec.c,
                "threshold": rec.expand_threshold,
                "seed": rec.seed,
                "playout_depth": rec.playout_depth,
            },
            "iteration": iteration,
            "recorded": rec.done,
            "phase": phase,
            "phase_name": PHASES[phase - 1] if iteration else "start",
            "to_move": state.PLAYER_NAMES[state.current_player],
            "position": board_view(state),
            "move_names": _names(game_class(self.game)(), self.moves),
            "nodes": [rec.node_view(key, stats) for key in drawn],
            "selected": selected,
            "selected_line": rec.line(selected),
            "table": self._table(selected, stats),
            "step": self._step(it, phase) if it is not None else None,
            "shares": self._shares(iteration if phase == 4 else iteration - 1),
            "exact": self._exact_rows(),
            "presets": PRESETS.get(self.game, []),
        }
        # What the page, the widget and the printed chapter draw, by one renderer.
        result["table_html"] = table_html(result)
        result["tree_svg"] = tree_svg(result, opened, depth)
        return result

    def _drawn(
        self, stats: dict[str, tuple[int, float]], open_keys: set[str], depth: int
    ) -> list[str]:
        """The nodes drawn: the root, every node down to ``depth``, and the children of every
        open node whose ancestors are drawn."""
        rec, drawn, frontier = self.recorder, [""], [""]
        while frontier:
            nxt = []
            for key in frontier:
                level = 0 if not key else key.count(".") + 1
                if level < depth or key in open_keys:
                    for child in rec.children(key, stats):
                        drawn.append(child)
                        nxt.append(child)
            frontier = nxt
        return drawn

    def _table(self, key: str, stats: dict[str, tuple[int, float]]) -> list[dict[str, Any]]:
        rec = self.recorder
        chosen = rec.next_child(key, stats)
        rows = []
        for child in rec.children(key, stats):
            view = rec.node_view(child, stats)
            view["selected_next"] = child == chosen
            rows.append(view)
        return rows

    def _step(self, it: Iteration, phase: int) -> dict[str, Any]:
        """The phases of iteration ``it`` up to ``phase``."""
        rec = self.recorder
        leaf = it.path[-1]
        r0, r1 = it.returns
        names = rec.state.PLAYER_NAMES
        step: dict[str, Any] = {
            "number": it.number,
            "path": list(it.path if it.expanded is None else it.path[:-1]),
            "path_names": rec.line(it.path[-1] if it.expanded is None else it.path[-2]),
        }
        if phase >= 2:
            step["expanded"] = it.expanded
            step["expanded_name"] = rec.move_name(it.expanded) if it.expanded else None
        if phase >= 3:
            state = rec.nodes[leaf].state
            moves = rec.playout_moves(it.number)
            step["leaf"] = leaf
            step["playout"] = (
                None
                if moves is None
                else [_move_name(state, moves[: i + 1]) for i in range(len(moves))]
            )
            step["playout_by"] = None if moves is None else _movers(state, moves)
            step["playout_board"] = board_view(state, moves)
            step["result"] = "draw" if r0 == r1 else f"{names[0 if r0 > r1 else 1]} wins"
        if phase >= 4:
            step["backup"] = [
                {"node": key, "move": rec.move_name(key) if key else "root", "reward": reward}
                for key, reward in zip(it.path, it.rewards, strict=True)
            ]
        return step

    def _shares(self, k: int) -> dict[str, Any]:
        """Each root move's share of the root's visits after iterations 1..k (sampled)."""
        rec = self.recorder
        counts: dict[str, int] = {}
        points: list[tuple[int, dict[str, int]]] = []
        every = max(1, math.ceil(k / SHARE_POINTS))
        for it in rec.iterations[:k]:
            if len(it.path) > 1:
                counts[it.path[1]] = counts.get(it.path[1], 0) + 1
            if it.number % every == 0 or it.number == k:
                points.append((it.number, dict(counts)))
        # Every root move tried (each is visited when added), in move order, so that a move
        # keeps its place from one iteration to the next; the page colours it by its action.
        moves = sorted(counts, key=int)
        return {
            "moves": [
                {"node": key, "move": rec.move_name(key), "action": int(key)} for key in moves
            ],
            "points": [
                {"iteration": n, "shares": [c.get(key, 0) / n for key in moves]} for n, c in points
            ],
        }

    def _exact_rows(self) -> list[dict[str, Any]] | None:
        values = self.exact()
        if values is None:
            return None
        state = self.recorder.state
        return [
            {"node": str(a), "move": state.action_to_string(a), "value": v}
            for a, v in sorted(values.items())
        ]


def _names(state: GameState, moves: list[int]) -> list[str]:
    """The names of ``moves`` played in turn from ``state``."""
    names = []
    for action in moves:
        names.append(state.action_to_string(action))
        state = state.play(action)
    return names


def _move_name(state: GameState, moves: tuple[int, ...]) -> str:
    """The name of the last of ``moves`` played from ``state``."""
    for action in moves[:-1]:
        state = state.play(action)
    return state.action_to_string(moves[-1])


def board_view(state: GameState, playout: tuple[int, ...] | None = None) -> dict[str, Any]:
    """A board to draw: cells (-1 empty, 0, 1) row by row, the legal moves' cells, and, for a
    playout from ``state``, the cell of each of its moves in order (a pass has none)."""
    view: dict[str, Any] = {
        "rows": state.ROWS,
        "cols": state.COLS,
        "cells": [int(v) for row in state.board() for v in row],
        "legal": [
            {"action": a, "cell": _cell(state, a), "move": state.action_to_string(a)}
            for a in state.legal_actions()
        ],
    }
    if playout is not None:
        marks = []
        for action in playout:
            marks.append(_cell(state, action))
            state = state.play(action)
        view["playout"] = marks
        view["end"] = [int(v) for row in state.board() for v in row]
    return view


def _movers(state: GameState, moves: tuple[int, ...]) -> list[str]:
    """The name of the player who makes each of ``moves`` from ``state`` (X, O, Black ...)."""
    names = []
    for action in moves:
        names.append(state.PLAYER_NAMES[state.current_player])
        state = state.play(action)
    return names


def _cell(state: GameState, action: int) -> list[int] | None:
    cell = state.cell_of(action)
    return None if cell is None else [int(cell[0]), int(cell[1])]


# -- the request handler the worker calls ----------------------------------------------------------
_SESSIONS: dict[str, Session] = {}


def handle(request: str) -> str:
    """Answer one JSON request with JSON: ``{"ok": true, "view": ...}`` or an error.

    ``{"cmd": "new", "id", "game", "moves": [actions], "c", "threshold", "seed",
    "playout_depth"}`` starts a run; ``{"cmd": "view", "id", "iteration", "phase", "open":
    [keys], "depth", "selected"}`` answers the screen (running iterations as needed);
    ``{"cmd": "tree", "id", "iteration"}`` the whole tree; ``{"cmd": "bench", "id", "count"}``
    runs ``count`` iterations and answers the seconds taken."""
    try:
        args = json.loads(request)
        return json.dumps({"ok": True, "view": _dispatch(args)})
    except (ValueError, KeyError, TypeError, IndexError) as error:
        return json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"})


def _dispatch(args: dict[str, Any]) -> dict[str, Any]:
    cmd, sid = args["cmd"], str(args.get("id", "main"))
    if cmd == "new":
        depth = args.get("playout_depth")
        _SESSIONS[sid] = Session(
            str(args.get("game", "tictactoe")),
            [int(a) for a in args.get("moves", [])],
            float(args.get("c", SQRT2)),
            int(args.get("threshold", 1)),
            int(args.get("seed", 0)),
            None if depth in (None, "") else int(depth),
        )
        cmd = "view"
    session = _SESSIONS[sid]
    if cmd == "view":
        return session.view(
            int(args.get("iteration", 0)),
            int(args.get("phase", 4)),
            [str(k) for k in args.get("open", [])],
            int(args.get("depth", 1)),
            str(args.get("selected", "")),
        )
    if cmd == "tree":
        session.recorder.run_to(int(args.get("iteration", session.recorder.done)))
        return session.recorder.tree(int(args.get("iteration", session.recorder.done)))
    if cmd == "bench":
        import time

        start = time.perf_counter()
        session.recorder.run(int(args.get("count", 1000)))
        return {"seconds": time.perf_counter() - start, "recorded": session.recorder.done}
    raise ValueError(f"unknown command {cmd!r}")
