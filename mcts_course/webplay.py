"""The Python side of the book's play page: a thin JSON API over the package's games and agents.

The page (``book/16_play.md``) runs this module in the reader's browser: a Web Worker loads
Pyodide, installs this package's wheel from the book's own static files, and forwards every
click as one request.  The JavaScript draws boards and trees and never plays or searches
itself; the rules are the game classes', the search is :class:`~mcts_course.agents.MCTSAgent`'s
(one iteration of the step-through mode is :meth:`MCTSAgent.step`).

Requests and answers are JSON text, so nothing but strings crosses the worker boundary::

    handle('{"cmd": "new_game", "board": "main", "game": "othello", "opponent": "mcts"}')

Commands (each answers a ``view`` of the board, or of the step-through tree):
``new_game``, ``human_move`` (``action``), ``agent_move``, ``undo``; ``step_new`` (``game``,
``moves``, ``c``, ``seed``), ``step`` (``count``).  The module imports the standard library,
the games and the agents only, never numpy (absent from the offline Pyodide core).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from mcts_course.agents import Agent, MCTSAgent, Node, make_agent
from mcts_course.agents.bandits import SQRT2, ucb1
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.endgame import EndgameHandover, empty_squares, endgame_margins
from mcts_course.agents.minimax import AlphaBetaAgent, MinimaxAgent, alphabeta_value
from mcts_course.agents.montecarlo import MonteCarloAgent
from mcts_course.agents.puct import PUCTAgent
from mcts_course.games import GameState, IllegalActionError, start_state

if TYPE_CHECKING:  # the network's module is imported only when prior=net loads one
    from mcts_course.learn.network import NetGuide
    from mcts_course.learn.shipped import ShippedNet


def _number(value: float) -> float | str:
    """JSON has no infinity: an unvisited child's UCT value travels as the text "inf"."""
    return "inf" if math.isinf(value) else value


def cells(state: GameState) -> list[int]:
    """The board row by row, flat: -1 empty, 0 or 1 the owner (row 0 printed on top)."""
    return [int(value) for row in state.board() for value in row]


def coordinates(state: GameState) -> dict[str, list[str]]:
    """The board's coordinates as the move notation names them, for the page to print beside
    the board: column names above ("a".."h"; Connect Four's "1".."7"), and row numbers on the
    left where a move names its row (Othello, tic-tac-toe; not Connect Four)."""
    digits = "0123456789"
    columns = []
    for col in range(state.COLS):
        name = _name_at(state, 0, col)
        columns.append(name.rstrip(digits) or name)
    rows = []
    for row in range(state.ROWS):
        name = _name_at(state, row, 0)
        letters = name.rstrip(digits)
        rows.append(name[len(letters) :] if letters else "")
    return {"col_labels": columns, "row_labels": rows if any(rows) else []}


def _name_at(state: GameState, row: int, col: int) -> str:
    """The name of the move that marks cell (row, col); "" if no move can (no label then)."""
    action = state.action_at(row, col)
    return "" if action is None else state.action_to_string(action)


def _cell(state: GameState, action: int) -> list[int] | None:
    cell = state.cell_of(action)
    return None if cell is None else [int(cell[0]), int(cell[1])]


def _visit_row(state: GameState, row: Mapping[str, Any]) -> dict[str, Any]:
    """One move's statistics (MCTS's root table or flat Monte Carlo's ``last_stats``) as sent
    to the page: drawn on the board by visits, listed with wins and mean."""
    return {
        "action": row["action"],
        "cell": _cell(state, row["action"]),
        "move": row["move"],
        "value": row["visits"],
        "visits": row["visits"],
        "wins": round(row["wins"], 1),
        "mean": round(row["mean"], 3),
    }


def agent_thoughts(agent: Agent, state: GameState) -> dict[str, Any] | None:
    """What ``agent`` computed for its last move from ``state``, to draw on that position.

    PUCT with the learned network (``puct:prior=net``): the network's prior of each move, with
    the visits, mean and PUCT score of the search, and the network's value of the position
    (:func:`net_thoughts`); MCTS: the visits of the root's children; flat Monte Carlo: the
    playouts per move; alpha-beta and minimax: each move's value at the depth searched; cell
    score: the weight of each move's cell (``state.cell_weights()``).  None for random play.
    """
    if isinstance(agent, EndgameHandover):  # MCTS, then exact play from N empty squares on
        if empty_squares(state) > agent.endgame:
            return agent_thoughts(agent.agent, state)
        rows: list[dict[str, Any]] = [
            {
                "action": action,
                "cell": _cell(state, action),
                "move": state.action_to_string(action),
                "value": margin,
            }
            for action, margin in endgame_margins(state).items()
        ]
        rows.sort(key=lambda row: (-row["value"], row["action"]))
        return {
            "kind": "exact",
            "empties": empty_squares(state),
            "columns": ["move", "value"],
            "rows": rows,
        }
    if isinstance(agent, PUCTAgent) and agent.prior_name == "net":
        return net_thoughts(agent, state)
    if isinstance(agent, MCTSAgent):
        root = agent.last_root
        if root is None or root.state != state or not root.children:
            return None
        rows = agent.root_table(root)
        return {
            "kind": "visits",
            "iterations": agent.last_iterations,
            "columns": ["move", "visits", "wins", "mean", "uct"],
            "rows": [
                {**_visit_row(state, row), "uct": _number(round(row["uct"], 3))} for row in rows
            ],
        }
    if isinstance(agent, MonteCarloAgent) and agent.last_stats:
        ranked = sorted(agent.last_stats, key=lambda row: (-row["mean"], row["action"]))
        return {
            "kind": "playouts",
            "columns": ["move", "visits", "wins", "mean"],
            "rows": [_visit_row(state, row) for row in ranked],
        }
    if isinstance(agent, CellScoreAgent):
        weights = state.cell_weights()
        rows = []
        for action in state.legal_actions():
            cell = state.cell_of(action)
            if cell is not None:
                weight = weights[cell[0]][cell[1]]
                rows.append(
                    {
                        "action": action,
                        "cell": [cell[0], cell[1]],
                        "move": state.action_to_string(action),
                        "value": weight,
                    }
                )
        rows.sort(key=lambda row: (-row["value"], row["action"]))
        return {"kind": "weights", "columns": ["move", "value"], "rows": rows}
    if isinstance(agent, (AlphaBetaAgent, MinimaxAgent)):
        depth = getattr(agent, "depth_reached", None) or getattr(agent, "depth", None)
        if not depth or state.is_terminal() or len(state.legal_actions()) < 2:
            return None
        return alphabeta_table(state, agent.evaluate, depth)
    return None


def _percent(p: float) -> str:
    return f"{100 * p:.0f}%"


def net_thoughts(agent: PUCTAgent, state: GameState) -> dict[str, Any] | None:
    """The learned network's view of ``state`` beside the search it guided.

    Rows: each legal move's prior probability (``value``, drawn on its cell as a percentage),
    then the search's visits, mean reward and PUCT score there.  ``net_value``: the value head's
    estimate of ``state`` for the player to move (the agent), in [-1, 1].
    """
    root = agent.last_root
    if root is None or root.state != state or not root.children:
        return None
    priors, value = _net_guide(agent, state).predict(state)  # the ShippedNet's cached pass
    rows: list[dict[str, Any]] = []
    for action, child in root.children.items():
        rows.append(
            {
                "action": action,
                "cell": _cell(state, action),
                "move": state.action_to_string(action),
                "value": _percent(priors[action]),
                "prior": _percent(priors[action]),
                "p": priors[action],
                "visits": child.visits,
                "mean": round(child.mean, 3),
                "puct": round(agent.score(root, child), 3),
            }
        )
    rows.sort(key=lambda row: (-row["visits"], -row["p"], row["action"]))
    return {
        "kind": "net",
        "iterations": agent.last_iterations,
        "columns": ["move", "prior", "visits", "mean", "puct"],
        "rows": rows,
        "net_value": round(value, 3),
        "net_player": state.current_player,
    }


def _net_guide(agent: PUCTAgent, state: GameState) -> NetGuide:
    """The network behind ``prior="net"`` (a ShippedNet: one NetGuide per game)."""
    guide: NetGuide = cast("ShippedNet", agent.prior).guide(state)
    return guide


def alphabeta_table(state: GameState, evaluate: Any, depth: int) -> dict[str, Any]:
    """Every move's value (for the player to move) at ``depth``, best first.

    The agent's own root search proves only bounds for the moves it rejects; each move here
    gets a full-window search (the same :func:`alphabeta_value`), so the numbers are exact.
    """
    player = state.current_player
    rows: list[dict[str, Any]] = []
    for action in state.legal_actions():
        value = alphabeta_value(state.play(action), depth - 1, evaluate, player)
        rows.append(
            {
                "action": action,
                "cell": _cell(state, action),
                "move": state.action_to_string(action),
                "value": round(value, 2),
            }
        )
    rows.sort(key=lambda row: (-row["value"], row["action"]))
    return {"kind": "values", "depth": depth, "columns": ["move", "value"], "rows": rows}


class Game:
    """One game between the reader (``human``: 0 moves first) and an agent given by its spec."""

    def __init__(
        self, game: str = "tictactoe", opponent: str = "mcts", human: int = 0, seed: int = 0
    ):
        if human not in (0, 1):
            raise ValueError(f"human must be 0 or 1, not {human}")
        self.agent = make_agent(opponent)
        self.agent.seed(seed)
        self.opponent = opponent
        self.human = human
        self.states = [start_state(game)]
        self.moves: list[int] = []
        self.thoughts: dict[str, Any] | None = None

    @property
    def state(self) -> GameState:
        return self.states[-1]

    def human_move(self, action: int) -> None:
        """Play the reader's ``action``: an IllegalActionError if it is not theirs to play."""
        state = self.state
        if state.is_terminal() or state.current_player != self.human:
            raise IllegalActionError("it is not your turn")
        if action not in state.legal_actions():
            raise IllegalActionError(f"{action} is not a legal move here")
        self._play(action)
        self.thoughts = None

    def agent_move(self) -> None:
        """Let the agent choose and play its move, and keep what it thought about it."""
        state = self.state
        if state.is_terminal() or state.current_player == self.human:
            raise IllegalActionError("it is not the agent's turn")
        start = time.perf_counter()
        action = self.agent.select_action(state)
        seconds = time.perf_counter() - start
        thoughts = agent_thoughts(self.agent, state) if len(state.legal_actions()) > 1 else None
        self.thoughts = {
            **(thoughts or {"kind": None, "rows": []}),
            "agent": self.agent.name,
            "seconds": round(seconds, 3),
            "action": action,
            "move": state.action_to_string(action),
            "position": cells(state),
        }
        self._play(action)
        net = self.thoughts.get("kind") == "net"
        if net and isinstance(self.agent, PUCTAgent) and not self.state.is_terminal():
            after = _net_guide(self.agent, self.state).predict(self.state)[1]
            self.thoughts["net_value_after"] = round(after, 3)

    def undo(self) -> None:
        """Take back moves until the reader is to move again, before their last move."""
        while len(self.states) > 1:
            self.states.pop()
            self.moves.pop()
            if self.state.current_player == self.human:
                break
        self.thoughts = None
        self.agent.reset()

    def _play(self, action: int) -> None:
        self.states.append(self.state.play(action))
        self.moves.append(action)

    def status(self) -> str:
        """Whose turn it is ("... to move"), or who won ("... wins") or that it is a draw."""
        state = self.state
        names = state.PLAYER_NAMES
        if state.is_terminal():
            winner = state.winner()
            score = _score(state)
            if winner is None:
                return f"Game over: a draw{score}."
            who = "you" if winner == self.human else self.agent.name
            return f"{names[winner]} ({who}) wins{score}."
        player = state.current_player
        who = "you" if player == self.human else self.agent.name
        return f"{names[player]} ({who}) to move."

    def view(self) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready values."""
        state = self.state
        terminal = state.is_terminal()
        mine = not terminal and state.current_player == self.human
        start = self.states[0]
        return {
            "kind": "game",
            "game": state.NAME,
            "rows": state.ROWS,
            "cols": state.COLS,
            **coordinates(state),
            "players": list(state.PLAYER_NAMES),
            "human": self.human,
            "to_move": None if terminal else state.current_player,
            "your_turn": mine,
            "terminal": terminal,
            "winner": state.winner() if terminal else None,
            "status": self.status(),
            "cells": cells(state),
            "legal": [
                {"action": a, "cell": _cell(state, a), "move": state.action_to_string(a)}
                for a in (state.legal_actions() if mine else [])
            ],
            "moves": [start.action_to_string(a) for a in self.moves],
            "actions": list(self.moves),
            "last": None
            if not self.moves
            else {"action": self.moves[-1], "cell": _cell(self.states[-2], self.moves[-1])},
            "can_undo": any(s.current_player == self.human for s in self.states[:-1]),
            "thoughts": self.thoughts,
        }


def _score(state: GameState) -> str:
    """The final count, in games that the count decides (Othello): " (40–24)"."""
    counts = state.disc_counts()
    return "" if counts is None else f" ({counts[0]}–{counts[1]})"


class Stepper:
    """MCTS one iteration at a time, described phase by phase for the step-through drawing."""

    def __init__(
        self,
        game: str = "tictactoe",
        moves: list[int] | None = None,
        c: float = SQRT2,
        seed: int = 0,
    ):
        state = start_state(game)
        for action in moves or []:
            state = state.play(action)
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to search")
        self.agent = MCTSAgent(iterations=1, c=c, seed=seed)
        self.root = Node(state)
        self.iterations = 0
        self.last: dict[str, Any] | None = None

    def step(self, count: int = 1) -> None:
        """Run ``count`` iterations; describe the last one."""
        for _ in range(count):
            step = self.agent.step(self.root)  # the agent's own iteration, all four phases
            self.iterations += 1
        self.last = self._describe(step.path, step.expanded, tuple(step.returns))

    def _describe(
        self, path: list[Node], expanded: Node | None, returns: tuple[float, ...]
    ) -> dict[str, Any]:
        """The four phases of the iteration just run, with the statistics before and after it.

        A node on the path gained one visit and its player's reward; subtracting them gives the
        numbers selection saw, so the UCT values shown are the ones that chose the path.
        """
        rewards = [(r + 1) / 2 for r in returns]
        on_path = {id(node) for node in path}
        levels = []
        for depth, node in enumerate(path[:-1]):
            parent_before = node.visits - 1
            chosen = path[depth + 1]
            children: list[dict[str, Any]] = []
            for action, child in node.children.items():
                visits, wins = child.visits, child.wins
                if id(child) in on_path:
                    visits, wins = visits - 1, wins - rewards[child.player]
                uct = ucb1(wins, visits, parent_before, self.agent.c) if parent_before else None
                children.append(
                    {
                        "action": action,
                        "move": node.state.action_to_string(action),
                        "player": child.player,
                        "before": [round(wins, 1), visits],
                        "after": [round(child.wins, 1), child.visits],
                        "uct": None if uct is None or child is expanded else _number(round(uct, 3)),
                        "chosen": child is chosen,
                        "new": child is expanded,
                    }
                )
            children.sort(key=lambda row: row["action"])
            levels.append(
                {
                    "depth": depth,
                    "by": "expansion" if chosen is expanded else "uct",
                    "untried": len(node.untried or []),
                    "children": children,
                }
            )
        state = self.root.state
        return {
            "path": [node.state.action_to_string(_action(node)) for node in path[1:]],
            "path_players": [node.player for node in path[1:]],
            "expanded": None if expanded is None else state.action_to_string(_action(expanded)),
            "returns": list(returns),
            "rewards": rewards,
            "leaf_terminal": path[-1].state.is_terminal(),
            "levels": levels,
        }

    def view(self) -> dict[str, Any]:
        state = self.root.state
        root = self.root
        children = [
            {
                "action": a,
                "cell": _cell(state, a),
                "move": state.action_to_string(a),
                "wins": round(ch.wins, 1),
                "visits": ch.visits,
                "uct": _number(round(ucb1(ch.wins, ch.visits, root.visits, self.agent.c), 3))
                if root.visits
                else None,
            }
            for a, ch in sorted(root.children.items())
        ]
        return {
            "kind": "step",
            "game": state.NAME,
            "rows": state.ROWS,
            "cols": state.COLS,
            **coordinates(state),
            "players": list(state.PLAYER_NAMES),
            "to_move": state.current_player,
            "cells": cells(state),
            "c": self.agent.c,
            "iterations": self.iterations,
            "nodes": _count(root),
            "root": {"wins": round(root.wins, 1), "visits": root.visits, "player": root.player},
            "root_children": children,
            "last": self.last,
        }


def _action(child: Node) -> int:
    """The move that led to ``child`` (only the root has none)."""
    return cast(int, child.action)


def _count(node: Node) -> int:
    return 1 + sum(_count(child) for child in node.children.values())


# -- the request handler the worker calls --------------------------------------------------------
_BOARDS: dict[str, Game] = {}
_STEPPERS: dict[str, Stepper] = {}


def handle(request: str) -> str:
    """Answer one JSON request (see the module docstring) with JSON: the view, or an error."""
    try:
        args = json.loads(request)
        return json.dumps({"ok": True, "view": _dispatch(args)})
    except (ValueError, KeyError, TypeError) as error:
        return json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"})


def _dispatch(args: dict[str, Any]) -> dict[str, Any]:
    cmd, board = args["cmd"], str(args.get("board", "main"))
    if cmd == "new_game":
        _BOARDS[board] = Game(
            args.get("game", "tictactoe"),
            args.get("opponent", "mcts"),
            int(args.get("human", 0)),
            int(args.get("seed", 0)),
        )
        return _BOARDS[board].view()
    if cmd == "step_new":
        _STEPPERS[board] = Stepper(
            args.get("game", "tictactoe"),
            [int(a) for a in args.get("moves", [])],
            float(args.get("c", SQRT2)),
            int(args.get("seed", 0)),
        )
        return _STEPPERS[board].view()
    if cmd == "step":
        stepper = _STEPPERS[board]
        stepper.step(max(1, min(int(args.get("count", 1)), 10_000)))
        return stepper.view()
    game = _BOARDS[board]
    if cmd == "human_move":
        game.human_move(int(args["action"]))
    elif cmd == "agent_move":
        game.agent_move()
    elif cmd == "undo":
        game.undo()
    elif cmd != "view":
        raise ValueError(f"unknown command {cmd!r}")
    return game.view()
