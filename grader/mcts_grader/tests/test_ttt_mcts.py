"""The grader's tests of exercises 1-4 that need the reference solution: the search tree of
the student's mcts_search compared with the reference's, node by node, and the step at fault
named by running the reference's loop with one of the student's steps at a time.

The public checks of the set are in ``mcts_course.grading.tests.test_ttt_mcts``.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import random

import pytest

from mcts_course.games import TicTacToe
from mcts_course.grading.public import Node
from mcts_grader.solutions import ttt_mcts as ref


def _shape(node) -> dict:
    """{action: (visits, wins, shape of the child)} of a tree, for comparing two trees."""
    return {
        a: (ch.visits, round(ch.wins, 6), _shape(ch)) for a, ch in sorted(node.children.items())
    }


STEPS = ("select_child", "expand", "simulate", "backpropagate")


def search_with(steps: dict, state, iterations: int, c: float, threshold: int, rng) -> Node:
    """The contract's loop of mcts_search, in the grader, with each of the four steps taken from
    ``steps``: the reference's functions, or one of them replaced by the student's."""
    root = Node(state)
    for _ in range(iterations):
        node, path = root, [root]
        while not node.untried and node.children:
            node = steps["select_child"](node, c)
            path.append(node)
        if node.untried and (node is root or node.visits >= threshold):
            node = steps["expand"](node, rng)
            path.append(node)
        steps["backpropagate"](path, steps["simulate"](node.state, rng))
    return root


def steps_at_fault(student, state, iterations: int, threshold: int, want: dict) -> list[str]:
    """The student's steps that, put alone into the reference's loop, grow another tree than
    ``want`` (the reference's shape): the functions to blame for a wrong mcts_search tree."""
    reference = {name: getattr(ref, name) for name in STEPS}
    culprits = []
    for name in STEPS:
        # (a step that raises here fails the test with its own traceback, which names it)
        # .keeping: the step works on the loop's own rng and path, as the reference's would
        steps = {**reference, name: getattr(student, name).keeping}
        root = search_with(steps, state, iterations, 1.0, threshold, random.Random(7))
        if _shape(root) != want:
            culprits.append(name)
    return culprits


@pytest.mark.points(
    2,
    exercise="ttt_backprop",
    timeout=8,
    hint="follow the four steps as written: expand when the node has at least (>=) "
    "expand_threshold visits, and use the rng only through expand and simulate",
)
def test_search_same_tree_as_reference(student):
    """mcts_search follows the contract: same seed, same tree as the reference"""
    for moves, iterations, threshold in (("", 60, 1), ("b2 a1", 80, 2), ("a1", 120, 3)):
        state = TicTacToe.from_moves(moves)
        want_shape = _shape(ref.mcts_search(state, iterations, 1.0, threshold, random.Random(7)))
        root = student.mcts_search(state, iterations, 1.0, threshold, random.Random(7))
        got_shape = _shape(root)
        if got_shape == want_shape:
            continue
        # Which function is at fault: the reference's loop, run here with one of the student's
        # steps at a time in place of the reference's, tells a wrong step from a wrong loop.
        culprits = steps_at_fault(student, state, iterations, threshold, want_shape)
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
            f"and random.Random(7), the root's children (action: visits) are "
            f"{ {a: v[0] for a, v in got_shape.items()} }; the reference's "
            f"{ {a: v[0] for a, v in want_shape.items()} }"
            + (" (the same at the root: the difference is deeper in the tree)" if same_root else "")
            + blame
        )
