"""The grader's test of exercise 5 that needs the reference solution: the MCTS player's moves
compared with the reference's on boards, seeds and exploration constants drawn for the
submission (``submission_seed``), worked out at grading time.

The public checks of the set are in ``mcts_course.grading.tests.test_connect4``.  (Red-team 3
attack 04: with the public test's recorded moves replayed, a player with no search took full
marks: a recording answers fixed questions only.)

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import random

import pytest

from mcts_course.games import ConnectFour
from mcts_course.grading.tests.test_connect4 import _column, columns_of, show
from mcts_grader.solutions import connect4 as ref


def drawn_boards(rng: random.Random, n: int) -> list[tuple[list[list[int]], int]]:
    """``n`` boards of games of 0-8 random moves, not over, and who moves next."""
    boards = []
    while len(boards) < n:
        state = ConnectFour()
        for _ in range(rng.randint(0, 8)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            boards.append((columns_of(state), state.current_player))
    return boards


@pytest.mark.points(
    2,
    exercise="connect4",
    timeout=8,
    hint="self.rng = random.Random(seed) once in __init__; select_action returns "
    "best_action(mcts_search(Position(board, player), self.iterations, self.c, 1, self.rng)), "
    "with your tic-tac-toe functions as they pass exercises 1 and 2",
)
def test_player_follows_the_contract(student, submission_seed):
    """MCTSPlayer: same seed, same moves as the reference, one generator for all its moves"""
    draw = random.Random(submission_seed)
    boards = drawn_boards(draw, 4)
    for _ in range(2):
        seed, c = draw.randrange(2**31), draw.choice((0.5, 0.7, 1.0, 1.4))
        mine = ref.MCTSPlayer(iterations=60, c=c, seed=seed)
        wants = [mine.select_action(copy.deepcopy(b), p) for b, p in boards]
        player = student.MCTSPlayer(iterations=60, c=c, seed=seed)
        name = player.name
        assert isinstance(name, str) and name, f"player.name is {name!r}, not a non-empty str"
        got = [player.select_action(copy.deepcopy(b), p) for b, p in boards]
        if got != wants:
            first = next(i for i, (g, w) in enumerate(zip(got, wants, strict=True)) if g != w)
            raise AssertionError(
                f"MCTSPlayer(iterations=60, c={c}, seed={seed}), asked in turn for a move on "
                f"{len(boards)} boards, played {[_column(g) for g in got]}; the contract gives "
                f"{[_column(w) for w in wants]}.  The first difference, on move {first + 1}:\n"
                f"{show(boards[first][0])}"
            )
