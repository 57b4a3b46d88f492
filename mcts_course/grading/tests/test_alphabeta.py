"""Public checks of exercise 6: alpha-beta from minimax on Othello.

The minimax values, the leaves minimax evaluates and those alpha-beta evaluates searching the
moves in legal_actions() order are the library's own engine's (:mod:`mcts_course.agents.minimax`,
with ``order=False``): public facts of each position and evaluation, whoever computes them.  The
evaluation is the grader's (see :class:`Salted`): the leaves a search evaluated are measured.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import functools
import math
import random

import pytest

from mcts_course.agents.minimax import SearchStats, alphabeta_value, minimax_value
from mcts_course.games import Othello
from mcts_course.games.base import GameState
from mcts_course.grading.public import disc_difference, weighted

# The positions are drawn from a seed derived from the submission's code (the plugin's
# `submission_seed`: SHA-256 of the code): the same code is graded on the same positions (a
# failure shows its position, a grade can be reproduced), and a table of answers recorded from
# other positions cannot anticipate the ones its own hash draws.


# The evaluations handed to the student's alpha-beta are the grader's: a public one plus a small
# term salted by a number drawn when the grader starts.  The student's process calls them back
# (they are not public functions), so the grader sees every leaf a search evaluates (measured,
# never the count the search reports: red-team attack 08 reported a made-up count beside the
# given minimax), and a right value can only come from them.
SALT = random.SystemRandom().getrandbits(32)
# (Each evaluation is a round trip between the processes: the time limits below allow for it.)


class Salted:
    """``evaluate`` plus a term in {-2, ..., 2} that only this grading run knows."""

    def __init__(self, evaluate):
        self._evaluate, self.__name__ = evaluate, evaluate.__name__

    def __call__(self, state: GameState, player: int) -> float:
        return self._evaluate(state, player) + hash((SALT, state, player)) % 5 - 2


SALTED = {f.__name__: Salted(f) for f in (disc_difference, weighted)}


class Leaves:
    """A salted evaluation that keeps the positions it was asked about, in order."""

    def __init__(self, evaluate):
        # private: the student's code may only call the wrapper (the counted way)
        self._evaluate, self.__name__ = SALTED[evaluate.__name__], evaluate.__name__
        self.seen: list[GameState] = []

    def __call__(self, state: GameState, player: int) -> float:
        self.seen.append(state)
        return self._evaluate(state, player)


@functools.cache
def minimax(state: Othello, depth: int, player: int, evaluate) -> tuple[float, int]:
    """The minimax value (salted evaluation) and the number of leaves minimax evaluates,
    computed once per grading run (states are hashable)."""
    leaves = Leaves(evaluate)
    return minimax_value(state, depth, leaves, player), len(leaves.seen)


def alphabeta_leaves(
    state: Othello,
    depth: int,
    player: int,
    evaluate,
    alpha: float = -math.inf,
    beta: float = math.inf,
) -> tuple[list[GameState], int]:
    """The leaves alpha-beta evaluates, in order, and the nodes it visits, with the moves in
    legal_actions() order and the window (alpha, beta): the library's alpha-beta without its
    move ordering."""
    leaves, stats = Leaves(evaluate), SearchStats()
    alphabeta_value(state, depth, leaves, player, alpha, beta, stats, order=False)
    return leaves.seen, stats.nodes


@functools.cache
def positions(base: int, seed: int, count: int, late: bool = False) -> list[Othello]:
    """Positions after random openings (late: near the end, where passes and ends happen),
    drawn from the submission's seed ``base`` and the test's ``seed``."""
    rng, found = random.Random(base * 100 + seed), list[Othello]()
    while len(found) < count:
        state = Othello()
        for _ in range(rng.randint(50, 58) if late else rng.randint(2, 30)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_terminal() or late:
            found.append(state)
    return found


def _call(student, state, depth, player, evaluate, alpha=-math.inf, beta=math.inf):
    """The student's value, the nodes it counted, and the leaves it evaluated (measured)."""
    stats, leaves = {"nodes": 0}, Leaves(evaluate)
    value = student.alphabeta.keeping(state, depth, player, leaves, alpha, beta, stats)
    return value, stats["nodes"], leaves.seen


def pruned(leaves: int, contract_leaves: int, minimax_leaves: int, what: str) -> None:
    """Alpha-beta must prune: the value alone does not tell alpha-beta from minimax.  The
    leaves are counted by the grader's evaluation, whatever the search reports, and compared
    with the leaves the contract's alpha-beta evaluates on the same searches (a better move
    order may evaluate fewer, never more)."""
    assert 0 < leaves <= contract_leaves, (
        f"{what}: your alphabeta evaluated {leaves} leaves (the grader counts the calls of "
        f"evaluate); alpha-beta with the moves in legal_actions() order evaluates "
        f"{contract_leaves}, minimax {minimax_leaves}: alpha-beta must use the evaluate it is "
        "given and prune (stop looking at a node's moves once alpha >= beta)"
    )


def contract(state, depth, player, evaluate, alpha=-math.inf, beta=math.inf) -> int:
    """How many leaves the contract's alpha-beta evaluates on this search."""
    return len(alphabeta_leaves(state, depth, player, evaluate, alpha, beta)[0])


@pytest.mark.points(
    3,
    exercise="alphabeta",
    timeout=20,
    hint="with the full window (-inf, inf) alpha-beta must return the minimax value exactly",
)
def test_same_value_as_minimax(student, submission_seed):
    """alpha-beta gives the minimax value on 24 positions, depths 1-3, two evaluations"""
    leaves = minimax_leaves = contract_leaves = 0
    for i, state in enumerate(positions(submission_seed, 1, 24)):
        depth = 1 + i % 3
        evaluate = disc_difference if i % 2 else weighted
        player = state.current_player if i % 4 < 2 else 1 - state.current_player
        want, evaluated = minimax(state, depth, player, evaluate)
        got, _, seen = _call(student, state, depth, player, evaluate)
        assert got == want, (
            f"depth {depth}, player {player}, {evaluate.__name__}: minimax {want}, "
            f"alpha-beta {got}, in\n{state}"
        )
        leaves, minimax_leaves = leaves + len(seen), minimax_leaves + evaluated
        contract_leaves += contract(state, depth, player, evaluate)
    pruned(leaves, contract_leaves, minimax_leaves, "on these 24 searches")


@pytest.mark.points(
    1,
    exercise="alphabeta",
    timeout=12,
    hint="the defaults must be alpha=-math.inf and beta=math.inf (the full window)",
)
def test_default_window(student, submission_seed):
    """alpha-beta called without a window gives the minimax value"""
    cases = [  # near the end, where values reach hundreds and +-10000
        (state, 1 + i % 3, player)
        for i, state in enumerate(positions(submission_seed, 6, 16, late=True))
        for player in (0, 1)
    ]
    leaves = minimax_leaves = contract_leaves = 0
    for state, depth, player in cases:
        want, evaluated = minimax(state, depth, player, weighted)
        evaluate = Leaves(weighted)
        got = student.alphabeta(state, depth, player, evaluate, stats={"nodes": 0})
        assert got == want, (
            f"alphabeta(state, {depth}, {player}, evaluate) with the default window: minimax "
            f"{want}, you returned {got}, in\n{state}"
        )
        leaves, minimax_leaves = leaves + len(evaluate.seen), minimax_leaves + evaluated
        contract_leaves += contract(state, depth, player, weighted)
    pruned(leaves, contract_leaves, minimax_leaves, "on these 32 searches")


@pytest.mark.points(
    1,
    exercise="alphabeta",
    timeout=12,
    hint="a pass is an action like any other; a finished game is a leaf",
)
def test_endgames(student, submission_seed):
    """alpha-beta is exact near the end of the game (passes, finished games)"""
    leaves = minimax_leaves = contract_leaves = 0
    for i, state in enumerate(positions(submission_seed, 2, 20, late=True)):
        depth = 2 + i % 3
        want, evaluated = minimax(state, depth, 0, disc_difference)
        got, _, seen = _call(student, state, depth, 0, disc_difference)
        assert got == want, f"depth {depth}: minimax {want}, alpha-beta {got}, in\n{state}"
        leaves, minimax_leaves = leaves + len(seen), minimax_leaves + evaluated
        contract_leaves += contract(state, depth, 0, disc_difference)
    pruned(leaves, contract_leaves, minimax_leaves, "on these 20 endgames")


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=12,
    hint="fail-hard or fail-soft: v <= alpha when minimax <= alpha, "
    "v >= beta when minimax >= beta, else v = minimax",
)
def test_window(student, submission_seed):
    """alpha-beta called with a window (alpha, beta) bounds the minimax value correctly"""
    rng = random.Random(submission_seed + 3)
    leaves = minimax_leaves = contract_leaves = 0
    for state in positions(submission_seed, 3, 20):
        depth = rng.randint(1, 3)
        want, evaluated = minimax(state, depth, 0, disc_difference)
        alpha = want + rng.choice([-6, -2, 0, 1, 3])
        beta = alpha + rng.choice([1, 2, 5, 8])
        got, _, seen = _call(student, state, depth, 0, disc_difference, alpha, beta)
        ok = got <= alpha if want <= alpha else got >= beta if want >= beta else got == want
        assert ok, (
            f"window ({alpha}, {beta}), depth {depth}: minimax value {want}, you returned {got}, "
            f"in\n{state}"
        )
        leaves, minimax_leaves = leaves + len(seen), minimax_leaves + evaluated
        contract_leaves += contract(state, depth, 0, disc_difference, alpha, beta)
    pruned(leaves, contract_leaves, minimax_leaves, "with these 20 windows")


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=20,
    hint="count a node each time alphabeta is called (stats['nodes'] += 1), evaluate with the "
    "evaluate given, visit the moves in legal_actions() order and stop once alpha >= beta",
)
def test_node_counts(student, submission_seed):
    """alpha-beta evaluates exactly the leaves the algorithm must, and counts its nodes"""
    total = total_mm = 0
    for state in positions(submission_seed, 4, 8):
        player = state.current_player
        _, mm_leaves = minimax(state, 3, player, weighted)
        want, want_nodes = alphabeta_leaves(state, 3, player, weighted)
        _, nodes, seen = _call(student, state, 3, player, weighted)
        # which leaves alpha-beta never evaluates is a fact of the algorithm and the move
        # order: the grader's evaluation saw them, the search's own count is not trusted
        if seen != want:
            k = next((k for k, (a, b) in enumerate(zip(seen, want, strict=False)) if a != b), None)
            k = min(len(seen), len(want)) if k is None else k
            raise AssertionError(
                f"alpha-beta to depth 3 evaluated {len(seen)} leaves; following the contract "
                f"(moves in legal_actions() order, stop once alpha >= beta) it evaluates "
                f"{len(want)} (minimax {mm_leaves}), the first difference at leaf {k + 1}, in\n"
                f"{state}"
            )
        assert nodes == want_nodes, (
            f"alpha-beta to depth 3 evaluated the right leaves but counted {nodes} nodes in "
            f"stats['nodes']; one per call makes {want_nodes}, in\n{state}"
        )
        total, total_mm = total + len(seen), total_mm + mm_leaves
    assert total <= 0.75 * total_mm, (
        f"alpha-beta evaluated {total} leaves, minimax {total_mm}: pruning should save more"
    )


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=20,
    hint="best_move searches each child with alphabeta, depth - 1 below, with the best value so "
    "far as alpha and stats passed on, and keeps the first best move (replace it only on a "
    "strictly better value)",
)
def test_best_move(student, submission_seed):
    """best_move returns the first minimax-best move and its value, and prunes with its alpha"""
    leaves = want_leaves = 0
    for i, state in enumerate(positions(submission_seed, 5, 12)):
        depth = 1 + i % 3
        me = state.current_player
        values = {
            a: minimax(state.play(a), depth - 1, me, weighted)[0] for a in state.legal_actions()
        }
        best = max(values.values())
        first = next(a for a in state.legal_actions() if values[a] == best)
        # the contract's searches: each child with the best value so far as alpha
        searched, alpha = 0, -math.inf
        for a in state.legal_actions():
            searched += len(alphabeta_leaves(state.play(a), depth - 1, me, weighted, alpha)[0])
            alpha = max(alpha, values[a])
        evaluate = Leaves(weighted)
        result = student.best_move(state, depth, evaluate, {"nodes": 0})
        assert isinstance(result, tuple | list) and len(result) == 2, (
            f"best_move returned {result!r}, not (action, value)"
        )
        action, value = result
        assert action in values, f"best_move returned {action!r}, not a legal action"
        assert values[action] == best and value == best, (
            f"depth {depth}: best value {best}; you returned action {action} "
            f"(worth {values[action]}) with value {value}"
        )
        assert action == first, (
            f"depth {depth}: the moves {[a for a in values if values[a] == best]} share the best "
            f"value {best}; the contract keeps the first, {first}, you returned {action}"
        )
        leaves, want_leaves = leaves + len(evaluate.seen), want_leaves + searched
    assert 0 < leaves <= want_leaves, (
        f"on these 12 positions best_move's searches evaluated {leaves} leaves (the grader "
        f"counts the calls of evaluate); searching each child with alphabeta and the best value "
        f"so far as alpha, they evaluate {want_leaves}"
    )
