"""mcts-course: from random play to Monte Carlo Tree Search on three board games."""

__version__ = "0.2.0"
