"""MCTS-Solver's final choice where the only safe move is a draw (chapter "Two extensions").

The package's solver skips proven children in selection, draws included, and chooses its move
by visits among the moves that are not proven losses.  A drawing move proven early therefore
stops collecting visits, and an unproven sibling that in fact loses can overtake it.  This
module measures how often that happens on every tic-tac-toe position whose only non-losing
move draws, against plain UCT on the same positions and seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcts_course.agents import MCTSAgent
from mcts_course.agents.exact import move_values
from mcts_course.agents.mcts import Node
from mcts_course.agents.rollout import seen_by
from mcts_course.agents.solver import DRAW, WIN, MCTSSolverAgent
from mcts_course.games import GameState, TicTacToe
from mcts_lab.experiments import reachable_states


def only_draw_positions() -> list[GameState]:
    """The reachable tic-tac-toe positions, not over, in which exactly one move keeps the draw
    and every other move loses (in a stable order)."""
    found = []
    for state in reachable_states(TicTacToe()):
        if state.is_terminal():
            continue
        values = move_values(state)
        if len(values) > 1 and max(values.values()) == 0 and sorted(values.values())[-2] < 0:
            found.append(state)
    return sorted(found, key=lambda s: str(s))


@dataclass
class DrawCheck:
    """One position searched by the solver and by UCT with the same budget and seed."""

    solver_loses: bool  # the solver played a losing move
    draw_proven: bool  # ... and the drawing move was proven a draw at the root
    uct_loses: bool  # UCT played a losing move


def draw_proven(agent: MCTSSolverAgent, action: int) -> bool:
    """Was the root move ``action`` of the agent's last search proven a draw?"""
    root = agent.last_root
    assert root is not None  # set by a search
    child = root.children.get(action)
    if child is None:
        return False
    value = agent.proven(child)
    return value is not None and seen_by(value, child.player, root.state.current_player) == DRAW


def check(state: GameState, iterations: int, seed: int) -> DrawCheck:
    values = move_values(state)
    drawing = max(values, key=values.__getitem__)
    solver = MCTSSolverAgent(iterations, seed=seed)
    choice = solver.select_action(state)
    uct = MCTSAgent(iterations, seed=seed).select_action(state)
    return DrawCheck(values[choice] < 0, draw_proven(solver, drawing), values[uct] < 0)


def example() -> tuple[str, str, bool, int, int]:
    """The failing case the teacher review found: after a1 c2 b3, O to move, 200 iterations,
    seed 1.  Returns (move played, the drawing move, whether it was proven a draw, the visits
    of each)."""
    state = TicTacToe.from_moves("a1 c2 b3")
    values = move_values(state)
    drawing = max(values, key=values.__getitem__)
    agent = MCTSSolverAgent(200, seed=1)
    choice = agent.select_action(state)
    root = agent.last_root
    assert root is not None
    return (
        state.action_to_string(choice),
        state.action_to_string(drawing),
        draw_proven(agent, drawing),
        root.children[choice].visits,
        root.children[drawing].visits,
    )


def draw_checks(iterations: int = 200, seeds: tuple[int, ...] = (0, 1, 2)) -> list[list[DrawCheck]]:
    """Every position of :func:`only_draw_positions`, searched by each agent with each seed (the
    same seeds for both): one list of checks per position."""
    return [[check(state, iterations, seed) for seed in seeds] for state in only_draw_positions()]


class DrawKeepingSolver(MCTSSolverAgent):
    """Exercise 12.5's answer: a proven win if any; else a proven draw whenever no unproven
    move has a mean reward of at least one half; else the package's choice."""

    def best_action(self, root: Node) -> int:
        mover = root.state.current_player
        known = {}
        for action, child in root.children.items():
            value = self.proven(child)
            if value is not None:
                known[action] = seen_by(value, child.player, mover)
        draws = [a for a, v in known.items() if v == DRAW]
        open_means = [
            child.wins / child.visits
            for action, child in root.children.items()
            if action not in known and child.visits
        ]
        if WIN not in known.values() and draws and all(m < 0.5 for m in open_means):
            return min(draws)
        return super().best_action(root)


def keeping_losses(iterations: int = 200, seeds: tuple[int, ...] = (0, 1, 2)) -> int:
    """How often :class:`DrawKeepingSolver` plays a losing move on the positions of
    :func:`only_draw_positions` (each searched with each seed)."""
    losses = 0
    for state in only_draw_positions():
        values = move_values(state)
        for seed in seeds:
            losses += values[DrawKeepingSolver(iterations, seed=seed).select_action(state)] < 0
    return losses
