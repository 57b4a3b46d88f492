"""The agents: from random play to Monte Carlo Tree Search.

Every agent has ``select_action(state) -> action`` and works unchanged on Othello, tic-tac-toe
and Connect Four; ``seed(n)`` makes it reproducible and ``reset()`` clears per-game memory.
``make_agent("mcts:iterations=200")`` builds one from a text spec.
"""

from mcts_course.agents.bandits import epsilon_greedy, softmax, ucb1
from mcts_course.agents.base import Agent, RandomAgent
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.mcts import MCTSAgent, Node, Step, root_table
from mcts_course.agents.minimax import (
    AlphaBetaAgent,
    MinimaxAgent,
    SearchStats,
    alphabeta_value,
    minimax_value,
)
from mcts_course.agents.montecarlo import MonteCarloAgent
from mcts_course.agents.rollout import Evaluator, RandomRollout
from mcts_course.agents.spec import AGENT_SPECS, make_agent

__all__ = [
    "AGENT_SPECS",
    "Agent",
    "AlphaBetaAgent",
    "CellScoreAgent",
    "Evaluator",
    "MCTSAgent",
    "MinimaxAgent",
    "MonteCarloAgent",
    "Node",
    "RandomAgent",
    "RandomRollout",
    "SearchStats",
    "Step",
    "alphabeta_value",
    "epsilon_greedy",
    "make_agent",
    "minimax_value",
    "root_table",
    "softmax",
    "ucb1",
]
