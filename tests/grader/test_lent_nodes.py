"""One rule for what flows back from the student's code: a call works on copies of the test's
arguments, tree nodes included, and only a call made with ``.keeping`` (or ``keep=True``)
writes the student's changes back into the test's objects (red-team 4: a submission could set
visits on the grader's root in any call that lent it)."""

from __future__ import annotations

import random

from mcts_course.games import TicTacToe
from mcts_course.grading.notebook import NotebookTransport
from mcts_course.grading.proxies import Connection, Student
from mcts_course.grading.public import Node

# The student's side, run by the grading server in this process (as a notebook's check does):
# every answer still goes through the protocol's JSON, as from a student's process.
TAMPERS = """
def tamper(node):
    node.visits = 99
    node.wins = 99.0
    node.untried.clear()
    node.children.clear()
    return node


def grow(node, rng):
    action = rng.choice(node.untried)
    node.untried.remove(action)
    child = Node(node.state.play(action), node, action)
    node.children[action] = child
    return child
"""


def _student() -> Student:
    namespace: dict = {"__name__": "tamper_notebook", "Node": Node}
    exec(compile(TAMPERS, "<tamper>", "exec"), namespace)
    connection = Connection(NotebookTransport(namespace))
    connection.begin_test(5.0)
    return Student(connection, {"tamper", "grow"})


def _root() -> Node:
    root = Node(TicTacToe.from_moves("b2"))
    child = Node(root.state.play(0), root, 0)
    root.children[0] = child
    root.untried.remove(0)
    root.visits, root.wins, child.visits, child.wins = 3, 1.5, 2, 1.0
    return root


def _stats(root: Node) -> tuple:
    return (
        root.visits,
        root.wins,
        list(root.untried),
        {a: (c.visits, c.wins) for a, c in root.children.items()},
    )


def test_a_lent_node_changed_in_a_plain_call_is_left_as_it_was():
    student, root = _student(), _root()
    before, child = _stats(root), root.children[0]
    got = student.tamper(root)
    assert _stats(root) == before and root.children[0] is child
    assert got is root  # the answer names the test's own node, unchanged


def test_a_node_added_in_a_plain_call_stays_in_the_students_copy():
    student, root = _student(), _root()
    before, rng = _stats(root), random.Random(3)
    state = rng.getstate()
    child = student.grow(root, rng)
    assert _stats(root) == before and child.action not in root.children
    assert rng.getstate() == state  # the generator's draws stay there too


def test_keeping_writes_the_changes_back():
    student, root = _student(), _root()
    student.tamper.keeping(root)
    assert (root.visits, root.wins, root.untried, root.children) == (99, 99.0, [], {})
    root, rng = _root(), random.Random(3)
    want = random.Random(3).choice(root.untried)
    child = student.grow.keeping(root, rng)
    assert child.action == want and root.children[want] is child and child.parent is root
    assert want not in root.untried
