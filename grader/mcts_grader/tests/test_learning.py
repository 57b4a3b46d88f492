"""The grader's tests of exercise 8: training targets from a search, and PUCT's selection.

The expectations are the contracts' definitions, worked out here in their own way: the policy
target as shares of ``n ** (1 / temperature)`` (in logarithms, with its limit at 0), the value
target as the game's result for the player to move, PUCT's score as the formula of its hint
(tests/grader checks this working against the reference solution).  They were public checks
until red team 32 (07) pasted their working into a submission for 12 of the set's 15 points:
what works a contract out is an answer, and a student's install holds none.

The public checks of the set are in ``mcts_course.grading.tests.test_learning``.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import math
import random

import pytest

from mcts_course.games import ConnectFour, TicTacToe
from mcts_course.grading.public import Node
from mcts_grader.solutions import learning as ref  # noqa: F401  (a module only the grader has)


# -- the contracts' definitions --------------------------------------------------------------
def target_shares(visits: dict[int, int], temperature: float) -> dict[int, float]:
    """Each move's probability: its share of the sum of ``n ** (1 / temperature)``, worked out
    from logarithms (no overflow), and at temperature 0 the limit: equal shares of the most
    visited moves."""
    top = max(visits.values())
    if temperature == 0:
        tied = sum(1 for n in visits.values() if n == top)
        return {a: 1 / tied if n == top else 0.0 for a, n in visits.items()}
    logs = {a: math.log(n / top) / temperature for a, n in visits.items() if n > 0}
    total = math.fsum(math.exp(x) for x in logs.values())
    return {a: math.exp(logs[a]) / total if a in logs else 0.0 for a in visits}


def puct_formula(wins, visits, parent_visits, prior, c, fpu) -> float:
    """Q + c * prior * sqrt(parent_visits) / (1 + visits); Q = wins / visits, or fpu for a
    child never visited (the hint's formula)."""
    mean = fpu if visits == 0 else wins / visits
    return mean + c * prior * math.sqrt(parent_visits) / (visits + 1)


def highest_puct(root, priors, c: float, fpu: float) -> int:
    """The action of the child of highest PUCT score, the smallest of equal ones."""
    scores = {
        a: puct_formula(ch.wins, ch.visits, root.visits, priors[a], c, fpu)
        for a, ch in root.children.items()
    }
    best = max(scores.values())
    return min(a for a, score in scores.items() if score == best)


# -- helpers ---------------------------------------------------------------------------------
def root_visits(rng: random.Random, most: int = 400) -> dict[int, int]:
    """A root's {move: visits}: 2 to 9 moves with random counts, some 0, at least one above."""
    moves = sorted(rng.sample(range(9), rng.randint(2, 9)))
    visits = {a: rng.choice([0, rng.randint(1, most)]) for a in moves}
    if not any(visits.values()):
        visits[moves[-1]] = rng.randint(1, most)
    return visits


def check_targets(got, visits: dict[int, int], temperature: float, tolerance: float = 1e-9):
    want = target_shares(visits, temperature)
    call = f"policy_target({visits}, temperature={temperature:g})"
    assert isinstance(got, dict), f"{call} returned {got!r}, not a dict"
    assert set(got) == set(visits), (
        f"{call} returned the moves {sorted(got)}; expected the same moves as the visits "
        f"{sorted(visits)}"
    )
    for move in sorted(visits):
        p = got[move]
        assert isinstance(p, int | float) and math.isclose(
            p, want[move], rel_tol=1e-6, abs_tol=tolerance
        ), (
            f"{call} gave move {move} the probability {p!r}, expected {want[move]:.6f} "
            f"(all expected: { {a: round(q, 4) for a, q in want.items()} })"
        )


def _check_many(student, visits_list, temperatures, tolerance: float = 1e-9) -> None:
    calls = copy.deepcopy(list(zip(visits_list, temperatures, strict=True)))
    results = student.policy_target.many(calls, keep=True)  # its changes, if any
    for (visits, temperature), (sent, _), got in zip(
        zip(visits_list, temperatures, strict=True), calls, results, strict=True
    ):
        check_targets(got, visits, temperature, tolerance)
        assert sent == visits, f"policy_target changed its argument {visits} into {sent}"


def game_record(game, rng: random.Random):
    """All positions of a random game (each before its move) and where it ended."""
    state, positions = game(), []
    while not state.is_terminal():
        positions.append(state)
        state = state.play(rng.choice(state.legal_actions()))
    return positions, state


def _check_values(student, cases, what: str) -> None:
    results = student.value_targets.many(copy.deepcopy(cases))
    for (positions, final), got in zip(cases, results, strict=True):
        want = [final.returns()[position.current_player] for position in positions]
        assert isinstance(got, list | tuple) and len(got) == len(want), (
            f"{what}: value_targets of {len(positions)} positions returned {got!r}; expected "
            f"a list of {len(want)} numbers"
        )
        for k, (position, z, w) in enumerate(zip(positions, got, want, strict=True)):
            assert isinstance(z, int | float) and math.isclose(z, w, abs_tol=1e-9), (
                f"{what}: the game ended with returns {final.returns()} (player 0, player 1); "
                f"position {k} of the list, player {position.current_player} to move:\n"
                f"{position}\nyour target {z!r}, expected {w:g} (the result for the player "
                "to move there)"
            )


def tree_with_priors(rng: random.Random, shuffle: bool = False, ties: bool = False):
    """A tic-tac-toe root with children (some never visited), their priors, ``node.visits``
    not always the sum of the children's."""
    while True:
        state = TicTacToe()
        for _ in range(rng.randint(0, 5)):
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            break
    root = Node(state)
    actions = list(root.untried)
    if shuffle:
        rng.shuffle(actions)
    weights = {a: (1.0 if ties else rng.random() ** 2) for a in actions}
    total = sum(weights.values())
    priors = {a: w / total for a, w in weights.items()}
    for action in actions:
        child = Node(state.play(action), root, action)
        if ties:
            child.visits = 4
            child.wins = 2.0
        else:
            child.visits = rng.choice([0, 0, rng.randint(1, 60)])
            child.wins = round(rng.uniform(0, child.visits) * 2) / 2
        root.children[action] = child
    root.untried = []
    root.visits = sum(ch.visits for ch in root.children.values()) + rng.randint(0, 2)
    root.visits = max(root.visits, 1)
    return root, priors


def children_text(root, priors) -> str:
    """{action: (visits, wins, prior)} in the order the children were added, for messages."""
    return str(
        {a: (ch.visits, round(ch.wins, 2), round(priors[a], 3)) for a, ch in root.children.items()}
    )


def _check_selection(student, cases, what: str) -> None:
    """Ask puct_select about copies of the trees; the answers are worked out before."""
    wants = [highest_puct(root, priors, c, fpu) for root, priors, c, fpu in cases]
    shown = [children_text(root, priors) for root, priors, _, _ in cases]
    given = copy.deepcopy(cases)
    chosen = student.puct_select.many([tuple(case) for case in given])
    for (root, _, c, fpu), want, text, got in zip(given, wants, shown, chosen, strict=True):
        assert any(got is child for child in root.children.values()), (
            f"puct_select returned {got!r}: it must return one of node.children's Node objects"
        )
        assert got.action == want, (
            f"{what}with c={c:g}, fpu={fpu:g}, parent visits {root.visits} and children "
            f"(action: (visits, wins, prior)) {text} you chose action {got.action}, expected "
            f"{want}"
        )


# -- the policy target ------------------------------------------------------------------------
@pytest.mark.points(
    2,
    exercise="learning",
    hint="at temperature 1 each move's probability is its share of the visits: n / sum of n",
)
def test_policy_target_visit_shares(student):
    """at temperature 1 the policy target is the share of the visits, on 200 roots"""
    rng = random.Random(1)
    roots = [root_visits(rng) for _ in range(200)] + [{4: 10, 0: 30, 8: 0}]
    _check_many(student, roots, [1.0] * len(roots))


@pytest.mark.points(
    2,
    exercise="learning",
    hint="probability proportional to visits ** (1 / temperature): below 1 it sharpens, "
    "above 1 it flattens",
)
def test_policy_target_temperature(student):
    """the temperature sharpens or flattens the target as n ** (1 / temperature), on 200 roots"""
    rng = random.Random(2)
    roots = [root_visits(rng) for _ in range(200)]
    temperatures = [rng.choice([0.25, 0.5, 0.8, 2.0, 3.0]) for _ in roots]
    _check_many(student, roots, temperatures)


@pytest.mark.points(
    1,
    exercise="learning",
    hint="divide the counts by the largest before raising them to 1 / temperature: "
    "2000 ** 100 does not fit in a float",
)
def test_policy_target_small_temperature(student):
    """at temperature 0.01 the target is (nearly) the most visited move, without overflow"""
    rng = random.Random(4)
    roots = [root_visits(rng, most=2000) for _ in range(100)] + [{0: 800, 1: 799, 2: 3}]
    _check_many(student, roots, [0.01] * len(roots), tolerance=1e-6)


# -- the value targets ------------------------------------------------------------------------
@pytest.mark.points(
    1,
    exercise="learning",
    hint="ask each position who is to move (position.current_player): the list may start in "
    "the middle of a game, skip positions or be shuffled",
)
def test_value_targets_any_positions(student):
    """value targets of positions taken from the middle of a game, a sample, shuffled"""
    rng = random.Random(6)
    cases = []
    for k in range(40):
        positions, final = game_record(TicTacToe if k % 2 else ConnectFour, rng)
        if k % 4 == 0:
            positions = positions[1:]  # recorded from the second move: player 1 to move first
        elif k % 4 == 1:
            positions = positions[rng.randint(1, 3) :: 2]  # every second position
        elif k % 4 == 2:
            positions = rng.sample(positions, rng.randint(1, len(positions)))
        else:
            positions = rng.sample(positions, len(positions))  # the whole game, shuffled
        cases.append((positions, final))
    _check_values(student, cases, "positions of a game, not all or not in order")


# -- PUCT's selection -------------------------------------------------------------------------
@pytest.mark.points(
    2,
    exercise="learning",
    hint="Q + c * prior * sqrt(parent_visits) / (1 + visits), Q = wins / visits",
)
def test_puct_score_values(student):
    """puct_score equals the formula on 300 random children, visited or not"""
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        visits = rng.choice([0, rng.randint(1, 100)])
        wins = round(rng.uniform(0, visits) * 2) / 2
        parent_visits = visits + rng.randint(1, 300)
        prior, c = rng.random(), rng.choice([0.0, 0.5, 1.0, 1.5, 3.0])
        cases.append((wins, visits, parent_visits, prior, c, rng.choice([0.0, 0.5, 1.0])))
    for args, got in zip(cases, student.puct_score.many(cases), strict=True):
        want = puct_formula(*args)
        assert isinstance(got, int | float), f"puct_score{args} returned {got!r}, not a number"
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12), (
            "puct_score(wins={}, visits={}, parent_visits={}, prior={:.3f}, c={}, fpu={}) = "
            "{!r}, expected {:.6f}".format(*args, got, want)
        )


@pytest.mark.points(
    2,
    exercise="learning",
    hint="pick the child with the HIGHEST puct_score(child.wins, child.visits, node.visits, "
    "priors[action], c, fpu)",
)
def test_puct_select(student):
    """puct_select picks the child of highest PUCT score on 300 random trees"""
    rng = random.Random(8)
    cases = []
    for _ in range(300):
        root, priors = tree_with_priors(rng, shuffle=rng.random() < 0.5)
        cases.append((root, priors, rng.choice([0.5, 1.0, 1.5, 4.0]), rng.choice([0.0, 0.5, 1.0])))
    _check_selection(student, cases, "")


@pytest.mark.points(1, exercise="learning", hint="ties go to the child with the smallest action")
def test_puct_select_ties(student):
    """puct_select breaks ties by the smallest action, in whatever order children were added"""
    rng = random.Random(9)
    cases = [(*tree_with_priors(rng, shuffle=True, ties=True), 1.0, 0.5) for _ in range(60)]
    _check_selection(student, cases, "equal scores, children shown in the order added: ")
    # trees without ties beside them: "the smallest action" alone earns nothing
    cases = [(*tree_with_priors(rng, shuffle=True), 1.0, 0.5) for _ in range(20)]
    _check_selection(student, cases, "children shown in the order added: ")
