"""Public checks of exercises 1-4: MCTS on tic-tac-toe (exercises/ttt_mcts.py).

Every expectation here is a public fact: the contract's formula (the library's own
:func:`~mcts_course.agents.bandits.ucb1`), exact probabilities and values of tic-tac-toe,
invariants of the tree, or answers recorded for fixed questions (the grader's tests check the
recordings against the reference solution).  The test that compares a whole search tree with
the reference's, step by step, is in the grader (``mcts_grader.tests.test_ttt_mcts``).

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import random
from typing import Any

import pytest

from mcts_course.agents.bandits import ucb1
from mcts_course.games import TicTacToe
from mcts_course.grading import invocation
from mcts_course.grading.public import Node


# -- helpers ---------------------------------------------------------------------------------
def random_state(rng: random.Random, max_moves: int = 7) -> TicTacToe:
    """A position after 0..max_moves random moves that is not over."""
    while True:
        state = TicTacToe()
        for _ in range(rng.randint(0, max_moves)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


def tree_with_children(student, rng: random.Random, ties: bool = False, shuffle: bool = False):
    """A root whose children have random visit counts and win sums (added in a random order
    with ``shuffle``, so that ``node.children`` is not sorted)."""
    root = Node(random_state(rng))
    actions = list(root.untried)
    if shuffle:
        rng.shuffle(actions)
    for action in actions:
        if rng.random() < 0.2 and root.children:
            continue
        child = Node(root.state.play(action), root, action)
        child.visits = rng.choice([3, 5]) if ties else rng.randint(1, 40)
        child.wins = child.visits * (0.5 if ties else rng.random())
        root.children[action] = child
        root.untried.remove(action)
    root.visits = sum(ch.visits for ch in root.children.values()) + rng.randint(0, 3)
    return root


def child_stats(root, means: bool = True) -> dict:
    """{action: visits} or {action: (visits, mean)} of a node's children, for messages."""
    kids = sorted(root.children.items())
    if not means:
        return {a: ch.visits for a, ch in kids}
    return {a: (ch.visits, round(ch.wins / max(ch.visits, 1), 2)) for a, ch in kids}


def path_of(student, rng: random.Random):
    """A root-to-leaf path of fresh nodes, made by playing random moves."""
    node = Node(random_state(rng, 4))
    path = [node]
    while not node.state.is_terminal() and rng.random() < 0.8:
        action = rng.choice(node.state.legal_actions())
        child = Node(node.state.play(action), node, action)
        node.children[action] = child
        path.append(child)
        node = child
    return path


def players(path) -> list[int]:
    """Who moved INTO each node of a path (for the root: the opponent of its mover)."""
    root = path[0].state
    return [1 - root.current_player] + [n.state.current_player for n in path[:-1]]


@functools.cache
def outcome_probabilities(state: TicTacToe) -> tuple[float, float, float]:
    """Exact (X wins, O wins, draw) probabilities of uniformly random play from ``state``."""
    if state.is_terminal():
        w = state.winner()
        return (w == 0, w == 1, w is None)
    children = [outcome_probabilities(state.play(a)) for a in state.legal_actions()]
    x, o, draw = (sum(p[i] for p in children) / len(children) for i in range(3))
    return x, o, draw


@functools.cache
def perfect_value(state: TicTacToe) -> int:
    """The game-theoretic value for player 0 (X): +1, 0, -1."""
    if state.is_terminal():
        return state.returns()[0]
    values = [perfect_value(state.play(a)) for a in state.legal_actions()]
    return max(values) if state.current_player == 0 else min(values)


class PerfectPlayer:
    """Plays a random move among the optimal ones."""

    name = "perfect"

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def select_action(self, state):
        sign = 1 if state.current_player == 0 else -1
        values = {a: sign * perfect_value(state.play(a)) for a in state.legal_actions()}
        best = max(values.values())
        return self.rng.choice([a for a, v in values.items() if v == best])


class RandomPlayer:
    name = "random"

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def select_action(self, state):
        return self.rng.choice(state.legal_actions())


def play(players, state=None):
    state = state or TicTacToe()
    while not state.is_terminal():
        action = players[state.current_player].select_action(state)
        assert action in state.legal_actions(), (
            f"{players[state.current_player].name} chose {action!r}, not a legal move in\n{state}"
        )
        state = state.play(action)
    return state.returns()


# -- exercise 1: selection and simulation -------------------------------------------------------
@pytest.mark.points(
    1, exercise="ttt_selection", hint="a child never visited must be tried first: return math.inf"
)
def test_ucb1_unvisited(student, submission_seed):
    """ucb1 of an unvisited child is infinite, and only of an unvisited one"""
    rng = random.Random(submission_seed)
    cases = [(0.0, 0, rng.randint(1, 50), rng.choice([0.5, 1.4, 2.0])) for _ in range(3)]
    for args, value in zip(cases, student.ucb1.many(cases), strict=True):
        assert value == math.inf, f"ucb1{args} of a child with 0 visits gave {value!r}, not inf"
    # a constant math.inf is no answer: a visited child has a finite score
    visited = (1.0, 2, rng.randint(3, 50), 1.4)
    value = student.ucb1(*visited)
    assert isinstance(value, int | float) and math.isclose(value, ucb1(*visited)), (
        f"ucb1{visited} of a child visited twice gave {value!r}, not {ucb1(*visited):.6f}: "
        "only 0 visits give math.inf"
    )


@pytest.mark.points(
    2,
    exercise="ttt_selection",
    hint="mean = wins / visits; bonus = c * sqrt(ln(parent_visits) / visits)",
)
def test_ucb1_values(student):
    """ucb1 equals the formula on 300 random cases"""
    rng = random.Random(1)
    cases = []
    for _ in range(300):
        visits = rng.randint(1, 100)
        wins = round(rng.uniform(0, visits) * 2) / 2
        parent_visits = visits + rng.randint(0, 200)
        cases.append((wins, visits, parent_visits, rng.choice([0.0, 0.5, 1.0, math.sqrt(2), 2.5])))
    for args, got in zip(cases, student.ucb1.many(cases), strict=True):
        want = ucb1(*args)
        assert isinstance(got, int | float), f"ucb1{args} returned {got!r}, not a number"
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12), (
            "ucb1(wins={}, visits={}, parent_visits={}, c={:.3f}) = {!r}, expected {:.6f}".format(
                *args, got, want
            )
        )


def children_text(root) -> str:
    """{action: (visits, wins)} of a node's children in the order they were added (the order a
    dict of them iterates in), for messages."""
    return str({a: (ch.visits, round(ch.wins, 2)) for a, ch in root.children.items()})


def highest_ucb1(root, c: float) -> int:
    """The action of the child of highest UCB1 (the library's), the smallest of equal ones."""
    scores = {a: ucb1(ch.wins, ch.visits, root.visits, c) for a, ch in root.children.items()}
    best = max(scores.values())
    return min(a for a, score in scores.items() if score == best)


def _check_selection(student, roots, cs, what: str) -> None:
    """Ask select_child about copies of ``roots``; the answers are worked out before."""
    wants = [highest_ucb1(root, c) for root, c in zip(roots, cs, strict=True)]
    shown = [children_text(root) for root in roots]
    given = copy.deepcopy(roots)
    chosen = student.select_child.many(list(zip(given, cs, strict=True)))
    for root, c, want, text, got in zip(given, cs, wants, shown, chosen, strict=True):
        assert any(got is child for child in root.children.values()), (
            f"select_child returned {got!r}: it must return one of node.children's Node objects"
        )
        assert got.action == want, (
            f"{what}with c={c:.2f} and children (action: (visits, wins)) {text} "
            f"(parent visits {root.visits}) you chose action {got.action}, expected {want}"
        )


@pytest.mark.points(
    3,
    exercise="ttt_selection",
    hint="pick the child with the HIGHEST ucb1(child.wins, child.visits, node.visits, c)",
)
def test_select_child_highest_ucb1(student):
    """select_child picks the child of highest UCB1 on 300 random trees"""
    rng = random.Random(2)
    roots = [tree_with_children(student, rng) for _ in range(300)]
    cs = [rng.choice([0.0, 0.7, math.sqrt(2), 3.0]) for _ in roots]
    _check_selection(student, roots, cs, "")


@pytest.mark.points(
    1, exercise="ttt_selection", hint="ties go to the child with the smallest action"
)
def test_select_child_ties(student):
    """select_child breaks ties by the smallest action, in whatever order children were added"""
    rng = random.Random(3)
    roots = [tree_with_children(student, rng, ties=True, shuffle=i % 2 == 1) for i in range(100)]
    _check_selection(
        student, roots, [1.0] * len(roots), "equal means, children shown in the order added: "
    )


@pytest.mark.points(
    1, exercise="ttt_selection", hint="play until state.is_terminal() and return state.returns()"
)
def test_simulate_reaches_the_end(student, submission_seed):
    """simulate returns the returns of a finished game and leaves its state alone"""
    check_last_moves(student, random.Random(submission_seed))
    rng = random.Random(4)
    states = [random_state(rng) for _ in range(100)]
    calls = [(state, random.Random(rng.randrange(10**6))) for state in states]
    for _state, result in zip(states, student.simulate.many(calls), strict=True):
        assert isinstance(result, tuple | list) and tuple(result) in {(1, -1), (-1, 1), (0, 0)}, (
            f"simulate returned {result!r}; expected the returns of a finished game "
            "((1, -1), (-1, 1) or (0, 0))"
        )


def last_move_left(rng: random.Random, draw: bool) -> TicTacToe:
    """A game not over with one empty cell, whose last move draws (``draw``) or wins for X:
    simulate's answer from it is exact."""
    while True:
        state = TicTacToe()
        while not state.is_terminal() and len(state.legal_actions()) > 1:
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            (last,) = state.legal_actions()
            if (state.play(last).returns() == (0, 0)) == draw:
                return state


def check_last_moves(student, rng: random.Random) -> None:
    """simulate from positions one move from the end gives that move's result."""
    states = [last_move_left(rng, draw=i % 2 == 0) for i in range(10)]
    calls = [(state, random.Random(rng.randrange(10**6))) for state in states]
    for state, got in zip(states, student.simulate.many(calls), strict=True):
        want = state.play(state.legal_actions()[0]).returns()
        got = tuple(got) if isinstance(got, tuple | list) else got
        assert got == want, (
            f"simulate from\n{state}\n(one move left) returned {got!r}; that move gives {want}"
        )


def finished_state(rng: random.Random) -> TicTacToe:
    """A finished game (a win for either side or a full board) reached by random play."""
    state = TicTacToe()
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state


@pytest.mark.points(
    1,
    exercise="ttt_selection",
    hint="check state.is_terminal() BEFORE each move: from a finished game simulate plays no "
    "move and returns state.returns()",
)
def test_simulate_on_a_finished_game(student, submission_seed):
    """simulate from a finished game returns its returns and draws nothing from rng"""
    rng = random.Random(submission_seed)  # any finished games will do: the code's own draw
    states = [finished_state(rng) for _ in range(60)]
    generators = [random.Random(rng.randrange(10**6)) for _ in states]
    before = [g.getstate() for g in generators]
    # keep: the student's draws come back into our generators (a plain call works on copies,
    # and the check below would pass whatever simulate drew: red team 24, 10)
    results = student.simulate.many(list(zip(states, generators, strict=True)), keep=True)
    check_last_moves(student, rng)  # finished games are not the only ones it gets right
    for state, got, g, old in zip(states, results, generators, before, strict=True):
        got = tuple(got) if isinstance(got, tuple | list) else got
        assert got == state.returns(), (
            f"simulate of the finished game\n{state}\nreturned {got!r}; expected its returns "
            f"{state.returns()}"
        )
        assert g.getstate() == old, (
            f"simulate of the finished game\n{state}\ndrew from rng: no move is left to choose"
        )


@pytest.mark.points(
    2,
    exercise="ttt_selection",
    timeout=4,
    hint="each move must be uniformly random among the legal moves",
)
def test_simulate_statistics(student):
    """random playouts have the right outcome frequencies (X 58.5%, O 28.8%, draw 12.7%)"""
    rng = random.Random(6)
    for state in (TicTacToe(), TicTacToe.from_moves("b2 a1")):
        n, counts = 3000, [0, 0, 0]
        for r in student.simulate.repeat(n, state, rng):
            r = tuple(r)
            counts[0 if r == (1, -1) else 1 if r == (-1, 1) else 2] += 1
        for name, count, p in zip(
            ("X wins", "O wins", "draws"), counts, outcome_probabilities(state), strict=True
        ):
            tolerance = 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9
            assert abs(count / n - p) <= tolerance, (
                f"from\n{state}\n{n} random playouts gave {name} {count / n:.3f}; uniformly random "
                f"play gives {p:.3f} (allowed {tolerance:.3f})"
            )


# -- exercise 2: backpropagation and the search loop -------------------------------------------
@pytest.mark.points(1, exercise="ttt_backprop", hint="every node on the path gets visits += 1")
def test_backprop_visits(student):
    """backpropagate adds one visit to every node of the path and none elsewhere"""
    rng = random.Random(7)
    cases = []
    for _ in range(50):
        path = path_of(student, rng)
        extra = [a for a in path[0].state.legal_actions() if a not in path[0].children]
        off_path = None
        if extra:
            off_path = Node(path[0].state.play(extra[0]), path[0], extra[0])
            path[0].children[extra[0]] = off_path
        cases.append((path, off_path))
    # The student's code gets copies; the grader keeps its own list of the copied nodes, which
    # emptying the path list it was given does not change.
    given = copy.deepcopy(cases)
    nodes = [(list(path), off_path) for path, off_path in given]
    student.backpropagate.many([(path, (1, -1)) for path, _ in given], keep=True)
    for path, off_path in nodes:
        assert [n.visits for n in path] == [1] * len(path), (
            f"visits along a path of {len(path)} nodes: {[n.visits for n in path]}"
        )
        assert off_path is None or off_path.visits == 0, "a node off the path was changed"


@pytest.mark.points(
    3,
    exercise="ttt_backprop",
    hint="each node's reward is that of the player who moved INTO it (node.player): it "
    "flips from one level to the next",
)
def test_backprop_rewards(student):
    """backpropagate adds the reward of each node's player (win 1, draw 0.5, loss 0)"""
    rng = random.Random(8)
    cases = []
    for _ in range(200):
        path = path_of(student, rng)
        for node in path:  # some earlier statistics, which must be kept
            node.visits = rng.randint(0, 5)
            node.wins = node.visits * 0.5
        returns = rng.choice([(1, -1), (-1, 1), (0, 0)])
        # what every node must hold afterwards, worked out before the student's code runs
        wants = [
            (n.visits + 1, n.wins + (returns[p] + 1) / 2, p)
            for n, p in zip(path, players(path), strict=True)
        ]
        cases.append((path, returns, wants))
    given = [(copy.deepcopy(path), returns) for path, returns, _ in cases]
    nodes = [list(path) for path, _ in given]
    student.backpropagate.many(given, keep=True)
    for path, (_, returns, wants) in zip(nodes, cases, strict=True):
        for depth, (node, (visits, wins, player)) in enumerate(zip(path, wants, strict=True)):
            assert node.visits == visits, (
                f"node at depth {depth}: visits {node.visits}, expected {visits}"
            )
            assert math.isclose(node.wins, wins), (
                f"returns {returns}, node at depth {depth} (entered by player {player}): wins "
                f"{node.wins}, expected {wins} (reward of the player who moved into the node)"
            )


@pytest.mark.points(
    1, exercise="ttt_backprop", hint="pick rng.choice(node.untried), remove it, add the child"
)
def test_expand(student):
    """expand adds one child for an untried action and returns it"""
    rng = random.Random(9)
    nodes = [Node(random_state(rng)) for _ in range(50)]
    seeds = [rng.randrange(1000) for _ in nodes]
    wants = [  # (untried before, the action to expand, its state), before the student's code runs
        (list(n.untried), a, n.state.play(a))
        for n, s in zip(nodes, seeds, strict=True)
        for a in [random.Random(s).choice(n.untried)]
    ]
    given = copy.deepcopy(nodes)
    children = student.expand.many(
        [(n, random.Random(s)) for n, s in zip(given, seeds, strict=True)], keep=True
    )
    for node, (before, action, state), child in zip(given, wants, children, strict=True):
        assert isinstance(child, Node), f"expand returned {child!r}, not a Node"
        assert child.action in before, f"expanded action {child.action} was not untried"
        assert child.action == action, (
            f"the action must be rng.choice(node.untried): {action}, you expanded {child.action}"
        )
        assert child.action not in node.untried, "the expanded action is still in node.untried"
        assert node.children.get(child.action) is child, "the child is not in node.children"
        assert child.state == state, "the child's state is wrong"
        assert child.parent is node, "the child's parent is wrong"


STEPS = ("select_child", "expand", "simulate", "backpropagate")


def shape(node) -> dict:
    """{action: (visits, wins, shape of the child)} of a tree, for comparing two trees."""
    return {a: (ch.visits, round(ch.wins, 6), shape(ch)) for a, ch in sorted(node.children.items())}


def _bare(node) -> Node:
    """A copy of ``node``'s own fields: no parent, no children."""
    copy = object.__new__(Node)
    copy.state, copy.parent, copy.action, copy.player = node.state, None, node.action, node.player
    copy.children, copy.untried = {}, list(node.untried)
    copy.visits, copy.wins = node.visits, node.wins
    return copy


def _alone(node) -> Node:
    """``node`` with its children, one level deep: what a step reads of a node, in a question
    whose size does not grow with the tree (a whole tree in every question made a search of 300
    iterations cost 12 ms a question)."""
    top = _bare(node)
    for action, child in node.children.items():
        top.children[action] = kid = _bare(child)
        kid.parent = top
    return top


def student_steps(student) -> dict:
    """The student's four steps, each asked about the nodes it reads (:func:`_alone`), with
    what it changed put back into the grader's own tree."""

    def select_child(node, c):
        chosen = student.select_child(_alone(node), c)
        action = getattr(chosen, "action", None)
        assert isinstance(chosen, Node) and action in node.children, (
            f"select_child returned {chosen!r}, not a child of the node it was given"
        )
        return node.children[action]

    def expand(node, rng):
        alone = _alone(node)
        child = student.expand.keeping(alone, rng)
        action = getattr(child, "action", None)
        assert isinstance(action, int) and alone.children.get(action) is child, (
            f"expand returned {child!r}, not the child it added to the node"
        )
        node.untried = list(alone.untried)
        for action in alone.children.keys() - node.children.keys():
            node.children[action] = added = _bare(alone.children[action])
            added.parent = node
        return node.children[action]

    def backpropagate(path, returns):
        pairs = [(node, _bare(node)) for node in path]
        alone = [asked for _, asked in pairs]
        for above, below in zip(alone, alone[1:], strict=False):
            below.parent = above  # as in the tree: a backpropagate may climb the parents
        student.backpropagate.keeping(alone, returns)
        for node, asked in pairs:
            node.visits, node.wins = asked.visits, asked.wins
        mine = {id(asked): node for node, asked in pairs}
        path[:] = [mine.get(id(x), x) for x in alone]  # a change to the list itself, too

    return {
        "select_child": select_child,
        "expand": expand,
        "simulate": student.simulate.keeping,
        "backpropagate": backpropagate,
    }


# Iterations at most of a search grown again by the grader: every step is a question (about
# 1 ms), so a longer search is asked again with this many iterations.  Those 1,200 questions
# are the reference's time too: a test that regrows a tree allows 4 times the reference's
# seconds and more (results.json's extra_data.student_seconds; the CI's busy machine took 3 s
# of MCTS-finds-the-win's old 3 s limit, and the rest of the set was not run)
REGROWN = 300


def grown_by_its_steps(student, state, iterations: int, c: float, threshold: int, seed, root=None):
    """The tree of the student's ``mcts_search(state, iterations, c, threshold,
    random.Random(seed))`` (``root``, or asked here) must be the tree the contract's loop grows,
    run here, with the student's own four steps and a generator of the same seed.  The loop is
    the grader's (:func:`invocation.contract`): written out, it is ``mcts_search``'s answer, so
    a student's own check, without the grader, does not regrow the tree.  Every
    property of a tree alone can be met by construction: counts and wins of playouts whose
    results were made up, around a move a rule or a negamax chose, passed every check of its
    statistics and draws (red team 28, 02-04); a tree its own steps grow again is a search."""
    # None in a student's own check: the loop is mcts_search's answer (and no search is asked
    # for a tree nothing would compare)
    search_with = invocation.contract("mcts_search")
    if root is None or iterations > REGROWN:
        if search_with is None:
            return
        iterations = min(iterations, REGROWN)
        root = student.mcts_search.keeping(state, iterations, c, threshold, random.Random(seed))
    assert isinstance(root, Node), f"mcts_search returned {root!r}, not the root Node"
    if search_with is None:
        return
    steps = student_steps(student)
    again = search_with(steps, state, iterations, c, threshold, random.Random(seed))
    got, want = shape(root), shape(again)
    if got != want:
        raise AssertionError(
            f"your mcts_search({iterations} iterations, c={c:g}, expand_threshold={threshold}, "
            f"random.Random({seed})) gave a root whose children have visits "
            f"{ {a: v[0] for a, v in got.items()} }; the contract's loop run with your own "
            "select_child, expand, simulate and backpropagate gives "
            f"{ {a: v[0] for a, v in want.items()} }: mcts_search must grow its tree with "
            "those four steps, as written"
        )


def judged(root, start) -> list[tuple[Any, Any, Any]]:
    """Every node below ``root`` with its position and its parent's, by the grader's engine:
    ``start`` (the grader's own state for the root) and each child's action played on its
    parent's.  The states in a student's nodes are never asked whether the game is over (red
    team 27, 04: Connect Four leaves of a ``Position`` subclass that said "finished, won" made a
    forged one-level tree add up)."""
    found, stack = [], [(child, start) for child in root.children.values()]
    while stack:
        node, before = stack.pop()
        assert not before.is_terminal() and node.action in before.legal_actions(), (
            f"a child for the move {node.action!r}, not a legal move in\n{before}"
        )
        after = before.play(node.action)
        found.append((node, before, after))
        stack.extend((child, after) for child in node.children.values())
    return found


def visits_add_up(root, start) -> None:
    """With expand_threshold 1 every visit of a node after its first goes on to a child (it is
    expanded at once), unless the game is over there: visits = 1 + the children's visits.
    ``start``: the grader's state for the root (see :func:`judged`)."""
    nodes = judged(root, start)
    for node, _, state in nodes:
        below = sum(ch.visits for ch in node.children.values())
        if state.is_terminal():
            assert not node.children, f"a node of a finished game has children:\n{state}"
        else:
            assert node.visits == 1 + below, (
                f"a node with {node.visits} visits whose children have {below} in all, in\n"
                f"{state}\n(with expand_threshold 1, every visit after the first goes on "
                "to a child)"
            )
    rewards_add_up(nodes)


def rewards_add_up(nodes: list[tuple[Any, Any, Any]]) -> None:
    """A tree's wins are its playouts' rewards (win 1, draw 0.5, loss 0, for the player who moved
    into the node): at a finished game every visit brings that game's reward, and elsewhere the
    first visit's reward plus the children's rewards seen from the other side (visits - wins).
    Counts alone can be forged (red-team 3 attack 03: a negamax's tree of made-up visits, every
    node half won); rewards that add up must come from games played to their end.  ``nodes``
    as :func:`judged` gives them."""
    for node, before, state in nodes:
        if state.is_terminal():
            want = node.visits * (state.returns()[before.current_player] + 1) / 2
            assert math.isclose(node.wins, want), (
                f"a node of a finished game, visited {node.visits} times, has wins {node.wins}: "
                f"every playout there ends as the game did, {want:g} in all, in\n{state}"
            )
        elif node.children:
            first = node.wins - sum(ch.visits - ch.wins for ch in node.children.values())
            assert any(math.isclose(first, r, abs_tol=1e-9) for r in (0, 0.5, 1)), (
                f"a node with {node.visits} visits and wins {node.wins} whose children have "
                f"visits {child_stats(node, means=False)} and wins "
                f"{ {a: ch.wins for a, ch in sorted(node.children.items())} }: a playout's "
                "reward through a child counts 1 - its reward there for the node, so the node's "
                f"wins minus the children's losses should be its first playout's 0, 0.5 or 1, "
                f"not {first:g}, in\n{state}"
            )


def selected_by_ucb1(root, c: float) -> None:
    """A property of every UCT tree grown with expand_threshold 1, however its generator drew:
    at each node, the passes into its children were first one expansion per child, then
    selections (as many as the children's visits beyond their first), so when there were
    selections the last pass was one, and chose a child of highest UCB1 given the statistics
    before it: the node's visits - 1, that child's visits - 1 and wins less that playout's
    reward (0, 0.5 or 1), every other child as it is.  Counts and rewards that merely add up
    (a forged tree, red-team 4 attack 07, made with the expansions' draws burnt) do not have
    it; a small tolerance lets a UCB1 computed in another order pass."""
    stack = [root]
    while stack:
        node = stack.pop()
        kids = node.children
        stack.extend(kids.values())
        if sum(ch.visits for ch in kids.values()) <= len(kids):
            continue  # only expansions passed through it
        before = node.visits - 1
        scores = {a: ucb1(ch.wins, ch.visits, before, c) for a, ch in kids.items()}
        if not any(_chosen_last(ch, a, scores, before, c) for a, ch in kids.items()):
            raise AssertionError(
                f"a node with {node.visits} visits whose children have (action: visits, wins) "
                f"{ {a: (ch.visits, ch.wins) for a, ch in sorted(kids.items())} }: no child "
                f"had the highest UCB1 (c={c:g}) before the last pass through the node, given "
                "the statistics then, in\n"
                f"{node.state}\nmcts_search must descend with select_child, from the root, "
                "at every iteration"
            )


def _chosen_last(child, action, scores: dict, before: int, c: float) -> bool:
    """Whether ``child`` had the highest UCB1 of its siblings before its last visit."""
    if child.visits < 2:
        return False  # a selection finds every child visited once (expanded with a visit)
    others = max((s for a, s in scores.items() if a != action), default=-math.inf)
    slack = 1e-9 * max(1.0, abs(others))
    return any(
        -1e-9 <= child.wins - r <= child.visits - 1 + 1e-9
        and ucb1(child.wins - r, child.visits - 1, before, c) >= others - slack
        for r in (0.0, 0.5, 1.0)
    )


@pytest.mark.points(
    1, exercise="ttt_backprop", timeout=6, hint="the root is visited once per iteration"
)
def test_search_counts(student, submission_seed):
    """mcts_search: root visits = iterations = sum of the children's visits, at every node"""
    rng = random.Random(submission_seed)
    for case in range(5):
        state = random_state(rng, 3)
        seed = rng.randrange(99)
        root = student.mcts_search(state, 200, math.sqrt(2), 1, random.Random(seed))
        assert isinstance(root, Node), f"mcts_search returned {root!r}, not the root Node"
        total = sum(ch.visits for ch in root.children.values())
        assert root.visits == 200, f"root.visits is {root.visits} after 200 iterations"
        assert total == 200, f"the root's children have {total} visits in all, expected 200"
        assert set(root.children) == set(state.legal_actions()), (
            f"after 200 iterations the root's children are {sorted(root.children)}, not every "
            f"legal move {state.legal_actions()}"
        )
        visits_add_up(root, state)
        selected_by_ucb1(root, math.sqrt(2))
        if case == 0:
            grown_by_its_steps(student, state, 200, math.sqrt(2), 1, seed, root)


def _finds(student, moves: str, target: int, iterations: int = 400) -> None:
    state = TicTacToe.from_moves(moves)
    for seed in range(3):
        rng = random.Random(seed)
        # .keeping: the generator's draws are the search's evidence (red-team 4 attack 07: a
        # negamax's move in a forged tree whose counts and rewards add up took these points)
        root = student.mcts_search.keeping(state, iterations, math.sqrt(2), 1, rng)
        got = student.best_action(root)
        assert set(root.children) == set(state.legal_actions()), (
            f"after {iterations} iterations the root's children are {sorted(root.children)}, "
            f"not every legal move {state.legal_actions()}"
        )
        visits_add_up(root, state)
        drew_for_the_tree(root, seed, rng)
        selected_by_ucb1(root, math.sqrt(2))
        if seed == 0:
            grown_by_its_steps(student, state, iterations, math.sqrt(2), 1, seed, root)
        assert got == target, (
            f"in\n{state}\n{state.PLAYER_NAMES[state.current_player]} should play "
            f"{state.action_to_string(target)}; after {iterations} iterations (seed {seed}) "
            f"best_action is {got!r}; root children (action: visits, mean) {child_stats(root)}"
        )


@pytest.mark.points(
    2,
    exercise="ttt_backprop",
    timeout=10,
    hint="check the reward sign: the values must be from the view of the player who moves",
)
def test_search_takes_the_win(student):
    """MCTS finds the winning move"""
    _finds(student, "a1 b1 a2 b2", TicTacToe().parse_action("a3"))  # X completes column a
    _finds(student, "c3 a1 b3 a2 c2", TicTacToe().parse_action("a3"))  # O completes column a


@pytest.mark.points(
    1,
    exercise="ttt_backprop",
    timeout=10,
    hint="check the reward sign: the values must be from the view of the player who moves",
)
def test_search_blocks(student):
    """MCTS blocks the opponent's line"""
    _finds(student, "a1 b2 a2", TicTacToe().parse_action("a3"), iterations=1500)


@pytest.mark.points(
    1,
    exercise="ttt_backprop",
    timeout=8,
    hint="a node with untried moves is expanded only once it has "
    "expand_threshold visits (the root always)",
)
def test_search_expand_threshold(student):
    """mcts_search honours expand_threshold"""
    for threshold in (5, 20):
        root = student.mcts_search(TicTacToe(), 300, math.sqrt(2), threshold, random.Random(1))
        if threshold == 5:  # the tree of a threshold its steps grow again too (red team 28, 02)
            grown_by_its_steps(student, TicTacToe(), 300, math.sqrt(2), threshold, 1, root)
        stack = list(root.children.values())
        while stack:
            node = stack.pop()
            if node.children:
                assert node.visits > threshold, (
                    f"expand_threshold={threshold}: a node with {node.visits} visits has children"
                )
            stack.extend(node.children.values())
        assert len(root.children) == 9 and any(ch.children for ch in root.children.values()), (
            f"expand_threshold={threshold}: after 300 iterations from the empty board the root "
            "has every move as a child, and the most visited ones have children"
        )
    root = student.mcts_search(TicTacToe(), 200, math.sqrt(2), 10**6, random.Random(1))
    assert root.children and all(not ch.children for ch in root.children.values()), (
        "with a huge expand_threshold only the root may be expanded"
    )


@pytest.mark.points(
    1, exercise="ttt_backprop", hint="the robust child: most visits, ties to the smallest action"
)
def test_best_action(student):
    """best_action returns the most visited child (ties: smallest action)"""
    rng = random.Random(11)
    roots = [
        tree_with_children(student, rng, ties=rng.random() < 0.5, shuffle=i % 2 == 1)
        for i in range(100)
    ]
    wants = [  # the most visits; among equal ones the smallest action
        min(a for a, ch in root.children.items() if ch.visits == most)
        for root in roots
        for most in [max(ch.visits for ch in root.children.values())]
    ]
    shown = [{a: ch.visits for a, ch in root.children.items()} for root in roots]
    results = student.best_action.many([(r,) for r in copy.deepcopy(roots)])
    for visits, want, got in zip(shown, wants, results, strict=True):
        assert got == want, (
            f"visits {visits} (in the order the children were added): you chose {got!r}, "
            f"expected {want}"
        )


# -- exercise 3: experiments ---------------------------------------------------------------
KEYS = {"iterations", "c", "expand_threshold", "seed", "action", "value", "visits"}


@pytest.mark.points(
    2, exercise="ttt_experiments", hint="one dict per (iterations, c, threshold, seed)"
)
def test_experiment_rows(student):
    """experiment returns one row per combination, with the documented keys"""
    state = TicTacToe.from_moves("b2 a1")
    rows = student.experiment(
        state, iterations=(10, 40), cs=(0.5, 1.5), thresholds=(1, 3), seeds=(0, 1)
    )
    rows = list(rows)
    assert len(rows) == 16, f"expected 2*2*2*2 = 16 rows, got {len(rows)}"
    assert student.ran("mcts_search"), "experiment must run your mcts_search for each row"
    for row in rows:
        assert KEYS <= set(row), f"a row lacks the keys {sorted(KEYS - set(row))}: {row}"
    combos = {(r["iterations"], r["c"], r["expand_threshold"], r["seed"]) for r in rows}
    # the grid asked for, not any 16 (red team 24, 11: 16 searches of 1-2 iterations)
    grid = set(itertools.product((10, 40), (0.5, 1.5), (1, 3), (0, 1)))
    assert combos == grid, (
        f"the rows' (iterations, c, expand_threshold, seed) are not the 16 combinations of "
        f"iterations=(10, 40), cs=(0.5, 1.5), thresholds=(1, 3), seeds=(0, 1): {sorted(combos)}"
    )
    for r in rows:
        assert r["action"] in state.legal_actions(), f"illegal action in {r}"
        assert 0 <= r["value"] <= 1, f"value must be a mean reward in [0, 1]: {r}"
        assert 1 <= r["visits"] <= r["iterations"], f"visits out of range: {r}"
    rows_searched(student, state, rows)


def rows_searched(student, state, rows) -> None:
    """Each row is the chosen child of the student's own mcts_search with the row's parameters
    and ``random.Random(seed)``, a search whose generator made the tree's draws: rows of a
    forged tree's counts (red-team 4 attack 07: a negamax behind a made-up tree, honest loops
    around it) are not a search's."""
    for i, r in enumerate(rows):
        seed = r["seed"]
        rng = random.Random(seed)
        root = student.mcts_search.keeping(
            state, r["iterations"], r["c"], r["expand_threshold"], rng
        )
        assert isinstance(root, Node) and r["action"] in root.children, (
            f"the row {r} names a move that is not a child of your mcts_search's root with "
            f"the same parameters and random.Random({seed})"
        )
        chosen = root.children[r["action"]]
        assert r["visits"] == chosen.visits and math.isclose(
            r["value"], chosen.wins / max(chosen.visits, 1)
        ), (
            f"the row {r} is not the chosen child of your mcts_search with the same parameters "
            f"and random.Random({seed}): it has {chosen.visits} visits and wins {chosen.wins:g}"
        )
        drew_for_the_tree(root, seed, rng)
        if r["expand_threshold"] == 1:
            selected_by_ucb1(root, r["c"])
        if i == 0:
            args = (r["iterations"], r["c"], r["expand_threshold"], seed, root)
            grown_by_its_steps(student, state, *args)


def symmetric(cells: list[int], turn: int, flip: bool) -> list[int]:
    """The cells (0-8, row by row) turned ``turn`` quarter turns, mirrored first if ``flip``."""
    out = []
    for cell in cells:
        row, col = divmod(cell, 3)
        if flip:
            col = 2 - col
        for _ in range(turn):
            row, col = col, 2 - row
        out.append(3 * row + col)
    return out


@pytest.mark.points(
    2, exercise="ttt_experiments", timeout=6, hint="value = wins / visits of the chosen child"
)
def test_experiment_converges(student, submission_seed):
    """where X wins at once (a1 b1 a2 b2, turned or mirrored), 1,000 iterations choose the win,
    valued near 1"""
    rng = random.Random(submission_seed)  # which of the 8 symmetric positions: not a constant
    *moves, win = symmetric([0, 1, 3, 4, 6], rng.randrange(4), rng.random() < 0.5)
    state = TicTacToe()
    for move in moves:
        state = state.play(move)
    # from 2**31 seeds: a space of 8 positions x 100 seeds fitted in a table of the
    # reference's trees, 130 KB (red team 22, 09)
    seeds = tuple(rng.sample(range(2**31), 3))
    rows = list(
        student.experiment(
            state, iterations=(1000,), cs=(math.sqrt(2),), thresholds=(1,), seeds=seeds
        )
    )
    assert len(rows) == 3, f"expected one row per seed {seeds}, got {len(rows)} rows"
    assert student.ran("mcts_search"), "experiment must run your mcts_search for each row"
    assert sorted(r["seed"] for r in rows) == sorted(seeds), f"the rows' seeds: {rows}"
    for r in rows:
        assert r["action"] == win, (
            f"in\n{state}\nafter 1000 iterations the winning move {win} is missed: {r}"
        )
        assert r["value"] > 0.9, f"the winning move should be valued near 1: {r}"
    rows_searched(student, state, rows)


# -- exercise 4: a full player ---------------------------------------------------------------
class Watched:
    """The student's player, keeping the first position it was asked about and its answer."""

    name = "your MCTSPlayer"

    def __init__(self, player):
        self.player, self.first = player, None

    def select_action(self, state):
        action = self.player.select_action(state)
        if self.first is None:
            self.first = (state, action)
        return action


def drew_for_the_tree(root, seed: int, rng: random.Random) -> None:
    """Every node below the root was added by ``rng.choice(node.untried)`` (each choice takes at
    least one of the generator's 32-bit words): the generator handed to the search must have
    moved at least that far from ``random.Random(seed)`` (a forged tree draws nothing)."""
    nodes, stack = 0, list(root.children.values())
    while stack:
        node = stack.pop()
        nodes += 1
        stack.extend(node.children.values())
    fresh, end = random.Random(seed), rng.getstate()
    for _ in range(nodes):
        assert fresh.getstate() != end, (
            f"your mcts_search's tree has {nodes} nodes below the root, each added by "
            "rng.choice(node.untried), but the generator it was given made fewer draws: "
            "search with the generator you are given"
        )
        fresh.getrandbits(32)


def assert_searched(
    student, first, iterations: int, c: float, seed: int, regrow: bool = True
) -> None:
    """The player's first move is what its contract makes it: ``best_action`` (the most
    visited child, ties to the smallest action) of the student's own ``mcts_search`` with the
    same parameters and a generator of the same seed, whose tree holds ``iterations`` visits.
    Strength alone does not tell MCTS from an exhaustive search (red-team attack 12: a cached
    negamax beside a dummy mcts_search took 8 points)."""
    state, action = first
    rng = random.Random(seed)
    root = student.mcts_search.keeping(state, iterations, c, 1, rng)
    assert isinstance(root, Node) and root.visits == iterations and root.children, (
        f"your mcts_search({iterations} iterations) gave a root with "
        f"{getattr(root, 'visits', '?')} visits and {len(getattr(root, 'children', {}))} children"
    )
    visits_add_up(root, state)
    drew_for_the_tree(root, seed, rng)
    selected_by_ucb1(root, c)
    if regrow:  # once a test: every step of it is a question
        grown_by_its_steps(student, state, iterations, c, 1, seed, root)
    most = max(sorted(root.children), key=lambda a: root.children[a].visits)
    assert action == most, (
        f"MCTSPlayer(iterations={iterations}, c={c:g}, seed={seed}) first played {action} in\n"
        f"{state}\nyour mcts_search with the same parameters and random.Random({seed}) makes "
        f"{most} the most visited move {child_stats(root)}: the player must play "
        "best_action(mcts_search(...)) with its own generator"
    )


@pytest.mark.points(
    1,
    exercise="ttt_player",
    hint="MCTSPlayer(iterations, c, expand_threshold, seed) with .select_action(state) and .name",
)
def test_player_interface(student):
    """MCTSPlayer has a name and returns legal moves"""
    player = Watched(student.MCTSPlayer(iterations=50, seed=1))
    assert isinstance(player.player.name, str) and player.player.name, (
        "player.name must be a non-empty str"
    )
    rng = random.Random(12)
    for _ in range(10):
        state = random_state(rng)
        assert player.select_action(state) in state.legal_actions()
    assert student.ran("mcts_search"), "MCTSPlayer must choose its moves with your mcts_search"
    assert_searched(student, player.first, 50, math.sqrt(2), 1)


@pytest.mark.points(
    3, exercise="ttt_player", timeout=12, hint="MCTS with 300 iterations should crush random play"
)
def test_player_beats_random(student):
    """MCTS(300) does not lose to random play and wins most games"""
    wins = 0
    for game in range(10):
        me = game % 2
        players: list[Any] = [RandomPlayer(game), RandomPlayer(game)]
        players[me] = watched = Watched(student.MCTSPlayer(iterations=300, seed=game))
        returns = play(players)
        assert returns[me] >= 0, f"game {game}: your MCTS (player {me}) lost to random play"
        wins += returns[me] == 1
        assert_searched(student, watched.first, 300, math.sqrt(2), game, regrow=game == 0)
    assert wins >= 7, f"your MCTS won only {wins} of 10 games against random play"


@pytest.mark.points(
    3,
    exercise="ttt_player",
    timeout=20,
    hint="with 2000 iterations MCTS should never lose tic-tac-toe",
)
def test_player_draws_perfect_play(student):
    """MCTS(2000 iterations, c=1) never loses to perfect play"""
    for game in range(4):
        me = game % 2
        players: list[Any] = [PerfectPlayer(game), PerfectPlayer(game)]
        players[me] = watched = Watched(student.MCTSPlayer(iterations=2000, c=1.0, seed=game))
        returns = play(players)
        assert returns[me] >= 0, f"game {game}: your MCTS (player {me}) lost to perfect play"
        assert_searched(student, watched.first, 2000, 1.0, game, regrow=game == 0)


class FirstLegal:
    name = "first-legal"

    def select_action(self, state):
        return state.legal_actions()[0]


@pytest.mark.points(
    1, exercise="ttt_player", hint="loop until the game ends; return the list of moves"
)
def test_play_game(student):
    """play_game plays a whole game and returns its moves"""
    moves = student.play_game(FirstLegal(), FirstLegal())
    assert list(moves) == [0, 1, 2, 3, 4, 5, 6], f"first-legal self-play gave moves {moves}"
    mcts = student.MCTSPlayer(iterations=100, seed=3)
    moves = student.play_game(mcts, mcts)
    assert TicTacToe.from_moves(list(moves)).is_terminal(), "the game did not end"


@pytest.mark.points(
    1, exercise="ttt_player", hint="ask input_fn for a move name, ask again when it is illegal"
)
def test_play_human(student):
    """play_human plays a text game, shows each board and the final one, asks again on bad input"""
    answers = iter(["b2", "a1", "zz", "c1", "a3"])

    def fake_input(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise AssertionError("play_human asked for more moves than the game needs") from None

    # The boards the contract shows, worked out first: before every move, and the final one.
    boards, state, legal = [], TicTacToe(), iter(["b2", "c1", "a3"])
    while not state.is_terminal():
        boards.append(str(state))
        mover_is_human = state.current_player == 0
        state = state.play(
            state.parse_action(next(legal)) if mover_is_human else state.legal_actions()[0]
        )
    boards.append(str(state))
    lines = []
    returns = student.play_human(
        FirstLegal(),
        human=0,
        input_fn=fake_input,
        print_fn=lambda *a: lines.append(" ".join(map(str, a))),
    )
    assert tuple(returns) == (1, -1), f"the human (X) should win this game; returns {returns}"
    assert lines, "play_human printed nothing through print_fn"
    shown = [line for line in lines if line in boards]
    shown = [b for i, b in enumerate(shown) if i == 0 or b != shown[i - 1]]  # asked again
    assert shown == boards, (
        f"play_human showed {len(shown)} boards through print_fn(str(state)); the game has "
        f"{len(boards) - 1} moves: a board before each and the final one, {len(boards)} in all"
        + ("" if shown[-1:] == boards[-1:] else f"; the final board is missing:\n{boards[-1]}")
    )
