"""The code the exercises give, defined once: the teaching ``Node``, ``reward`` and the Othello
evaluation ``disc_difference``.

The exercise files (``exercises/*.py``) and the exercise pages import these, the reference
solutions import them, and the grader hands the same objects across the process boundary
(:mod:`mcts_course.grading.public`), so that the class a student reads is the class the grader
builds trees of.  The pages show this source with ``show_source``.

Given code that calls a student's own functions (``make_policy``, Connect Four's ``Position``)
cannot live here, since it must find those functions in the student's module: it is written
once in the exercise file, and ``tests/test_exercise_pages.py`` checks that the page and the
reference solution hold it word for word.

This teaching ``Node`` is not :class:`mcts_course.agents.mcts.Node`: it keeps a ``parent`` link
and lists its untried actions at once, as the exercises' contracts say.
"""

from __future__ import annotations

from mcts_course.games.base import GameState, Returns


class Node:
    """A node of the search tree (given: do not change it)."""

    def __init__(self, state: GameState, parent: Node | None = None, action: int | None = None):
        self.state = state
        self.parent = parent
        self.action = action  # the action that led here from the parent
        self.children: dict[int, Node] = {}
        self.untried: list[int] = list(state.legal_actions())  # actions not expanded yet
        self.visits = 0
        self.wins = 0.0  # reward sum for `player`: win 1, draw 0.5, loss 0
        # The player who moved INTO this node (for the root: the opponent of the player to move).
        self.player = parent.state.current_player if parent else 1 - state.current_player

    def __repr__(self) -> str:
        return f"Node(action={self.action}, visits={self.visits}, wins={self.wins})"


def reward(returns: Returns, player: int) -> float:
    """The reward of ``player`` in [0, 1] from the returns (+1, 0, -1) of a finished game."""
    return (returns[player] + 1) / 2


def disc_difference(state: GameState, player: int) -> float:
    """Discs of ``player`` minus discs of the opponent; +-1000 times the result at the end."""
    if state.is_terminal():
        return 1000.0 * state.returns()[player]
    cells = [owner for row in state.board() for owner in row]  # board(): rows of -1, 0, 1
    return float(cells.count(player) - cells.count(1 - player))
