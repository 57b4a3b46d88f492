"""Grading tests of exercise 6: alpha-beta from minimax on Othello."""

from __future__ import annotations

import math
import random

import numpy as np

from mcts_course.games import Othello
from mcts_course.grading.framework import points
from mcts_course.solutions import alphabeta as ref

# A second evaluation, so that a solution cannot depend on disc_difference.
WEIGHTS = np.array(
    [
        [100, -20, 10, 5, 5, 10, -20, 100],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [100, -20, 10, 5, 5, 10, -20, 100],
    ]
)


def weighted(state, player: int) -> float:
    if state.is_terminal():
        return 10000.0 * state.returns()[player]
    board = np.array(state.board())
    return float(WEIGHTS[board == player].sum() - WEIGHTS[board == 1 - player].sum())


def positions(seed: int, count: int, late: bool = False) -> list[Othello]:
    """Positions after random openings (late: near the end, where passes and ends happen)."""
    rng, found = random.Random(seed), []
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


@points(
    3,
    "alphabeta",
    hint="with the full window (-inf, inf) alpha-beta must return the minimax value exactly",
)
def test_same_value_as_minimax(student):
    """alpha-beta gives the minimax value on 24 positions, depths 1-3, two evaluations"""
    for i, state in enumerate(positions(1, 24)):
        depth = 1 + i % 3
        evaluate = ref.disc_difference if i % 2 else weighted
        player = state.current_player if i % 4 < 2 else 1 - state.current_player
        want = ref.minimax(state, depth, player, evaluate)
        got, _ = _call(student, state, depth, player, evaluate)
        assert got == want, (
            f"depth {depth}, player {player}, {evaluate.__name__}: minimax {want}, "
            f"alpha-beta {got}, in\n{state}"
        )


@points(1, "alphabeta", hint="a pass is an action like any other; a finished game is a leaf")
def test_endgames(student):
    """alpha-beta is exact near the end of the game (passes, finished games)"""
    for i, state in enumerate(positions(2, 20, late=True)):
        depth = 2 + i % 3
        want = ref.minimax(state, depth, 0, ref.disc_difference)
        got, _ = _call(student, state, depth, 0, ref.disc_difference)
        assert got == want, f"depth {depth}: minimax {want}, alpha-beta {got}, in\n{state}"


@points(
    2,
    "alphabeta",
    hint="fail-hard or fail-soft: v <= alpha when minimax <= alpha, "
    "v >= beta when minimax >= beta, else v = minimax",
)
def test_window(student):
    """alpha-beta called with a window (alpha, beta) bounds the minimax value correctly"""
    rng = random.Random(3)
    for state in positions(3, 20):
        depth = rng.randint(1, 3)
        want = ref.minimax(state, depth, 0, ref.disc_difference)
        alpha = want + rng.choice([-6, -2, 0, 1, 3])
        beta = alpha + rng.choice([1, 2, 5, 8])
        got, _ = _call(student, state, depth, 0, ref.disc_difference, alpha, beta)
        ok = got <= alpha if want <= alpha else got >= beta if want >= beta else got == want
        assert ok, (
            f"window ({alpha}, {beta}), depth {depth}: minimax value {want}, you returned {got}"
        )


@points(
    2,
    "alphabeta",
    hint="count a node each time alphabeta is called (stats['nodes'] += 1) "
    "and cut off when alpha >= beta",
)
def test_fewer_nodes(student):
    """alpha-beta visits fewer nodes than minimax (never more; far fewer in all)"""
    total_ab = total_mm = 0
    for state in positions(4, 8):
        mm = {"nodes": 0}
        ref.minimax(state, 3, state.current_player, weighted, mm)
        _, nodes = _call(student, state, 3, state.current_player, weighted)
        assert 0 < nodes <= mm["nodes"], (
            f"alpha-beta counted {nodes} nodes, minimax {mm['nodes']} (depth 3) in\n{state}"
        )
        total_ab, total_mm = total_ab + nodes, total_mm + mm["nodes"]
    assert total_ab <= 0.75 * total_mm, (
        f"alpha-beta visited {total_ab} nodes, minimax {total_mm}: pruning should save more"
    )


@points(2, "alphabeta", hint="best_move searches each child with alphabeta, depth - 1 below")
def test_best_move(student):
    """best_move returns a minimax-best move and its value"""
    for i, state in enumerate(positions(5, 12)):
        depth = 1 + i % 3
        action, value = student.best_move(state, depth, weighted)
        me = state.current_player
        values = {
            a: ref.minimax(state.play(a), depth - 1, me, weighted) for a in state.legal_actions()
        }
        best = max(values.values())
        assert action in values, f"best_move returned {action!r}, not a legal action"
        assert values[action] == best and value == best, (
            f"depth {depth}: best value {best}; you returned action {action} "
            f"(worth {values[action]}) with value {value}"
        )
