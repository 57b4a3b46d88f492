"""MCTS-Solver's final choice where the only safe move is a draw (chapter "Two extensions").

The package's solver skips proven children in selection, draws included, so a drawing move
proven early stops collecting visits.  A final choice by visits alone (the most visited move
that is not a proven loss) can then throw the proven draw away for an unproven sibling that in
fact loses.  The package's rule lets the most visited move give way to a proven draw when it is
unproven and its mean does not beat a draw's ½.  This module measures both rules, and plain
UCT, on every tic-tac-toe position whose only non-losing move draws.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcts_course.agents import MCTSAgent
from mcts_course.agents.exact import move_values
from mcts_course.agents.mcts import Node, argmax
from mcts_course.agents.rollout import seen_by
from mcts_course.agents.solver import DRAW, LOSS, WIN, MCTSSolverAgent
from mcts_course.games import GameState, TicTacToe
from mcts_lab.experiments import reachable_states

EXAMPLE = "a1 c2 b3"  # O to move; only b2 draws (teacher review 9: seed 1, 200 iterations)


class VisitsOnlySolver(MCTSSolverAgent):
    """The final choice by visits alone: a proven win if any, else the most visited move that
    is not a proven loss (the package's rule before proven draws were given precedence)."""

    def best_action(self, root: Node) -> int:
        mover = root.state.current_player
        known = {}
        for action, child in root.children.items():
            value = self.proven(child)
            if value is not None:
                known[action] = seen_by(value, child.player, mover)
        wins = [a for a, v in known.items() if v == WIN]
        if wins:
            return min(wins)
        safe = {a: ch for a, ch in root.children.items() if known.get(a) != LOSS}
        return argmax(safe or root.children, lambda child: child.visits)


def only_draw_positions() -> list[GameState]:
    """The reachable tic-tac-toe positions, not over, with more than one legal move, in which
    exactly one move keeps the draw and every other move loses (in a stable order)."""
    found = []
    for state in reachable_states(TicTacToe()):
        values = move_values(state)
        if len(values) > 1 and max(values.values()) == 0 and sorted(values.values())[-2] < 0:
            found.append(state)
    return sorted(found, key=str)


def draw_proven(agent: MCTSSolverAgent, action: int) -> bool:
    """Was the root move ``action`` of the agent's last search proven a draw?"""
    root = agent.last_root
    assert root is not None  # set by a search
    child = root.children.get(action)
    if child is None:
        return False
    value = agent.proven(child)
    return value is not None and seen_by(value, child.player, root.state.current_player) == DRAW


@dataclass
class DrawCheck:
    """One position searched by three agents with the same budget and seed."""

    solver_loses: bool  # the package's MCTS-Solver played a losing move
    visits_loses: bool  # the visits-only rule played a losing move
    visits_thrown: bool  # ... though the drawing move was proven a draw at the root
    uct_loses: bool  # plain UCT played a losing move


def check(state: GameState, iterations: int, seed: int) -> DrawCheck:
    values = move_values(state)
    drawing = max(values, key=values.__getitem__)
    solver = MCTSSolverAgent(iterations, seed=seed).select_action(state)
    visits_agent = VisitsOnlySolver(iterations, seed=seed)
    visits = visits_agent.select_action(state)
    uct = MCTSAgent(iterations, seed=seed).select_action(state)
    visits_loses = values[visits] < 0
    return DrawCheck(
        values[solver] < 0,
        visits_loses,
        visits_loses and draw_proven(visits_agent, drawing),
        values[uct] < 0,
    )


def example(iterations: int = 200, seed: int = 1) -> dict[str, str | int | bool]:
    """The case of :data:`EXAMPLE`: each rule's move, the drawing move, whether the visits-only
    search proved it, and the visits of its choice and of the draw."""
    state = TicTacToe.from_moves(EXAMPLE)
    values = move_values(state)
    drawing = max(values, key=values.__getitem__)
    visits_agent = VisitsOnlySolver(iterations, seed=seed)
    visits_choice = visits_agent.select_action(state)
    root = visits_agent.last_root
    assert root is not None
    solver_choice = MCTSSolverAgent(iterations, seed=seed).select_action(state)
    return {
        "visits_move": state.action_to_string(visits_choice),
        "visits_move_loses": values[visits_choice] < 0,
        "solver_move": state.action_to_string(solver_choice),
        "draw": state.action_to_string(drawing),
        "draw_proven": draw_proven(visits_agent, drawing),
        "move_visits": root.children[visits_choice].visits,
        "draw_visits": root.children[drawing].visits,
    }


def draw_checks(iterations: int = 200, seeds: tuple[int, ...] = (0, 1, 2)) -> list[list[DrawCheck]]:
    """Every position of :func:`only_draw_positions`, searched by each agent with each seed (the
    same seeds for all): one list of checks per position."""
    return [[check(state, iterations, seed) for seed in seeds] for state in only_draw_positions()]
