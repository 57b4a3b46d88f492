"""Exact values of positions small enough to search to the end: the package's one exact solver.

Negamax values every position from the point of view of the player to move there, so one
function serves both players: the value of a position is the best, over the moves, of minus the
value of the position after the move.  Two classic refinements make it fast enough for the whole
of tic-tac-toe and for late Connect Four and Othello endgames:

* **alpha-beta** bounds (a move that cannot change the result is not searched to the end);
* a **transposition table**: the same position reached by different move orders is searched
  once.  An entry holds what is known of the position's value, a lower and an upper bound
  (equal once the value is exact), because a search cut short by alpha-beta proves only a bound.

Values are the games' results: +1 win, 0 draw, -1 loss for the player to move.  A pass (Othello)
leaves the same player to move, so the child's value is then not negated.
"""

from __future__ import annotations

from mcts_course.agents.base import Agent
from mcts_course.games.base import GameState

# What is known of each position's value, (lower bound, upper bound).  Bounds stay true forever,
# so the table is shared between calls; it is emptied when it grows past this many entries.
_TABLE: dict[GameState, tuple[int, int]] = {}
_TABLE_LIMIT = 2_000_000


def forget() -> None:
    """Empty the table: for a caller solving many unrelated positions, which share little and
    would only fill memory."""
    _TABLE.clear()


def exact_value(state: GameState) -> int:
    """The game value of ``state`` for the player to move: +1 win, 0 draw, -1 loss."""
    if len(_TABLE) > _TABLE_LIMIT:
        _TABLE.clear()
    return negamax(state, -1, 1)


def negamax(state: GameState, alpha: int, beta: int) -> int:
    """The value of ``state`` for the player to move if it lies in (alpha, beta); otherwise a
    bound on the same side of the window (the search stops as soon as the window is settled)."""
    if state.is_terminal():
        return state.returns()[state.current_player]
    low, high = _TABLE.get(state, (-1, 1))
    if low >= beta or low == high:
        return low
    if high <= alpha:
        return high
    alpha, beta = max(alpha, low), min(beta, high)
    window_low = alpha
    best = -1
    for action in state.legal_actions():
        child = state.play(action)
        if child.current_player == state.current_player:  # a pass: the mover moves again
            value = negamax(child, alpha, beta)
        else:
            value = -negamax(child, -beta, -alpha)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:  # the opponent will not allow this position: stop here
            break
    if best >= beta:  # cut off: the value is at least best
        _TABLE[state] = (max(low, best), high)
    elif best <= window_low:  # every move failed low: the value is at most best
        _TABLE[state] = (low, min(high, best))
    else:
        _TABLE[state] = (best, best)
    return best


def move_values(state: GameState) -> dict[int, int]:
    """The exact value of every legal move of ``state``, for the player to move."""
    values = {}
    for action in state.legal_actions():
        child = state.play(action)
        value = exact_value(child)
        values[action] = value if child.current_player == state.current_player else -value
    return values


def best_actions(state: GameState) -> list[int]:
    """The legal moves of ``state`` that keep its exact value, in increasing order."""
    values = move_values(state)
    best = max(values.values())
    return [a for a in sorted(values) if values[a] == best]


class PerfectAgent(Agent):
    """Perfect play for positions small enough to solve: a move of the best exact value, drawn
    at random (from the agent's seeded generator) among the equally good ones, so games vary."""

    name = "perfect"

    def select_action(self, state: GameState) -> int:
        self._legal(state)
        return self.rng.choice(best_actions(state))
