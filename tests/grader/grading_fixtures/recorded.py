"""The answers the public checks record (``mcts_course/grading/tests``), worked out again from
the reference solutions: tests/grader/test_public_checks.py compares the two, so that a
recording can be trusted, and prints the new value when a contract changes."""

from __future__ import annotations

import random

from mcts_grader.solutions import ttt_mcts

from mcts_course.games import TicTacToe
from mcts_course.grading.tests import test_ttt_mcts as public_ttt


def simulate_results() -> str:
    """ttt_mcts.simulate on the cases of test_simulate_uses_rng_as_specified."""
    letter = {(1, -1): "X", (-1, 1): "O", (0, 0): "D"}
    rng = random.Random(5)
    cases = [(public_ttt.random_state(rng), rng.randrange(10**6)) for _ in range(200)]
    return "".join(letter[ttt_mcts.simulate(s, random.Random(seed))] for s, seed in cases)


def ttt_player_moves() -> dict:
    """ttt_mcts.MCTSPlayer's moves in test_player_uses_its_own_generator."""
    states = [TicTacToe.from_moves(m) for m in public_ttt.POSITIONS]
    found = {}
    for seed, c, threshold in ((4, 1.0, 1), (9, 0.7, 2)):
        player = ttt_mcts.MCTSPlayer(iterations=80, c=c, expand_threshold=threshold, seed=seed)
        found[seed, c, threshold] = [player.select_action(state) for state in states]
    return found


# name of the constant in the public module -> (module, how to work it out again)
RECORDINGS = {
    "SIMULATE_RESULTS": (public_ttt, simulate_results),
    "PLAYER_MOVES": (public_ttt, ttt_player_moves),
}
