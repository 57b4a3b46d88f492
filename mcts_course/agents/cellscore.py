"""CellScore: play on the square with the best positional weight, without any search."""

from __future__ import annotations

from mcts_course.agents.bandits import first_max
from mcts_course.agents.base import Agent
from mcts_course.games.base import GameState


class CellScoreAgent(Agent):
    """Picks the move whose cell has the highest weight (ties: the smallest action).

    The weights are the game's ``cell_weights()``: the classic square weights in Othello, the
    number of winning lines through the cell in tic-tac-toe and Connect Four (where a move is
    scored by the cell the disc lands in).  A pass, Othello's only move when stuck, has no cell.
    """

    name = "CellScore"

    def select_action(self, state: GameState) -> int:
        actions = self._legal(state)
        if len(actions) == 1:
            return actions[0]
        weights = state.cell_weights()
        scores = []
        for action in actions:
            cell = state.cell_of(action)
            scores.append(float("-inf") if cell is None else float(weights[cell[0]][cell[1]]))
        return actions[first_max(scores)]
