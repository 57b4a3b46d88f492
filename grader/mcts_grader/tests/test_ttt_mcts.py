"""The grader's tests of exercises 1-4 that need the reference solution: the search tree of
the student's mcts_search compared with the reference's, node by node (on positions, budgets and
seeds drawn for the submission), and the step at fault named by running the reference's loop
with one of the student's steps at a time; simulate's
playouts and MCTSPlayer's moves compared with the reference's on inputs drawn for the
submission (``submission_seed``).  (Red team 20, 13: these two were public checks of answers
recorded for fixed inputs, and a submission with no playout and no search replayed the
recording for their points.)

The public checks of the set are in ``mcts_course.grading.tests.test_ttt_mcts``.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import random

import pytest

from mcts_course.games import TicTacToe
from mcts_course.grading.tests.test_ttt_mcts import (
    STEPS,
    random_state,
    shape,
    student_steps,
)
from mcts_grader.contracts import search_with
from mcts_grader.solutions import ttt_mcts as ref


def steps_at_fault(
    student, state, iterations: int, threshold: int, seed: int, want: dict
) -> list[str]:
    """The student's steps that, put alone into the reference's loop, grow another tree than
    ``want`` (the reference's shape): the functions to blame for a wrong mcts_search tree."""
    reference = {name: getattr(ref, name) for name in STEPS}
    culprits = []
    for name in STEPS:
        # (a step that raises here fails the test with its own traceback, which names it)
        # the step works on the loop's own rng and path, as the reference's would
        steps = {**reference, name: student_steps(student)[name]}
        root = search_with(steps, state, iterations, 1.0, threshold, random.Random(seed))
        if shape(root) != want:
            culprits.append(name)
    return culprits


@pytest.mark.points(
    2,
    exercise="ttt_backprop",
    timeout=8,
    hint="follow the four steps as written: expand when the node has at least (>=) "
    "expand_threshold visits, and use the rng only through expand and simulate",
)
def test_search_same_tree_as_reference(student, submission_seed):
    """mcts_search follows the contract: same seed, same tree as the reference"""
    # positions, budgets, thresholds and seeds drawn for this submission: three fixed
    # questions were answered by a table of the reference's trees, with no search (red team 22, 01)
    draw = random.Random(submission_seed)
    cases = [
        (random_state(draw, 3), draw.randint(40, 120), threshold, draw.randrange(2**31))
        for threshold in (1, 2, 3)
    ]
    for state, iterations, threshold, seed in cases:
        want_shape = shape(ref.mcts_search(state, iterations, 1.0, threshold, random.Random(seed)))
        root = student.mcts_search(state, iterations, 1.0, threshold, random.Random(seed))
        got_shape = shape(root)
        if got_shape == want_shape:
            continue
        # Which function is at fault: the reference's loop, run here with one of the student's
        # steps at a time in place of the reference's, tells a wrong step from a wrong loop.
        culprits = steps_at_fault(student, state, iterations, threshold, seed, want_shape)
        if culprits:
            names = " and ".join(f"`{name}`" for name in culprits)
            blame = (
                f"\nThe fault is in your {names}: the reference's mcts_search with your "
                f"{names} in place of its own grows another tree, with each of your other "
                "steps the same tree (check what it does with the rng and with the nodes)."
            )
        else:
            blame = (
                "\nYour select_child, expand, simulate and backpropagate each grow the "
                "reference's tree in the reference's loop: the fault is in the loop of your "
                "mcts_search."
            )
        same_root = [v[0] for v in got_shape.values()] == [v[0] for v in want_shape.values()]
        raise AssertionError(
            f"from\n{state}\nwith {iterations} iterations, c=1, expand_threshold={threshold} "
            f"and random.Random({seed}), the root's children (action: visits) are "
            f"{ {a: v[0] for a, v in got_shape.items()} }; the reference's "
            f"{ {a: v[0] for a, v in want_shape.items()} }"
            + (" (the same at the root: the difference is deeper in the tree)" if same_root else "")
            + blame
        )


@pytest.mark.points(
    1, exercise="ttt_selection", hint="use exactly rng.choice(state.legal_actions()) for each move"
)
def test_simulate_uses_rng_as_specified(student, submission_seed):
    """simulate follows the contract: same rng, same playout as the reference"""
    draw = random.Random(submission_seed)
    cases = [(random_state(draw), draw.randrange(10**6)) for _ in range(200)]
    wants = [tuple(ref.simulate(state, random.Random(seed))) for state, seed in cases]
    results = student.simulate.many([(state, random.Random(seed)) for state, seed in cases])
    for (state, seed), got, want in zip(cases, results, wants, strict=True):
        got = tuple(got) if isinstance(got, tuple | list) else got
        assert got == want, (
            f"with random.Random({seed}) from\n{state}\nyou got {got!r}, the reference {want}"
        )


POSITIONS = ("", "b2", "a1 b2 c3", "b2 a1 c1")


@pytest.mark.points(
    1,
    exercise="ttt_player",
    timeout=5,
    hint="self.rng = random.Random(seed) once in __init__; select_action returns "
    "best_action(mcts_search(state, self.iterations, self.c, self.expand_threshold, self.rng))",
)
def test_player_uses_its_own_generator(student, submission_seed):
    """MCTSPlayer: same seed, same moves as the reference, one generator for all its moves"""
    draw = random.Random(submission_seed)
    states = [TicTacToe.from_moves(m) for m in POSITIONS]
    for threshold in (1, 2):
        seed, c = draw.randrange(2**31), draw.choice((0.7, 1.0, 1.4))
        mine = ref.MCTSPlayer(iterations=80, c=c, expand_threshold=threshold, seed=seed)
        wants = [mine.select_action(state) for state in states]
        player = student.MCTSPlayer(iterations=80, c=c, expand_threshold=threshold, seed=seed)
        got = [player.select_action(state) for state in states]
        assert got == wants, (
            f"MCTSPlayer(iterations=80, c={c}, expand_threshold={threshold}, seed={seed}), asked "
            f"in turn for a move in {len(states)} positions, played {got}; the contract gives "
            f"{wants} (the positions after the moves {', '.join(repr(m) for m in POSITIONS)})"
        )
