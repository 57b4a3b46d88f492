"""The contracts' loops the public checks run with a student's own steps, in a graded run only
(:func:`mcts_course.grading.invocation.contract`): written out, each is an exercise's answer,
so it is not in the student's install."""

from __future__ import annotations

from mcts_course.grading.public import Node


def search_with(steps: dict, state, iterations: int, c: float, threshold: int, rng) -> Node:
    """The contract's loop of mcts_search, run by the grader, with each of the four steps taken
    from ``steps`` (the student's, or the reference's in the grader's tests): the tree a
    search grows with those steps."""
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
