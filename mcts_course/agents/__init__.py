"""The agents: from random play to Monte Carlo Tree Search.

Every agent has ``select_action(state) -> action`` and works unchanged on Othello, tic-tac-toe
and Connect Four (and any game on the protocol of :mod:`mcts_course.games.base`); ``seed(n)``
makes it reproducible and ``reset()`` clears per-game memory.  Constructors take their budget
first and everything else by keyword; ties between equal moves go to the smallest action.
:mod:`~mcts_course.agents.bandits` holds the one ``ucb1`` score, used by MCTS and flat Monte
Carlo.  ``make_agent("mcts:iterations=200")`` builds an agent from a text spec whose keys are the
constructor's keywords.
"""

from mcts_course.agents.bandits import epsilon_greedy, softmax, ucb1
from mcts_course.agents.base import Agent, RandomAgent
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.endgame import (
    EndgameAgent,
    EndgameHandover,
    EndgameSolver,
    endgame_margins,
    solve_endgame,
)
from mcts_course.agents.exact import PerfectAgent, best_actions, exact_value, move_values
from mcts_course.agents.mcts import MCTSAgent, Node, Step, root_table
from mcts_course.agents.minimax import (
    AlphaBetaAgent,
    MinimaxAgent,
    SearchStats,
    alphabeta_value,
    minimax_value,
)
from mcts_course.agents.montecarlo import MonteCarloAgent
from mcts_course.agents.parallel import RootParallelAgent, TreeParallelAgent
from mcts_course.agents.puct import PUCTAgent
from mcts_course.agents.rave import RAVEAgent
from mcts_course.agents.rollout import Evaluator, RandomRollout
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.agents.spec import AGENT_SPECS, make_agent, with_params
from mcts_course.agents.transpositions import TranspositionMCTSAgent

__all__ = [
    "best_actions",
    "exact_value",
    "move_values",
    "AGENT_SPECS",
    "Agent",
    "AlphaBetaAgent",
    "EndgameAgent",
    "EndgameHandover",
    "EndgameSolver",
    "endgame_margins",
    "solve_endgame",
    "CellScoreAgent",
    "Evaluator",
    "MCTSAgent",
    "MCTSSolverAgent",
    "MinimaxAgent",
    "MonteCarloAgent",
    "Node",
    "PUCTAgent",
    "RAVEAgent",
    "RootParallelAgent",
    "TranspositionMCTSAgent",
    "TreeParallelAgent",
    "PerfectAgent",
    "RandomAgent",
    "RandomRollout",
    "SearchStats",
    "Step",
    "alphabeta_value",
    "epsilon_greedy",
    "make_agent",
    "with_params",
    "minimax_value",
    "root_table",
    "softmax",
    "ucb1",
]
