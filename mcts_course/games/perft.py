"""Perft: count the leaves of the game tree to a fixed depth, to check move generation.

Convention (Aart Bik's for Othello): every action is a ply, a pass included, and a game that
ends before ``depth`` counts once as a leaf.  The counts are compared in the tests with
published numbers.
"""

from __future__ import annotations

from mcts_course.games.base import GameState


def perft(state: GameState, depth: int) -> int:
    """The number of leaves ``depth`` plies below ``state``."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, not {depth}")
    if depth == 0 or state.is_terminal():
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)  # bulk counting: every child is a leaf
    return sum(perft(state.play(a), depth - 1) for a in actions)
