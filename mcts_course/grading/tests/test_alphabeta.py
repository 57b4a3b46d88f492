"""Public checks of exercise 6: alpha-beta from minimax on Othello.

The minimax values, the node counts of minimax and those of alpha-beta searching the moves in
legal_actions() order are the library's own engine's (:mod:`mcts_course.agents.minimax`, with
``order=False``): public facts of each position, whoever computes them.

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
from mcts_course.grading.public import disc_difference, weighted

# The positions are drawn from a seed derived from the submission's code (the plugin's
# `submission_seed`: SHA-256 of the code): the same code is graded on the same positions (a
# failure shows its position, a grade can be reproduced), and a table of answers recorded from
# other positions cannot anticipate the ones its own hash draws.


@functools.cache
def minimax(state: Othello, depth: int, player: int, evaluate) -> tuple[float, int]:
    """The minimax value and its node count (the library's minimax), computed once per grading
    run (states are hashable)."""
    stats = SearchStats()
    return minimax_value(state, depth, evaluate, player, stats), stats.nodes


def alphabeta_nodes(state: Othello, depth: int, player: int, evaluate, alpha: float) -> int:
    """The nodes alpha-beta visits with the moves in legal_actions() order, window (alpha,
    inf): the library's alpha-beta without its move ordering."""
    stats = SearchStats()
    alphabeta_value(state, depth, evaluate, player, alpha, math.inf, stats, order=False)
    return stats.nodes


@functools.cache
def node_counts(state: Othello) -> tuple[dict, dict]:
    """Nodes of minimax and of alpha-beta (moves in legal_actions() order), depth 3, weighted
    evaluation."""
    mm = {"nodes": minimax(state, 3, state.current_player, weighted)[1]}
    ab = {"nodes": alphabeta_nodes(state, 3, state.current_player, weighted, -math.inf)}
    return mm, ab


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
    stats = {"nodes": 0}
    value = student.alphabeta(state, depth, player, evaluate, alpha, beta, stats)
    return value, stats["nodes"]


def pruned(nodes: int, minimax_nodes: int, what: str) -> None:
    """Alpha-beta must count its nodes and visit fewer than minimax: the value alone does not
    tell alpha-beta from minimax."""
    assert 0 < nodes < minimax_nodes, (
        f"{what}: your alphabeta counted {nodes} nodes in stats['nodes'], minimax visits "
        f"{minimax_nodes}: alpha-beta must count one node per call and prune (stop looking at "
        "a node's moves once alpha >= beta)"
    )


@pytest.mark.points(
    3,
    exercise="alphabeta",
    timeout=5,
    hint="with the full window (-inf, inf) alpha-beta must return the minimax value exactly",
)
def test_same_value_as_minimax(student, submission_seed):
    """alpha-beta gives the minimax value on 24 positions, depths 1-3, two evaluations"""
    nodes = minimax_nodes = 0
    for i, state in enumerate(positions(submission_seed, 1, 24)):
        depth = 1 + i % 3
        evaluate = disc_difference if i % 2 else weighted
        player = state.current_player if i % 4 < 2 else 1 - state.current_player
        want, visited = minimax(state, depth, player, evaluate)
        got, counted = _call(student, state, depth, player, evaluate)
        assert got == want, (
            f"depth {depth}, player {player}, {evaluate.__name__}: minimax {want}, "
            f"alpha-beta {got}, in\n{state}"
        )
        nodes, minimax_nodes = nodes + counted, minimax_nodes + visited
    pruned(nodes, minimax_nodes, "on these 24 searches")


@pytest.mark.points(
    1,
    exercise="alphabeta",
    timeout=3,
    hint="the defaults must be alpha=-math.inf and beta=math.inf (the full window)",
)
def test_default_window(student, submission_seed):
    """alpha-beta called without a window gives the minimax value"""
    cases = [  # near the end, where values reach hundreds and +-10000
        (state, 1 + i % 3, player)
        for i, state in enumerate(positions(submission_seed, 6, 16, late=True))
        for player in (0, 1)
    ]
    nodes = minimax_nodes = 0
    for state, depth, player in cases:
        want, visited = minimax(state, depth, player, weighted)
        stats = {"nodes": 0}
        got = student.alphabeta(state, depth, player, weighted, stats=stats)
        assert got == want, (
            f"alphabeta(state, {depth}, {player}, weighted) with the default window: minimax "
            f"{want}, you returned {got}, in\n{state}"
        )
        nodes, minimax_nodes = nodes + stats["nodes"], minimax_nodes + visited
    pruned(nodes, minimax_nodes, "on these 32 searches")


@pytest.mark.points(
    1,
    exercise="alphabeta",
    timeout=3,
    hint="a pass is an action like any other; a finished game is a leaf",
)
def test_endgames(student, submission_seed):
    """alpha-beta is exact near the end of the game (passes, finished games)"""
    nodes = minimax_nodes = 0
    for i, state in enumerate(positions(submission_seed, 2, 20, late=True)):
        depth = 2 + i % 3
        want, visited = minimax(state, depth, 0, disc_difference)
        got, counted = _call(student, state, depth, 0, disc_difference)
        assert got == want, f"depth {depth}: minimax {want}, alpha-beta {got}, in\n{state}"
        nodes, minimax_nodes = nodes + counted, minimax_nodes + visited
    pruned(nodes, minimax_nodes, "on these 20 endgames")


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=3,
    hint="fail-hard or fail-soft: v <= alpha when minimax <= alpha, "
    "v >= beta when minimax >= beta, else v = minimax",
)
def test_window(student, submission_seed):
    """alpha-beta called with a window (alpha, beta) bounds the minimax value correctly"""
    rng = random.Random(submission_seed + 3)
    nodes = minimax_nodes = 0
    for state in positions(submission_seed, 3, 20):
        depth = rng.randint(1, 3)
        want, visited = minimax(state, depth, 0, disc_difference)
        alpha = want + rng.choice([-6, -2, 0, 1, 3])
        beta = alpha + rng.choice([1, 2, 5, 8])
        got, counted = _call(student, state, depth, 0, disc_difference, alpha, beta)
        ok = got <= alpha if want <= alpha else got >= beta if want >= beta else got == want
        assert ok, (
            f"window ({alpha}, {beta}), depth {depth}: minimax value {want}, you returned {got}, "
            f"in\n{state}"
        )
        nodes, minimax_nodes = nodes + counted, minimax_nodes + visited
    pruned(nodes, minimax_nodes, "with these 20 windows")


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=5,
    hint="count a node each time alphabeta is called (stats['nodes'] += 1), visit the moves "
    "in legal_actions() order and stop once alpha >= beta",
)
def test_node_counts(student, submission_seed):
    """alpha-beta counts its nodes: positive, exactly the contract's number, far below minimax"""
    total_ab = total_mm = 0
    for state in positions(submission_seed, 4, 8):
        mm, want = node_counts(state)
        _, nodes = _call(student, state, 3, state.current_player, weighted)
        assert nodes > 0, "stats['nodes'] stayed 0: count one node per call"
        assert nodes == want["nodes"], (
            f"alpha-beta to depth 3 counted {nodes} nodes; following the contract (moves in "
            f"legal_actions() order, stop once alpha >= beta) it visits {want['nodes']} "
            f"(minimax {mm['nodes']}) in\n{state}"
        )
        total_ab, total_mm = total_ab + nodes, total_mm + mm["nodes"]
    assert total_ab <= 0.75 * total_mm, (
        f"alpha-beta visited {total_ab} nodes, minimax {total_mm}: pruning should save more"
    )


@pytest.mark.points(
    2,
    exercise="alphabeta",
    timeout=5,
    hint="best_move searches each child with alphabeta, depth - 1 below, with the best value so "
    "far as alpha and stats passed on, and keeps the first best move (replace it only on a "
    "strictly better value)",
)
def test_best_move(student, submission_seed):
    """best_move returns the first minimax-best move and its value, and prunes with its alpha"""
    nodes = want_nodes = 0
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
            searched += alphabeta_nodes(state.play(a), depth - 1, me, weighted, alpha)
            alpha = max(alpha, values[a])
        stats = {"nodes": 0}
        result = student.best_move(state, depth, weighted, stats)
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
        nodes, want_nodes = nodes + stats["nodes"], want_nodes + searched
    assert 0 < nodes <= want_nodes, (
        f"on these 12 positions best_move's searches counted {nodes} nodes in stats; searching "
        f"each child with alphabeta and the best value so far as alpha, they visit {want_nodes}"
    )
