"""Public checks of exercise 8: training targets from a search, and PUCT's selection.

Answers recorded for fixed questions: the values of short games, the limit of the policy
target, PUCT's score on a few children (a check that works a contract out would hold the
exercise's answer, and a student's install holds none: red team 32, 07).  The targets and
PUCT's selection on many drawn questions are the grader's (``mcts_grader.tests.test_learning``).

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import math

import pytest

from mcts_course.games import ConnectFour, TicTacToe

# policy_target(visits, temperature): the target, recorded
TARGETS = [
    ({0: 5, 1: 9, 2: 9}, 0.0, {0: 0.0, 1: 0.5, 2: 0.5}),
    ({3: 7, 5: 7, 6: 7, 7: 2}, 0.0, {3: 1 / 3, 5: 1 / 3, 6: 1 / 3, 7: 0.0}),
    ({2: 1, 4: 0}, 0.0, {2: 1.0, 4: 0.0}),
    ({0: 0, 1: 12, 2: 3}, 0.0, {0: 0.0, 1: 1.0, 2: 0.0}),
    # beside them, temperature 1: a target that knows only the limit earns nothing
    ({0: 10, 1: 30, 2: 0}, 1.0, {0: 0.25, 1: 0.75, 2: 0.0}),
    ({4: 1, 5: 3}, 1.0, {4: 0.25, 5: 0.75}),
]
# whole games (the moves), and each position's value target for the player to move, recorded
GAMES = [
    (TicTacToe, "a1 b1 a2 b2 a3", [1, -1, 1, -1, 1]),
    (TicTacToe, "a1 b1 a2 b2 c3 b3", [-1, 1, -1, 1, -1, 1]),
    (TicTacToe, "b2 a1 c3 a3 a2 c2 b3 b1 c1", [0] * 9),
    (ConnectFour, "1 2 1 2 1 2 1", [1, -1, 1, -1, 1, -1, 1]),
    (ConnectFour, "1 2 1 2 3 2 7 2", [-1, 1, -1, 1, -1, 1, -1, 1]),
]

# puct_score(wins, visits, parent_visits, prior, c, fpu): its value, recorded
UNVISITED = {
    (0.0, 0, 9, 0.25, 1.0, 0.5): 1.25,
    (0.0, 0, 16, 0.5, 2.0, 1.0): 5.0,
    (0.0, 0, 1, 0.1, 1.5, 0.3): 0.45,
    # visited children beside them: a score that is always fpu's earns nothing
    (3.0, 4, 9, 0.25, 1.0, 0.5): 0.9,
    (1.5, 6, 16, 0.5, 2.0, 1.0): 0.8214285714285714,
    (0.0, 2, 5, 0.1, 1.5, 0.3): 0.11180339887498951,
}


@pytest.mark.points(
    1,
    exercise="learning",
    hint="a child never visited has Q = fpu (not 0, not infinity) and the bonus "
    "c * prior * sqrt(parent_visits) / 1",
)
def test_puct_score_unvisited(student):
    """an unvisited child scores fpu plus its prior's bonus"""
    cases = list(UNVISITED)
    for args, got in zip(cases, student.puct_score.many(cases), strict=True):
        want = UNVISITED[args]
        assert isinstance(got, int | float) and math.isclose(got, want, rel_tol=1e-9), (
            "puct_score(wins={}, visits={}, parent_visits={}, prior={}, c={}, fpu={}) = {!r}, "
            "expected {:g}".format(*args, got, want)
        )


@pytest.mark.points(
    1,
    exercise="learning",
    hint="temperature 0 is the limit: all on the most visited move, shared equally among the "
    "moves that tie for the most visits (no division by 0)",
)
def test_policy_target_temperature_zero(student):
    """at temperature 0 the target is the most visited move, shared equally in a tie"""
    calls = copy.deepcopy([(visits, temperature) for visits, temperature, _ in TARGETS])
    for (visits, temperature, want), got in zip(
        TARGETS, student.policy_target.many(calls), strict=True
    ):
        call = f"policy_target({visits}, temperature={temperature:g})"
        assert isinstance(got, dict) and set(got) == set(want), (
            f"{call} returned {got!r}; expected the moves {sorted(want)}"
        )
        for move, p in want.items():
            assert isinstance(got[move], int | float) and math.isclose(
                got[move], p, abs_tol=1e-9
            ), f"{call} gave move {move} the probability {got[move]!r}, expected {p:.6f}"


def _record(game, moves: str):
    """The positions of a game (each before its move) and where it ended."""
    state, positions = game(), []
    for move in moves.split():
        positions.append(state)
        state = state.play(state.parse_action(move))
    return positions, state


@pytest.mark.points(
    2,
    exercise="learning",
    hint="the target of a position is the game's result for the player TO MOVE there: +1, 0 or -1",
)
def test_value_targets(student):
    """value targets of whole games of tic-tac-toe and Connect Four"""
    cases = [_record(game, moves) for game, moves, _ in GAMES]
    results = student.value_targets.many(copy.deepcopy(cases))
    for (game, moves, want), got in zip(GAMES, results, strict=True):
        assert isinstance(got, list | tuple) and list(got) == want, (
            f"the {game.NAME} game {moves} ended with returns (player 0, player 1) "
            f"{_record(game, moves)[1].returns()}; the targets of its positions, for the player "
            f"to move in each, are {want}; you gave {got!r}"
        )
