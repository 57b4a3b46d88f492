"""Tic-tac-toe: published game counts, transcripts, errors and random playouts.

Everything here goes through the public protocol, so it would hold for any correct encoding.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mcts_course.games import IllegalActionError, TicTacToe


def game_counts(state: TicTacToe, memo: dict) -> tuple[int, int, int, int]:
    """(games, X wins, O wins, draws) over all complete games from ``state``."""
    if state.is_terminal():
        winner = state.winner()
        return (1, int(winner == 0), int(winner == 1), int(winner is None))
    if state not in memo:  # the counts depend only on the position, so states key a memo
        totals = [0, 0, 0, 0]
        for action in state.legal_actions():
            for i, n in enumerate(game_counts(state.play(action), memo)):
                totals[i] += n
        memo[state] = tuple(totals)
    return memo[state]


def outcome_probabilities(state: TicTacToe, memo: dict) -> tuple[float, float, float]:
    """Exact P(X wins), P(O wins), P(draw) when both players pick uniformly at random."""
    if state.is_terminal():
        winner = state.winner()
        return (float(winner == 0), float(winner == 1), float(winner is None))
    if state not in memo:
        children = [outcome_probabilities(state.play(a), memo) for a in state.legal_actions()]
        memo[state] = tuple(sum(p) / len(children) for p in zip(*children, strict=True))
    return memo[state]


def rollout_frequencies(state: TicTacToe, n: int, seed: int) -> tuple[float, float, float]:
    rng = random.Random(seed)
    counts = {(1, -1): 0, (-1, 1): 0, (0, 0): 0}
    for _ in range(n):
        counts[state.rollout(rng)] += 1
    return (counts[(1, -1)] / n, counts[(-1, 1)] / n, counts[(0, 0)] / n)


# -- published numbers ---------------------------------------------------------------------


def test_number_of_complete_games():
    # 255,168 games: X wins 131,184, O wins 77,904, 46,080 draws (e.g. Schaefer, "Tic-Tac-Toe")
    assert game_counts(TicTacToe(), {}) == (255_168, 131_184, 77_904, 46_080)


def test_number_of_reachable_positions():
    # 5,478 distinct legal positions can arise in play, the empty board included.
    seen = _reachable(include_terminal=True)
    assert len(seen) == 5478
    terminal = [s for s in seen if s.is_terminal()]
    # 958 terminal positions: 626 won by X, 316 by O, 16 drawn
    assert len(terminal) == 958
    assert [sum(s.winner() == w for s in terminal) for w in (0, 1, None)] == [626, 316, 16]


def test_perft_counts():
    from mcts_course.games.perft import perft

    # No game ends before ply 5, so the first five depths count every sequence of cells.
    assert [perft(TicTacToe(), d) for d in range(1, 6)] == [9, 72, 504, 3024, 15120]


# -- transcripts ---------------------------------------------------------------------------

TRANSCRIPTS = [
    # (moves, final board, returns)
    ("a1 a2 b1 b2 c1", "   a b c\n1  X X X\n2  O O .\n3  . . .\nX wins", (1, -1)),  # a rank
    ("a1 b1 a2 b2 c3 b3", "   a b c\n1  X O .\n2  X O .\n3  . O X\nO wins", (-1, 1)),  # a file
    ("a1 b1 b2 c1 c3", "   a b c\n1  X O O\n2  . X .\n3  . . X\nX wins", (1, -1)),  # diagonal
    ("c1 a1 b2 a2 a3", "   a b c\n1  O . X\n2  O X .\n3  X . .\nX wins", (1, -1)),  # other diagonal
    ("a1 b2 c3 b1 b3 a3 c1 c2 a2", "   a b c\n1  X O X\n2  X O O\n3  O X X\ndraw", (0, 0)),
    # the ninth mark both fills the board and completes a file: a win, not a draw
    ("c1 b1 b3 b2 a2 c2 a3 c3 a1", "   a b c\n1  X O X\n2  X O O\n3  X X O\nX wins", (1, -1)),
]


@pytest.mark.parametrize("moves, picture, returns", TRANSCRIPTS)
def test_transcript(moves, picture, returns):
    state = TicTacToe.from_moves(moves)
    assert str(state) == picture
    assert state.is_terminal()
    assert state.returns() == returns
    assert state.legal_actions() == []
    # every position before the last one was still going on
    before = TicTacToe.from_moves(moves.split()[:-1])
    assert not before.is_terminal() and before.returns() == (0, 0)


def test_start_position():
    s = TicTacToe()
    assert s.current_player == 0
    assert s.legal_actions() == list(range(9))
    assert not s.is_terminal() and s.returns() == (0, 0) and s.winner() is None
    assert np.array(s.board()).shape == (3, 3)
    assert (np.array(s.board()) == -1).all()
    assert str(s) == "   a b c\n1  . . .\n2  . . .\n3  . . .\nX to move"


def test_board_orientation_and_names():
    s = TicTacToe.from_moves("b1 c3")  # X at b1 = cell 1 (row 0), O at c3 = cell 8 (row 2)
    expected = np.array([[-1, 0, -1], [-1, -1, -1], [-1, -1, 1]], dtype=np.int8)
    assert (np.array(s.board()) == expected).all()
    assert s.current_player == 0
    assert s.legal_actions() == [0, 2, 3, 4, 5, 6, 7]
    assert s.cell_of(5) == (1, 2)
    names = [s.action_to_string(a) for a in range(9)]
    assert names == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert [s.parse_action(name) for name in names] == list(range(9))
    assert s.parse_action(" B2 ") == 4


@pytest.mark.parametrize("text", ["", "d1", "a4", "a0", "b", "22", "b2b", "4"])
def test_parse_errors(text):
    with pytest.raises(IllegalActionError):
        TicTacToe().parse_action(text)


# -- errors and immutability --------------------------------------------------------------


def test_occupied_cell_and_finished_game_raise():
    s = TicTacToe.from_moves("b2")
    with pytest.raises(IllegalActionError, match="legal: a1 \\(0\\)"):
        s.play(4)
    over = TicTacToe.from_moves("a1 a2 b1 b2 c1")
    with pytest.raises(IllegalActionError, match="over"):
        over.play(8)


# -- random playouts -----------------------------------------------------------------------


def test_exact_random_play_probabilities():
    px, po, pd = outcome_probabilities(TicTacToe(), {})
    # The published figures for uniformly random play: X 58.5%, O 28.8%, draw 12.7%.
    assert (round(px, 3), round(po, 3), round(pd, 3)) == (0.585, 0.288, 0.127)
    assert math.isclose(px + po + pd, 1.0)


@pytest.mark.parametrize("moves", ["", "b2", "b2 a1", "a1 b1 a2"])
def test_rollouts_match_exact_probabilities(moves):
    state = TicTacToe.from_moves(moves)
    n = 4000
    exact = outcome_probabilities(state, {})
    observed = rollout_frequencies(state, n, seed=7)
    for p, f in zip(exact, observed, strict=True):
        assert abs(f - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12, (moves, exact, observed)


def test_rollout_is_seeded_and_leaves_state_alone():
    s = TicTacToe.from_moves("b2")
    first = [s.rollout(random.Random(3)) for _ in range(3)]
    assert len(set(first)) == 1  # same seed, same playout
    runs = [s.rollout(random.Random(seed)) for seed in range(50)]
    assert len(set(runs)) == 3  # all three outcomes occur
    assert s == TicTacToe.from_moves("b2")


def test_rollout_from_terminal_and_forced_positions():
    over = TicTacToe.from_moves("a1 a2 b1 b2 c1")
    assert over.rollout(random.Random(0)) == (1, -1)
    # one empty cell left, and filling it draws
    last = TicTacToe.from_moves("a1 b2 c3 b1 b3 a3 c1 c2")
    assert last.legal_actions() == [3]
    assert last.rollout(random.Random(0)) == (0, 0)


# -- symmetry classes ------------------------------------------------------------------------
def _grid_classes(include_terminal: bool) -> tuple[int, int]:
    """Every legal position reached by play from the empty board, counted with a second,
    independent construction: 3x3 grids of 0 (empty) / 1 (X) / 2 (O) transformed by numpy's
    rot90 and fliplr (not the module's masks).  Returns (positions, classes)."""

    def won(grid: np.ndarray, mark: int) -> bool:
        lines = [*grid, *grid.T, grid.diagonal(), np.fliplr(grid).diagonal()]
        return any(bool((line == mark).all()) for line in lines)

    seen: set[bytes] = set()
    classes: set[bytes] = set()
    frontier = [np.zeros((3, 3), dtype=np.int8)]
    while frontier:
        grid = frontier.pop()
        key = grid.tobytes()
        if key in seen:
            continue
        seen.add(key)
        over = won(grid, 1) or won(grid, 2) or bool((grid != 0).all())
        if include_terminal or not over:
            images = [np.rot90(g, k) for g in (grid, np.fliplr(grid)) for k in range(4)]
            classes.add(min(image.tobytes() for image in images))
        if over:
            continue
        mark = 1 if (grid == 1).sum() == (grid == 2).sum() else 2
        for row, col in zip(*np.nonzero(grid == 0), strict=True):
            child = grid.copy()
            child[row, col] = mark
            frontier.append(child)
    positions = sum(
        1
        for key in seen
        if include_terminal
        or not (
            won(g := np.frombuffer(key, dtype=np.int8).reshape(3, 3), 1)
            or won(g, 2)
            or bool((g != 0).all())
        )
    )
    return positions, len(classes)


def _reachable(include_terminal: bool) -> list[TicTacToe]:
    seen, frontier = {TicTacToe()}, [TicTacToe()]
    while frontier:
        state = frontier.pop()
        for action in state.legal_actions():
            child = state.play(action)
            if child not in seen:
                seen.add(child)
                if not child.is_terminal():
                    frontier.append(child)
    return [s for s in seen if include_terminal or not s.is_terminal()]


def test_symmetry_classes_match_an_independent_count() -> None:
    # 5,478 legal positions in 765 classes is the known count; the grid construction above
    # recomputes it, and the module's classes must agree with it with and without the ends.
    assert _grid_classes(include_terminal=True) == (5478, 765)
    for include_terminal in (True, False):
        states = _reachable(include_terminal)
        expected = _grid_classes(include_terminal)
        assert (len(states), len({s.symmetry_class() for s in states})) == expected
        assert sum(s.is_canonical() for s in states) == expected[1]  # one member per class


def test_symmetric_copies_share_a_class_and_values() -> None:
    from mcts_course.agents.exact import move_values

    # b1 then a1 and its mirror image b1 then c1: the same class, the same game values.
    left = TicTacToe().play(1).play(0)
    right = TicTacToe().play(1).play(2)
    assert left != right and left.symmetry_class() == right.symmetry_class()
    assert sorted(move_values(left).values()) == sorted(move_values(right).values())
    # A corner and the centre are never symmetric.
    assert TicTacToe().play(0).symmetry_class() != TicTacToe().play(4).symmetry_class()
