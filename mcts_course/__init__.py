"""mcts-course: from random play to Monte Carlo Tree Search on Othello, tic-tac-toe and Connect Four."""

__version__ = "0.1.0"
