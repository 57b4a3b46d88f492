"""Connect Four: published perft and position counts, transcripts, errors and random playouts.

Everything here goes through the public protocol, so it would hold for any correct encoding.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mcts_course.games import ConnectFour, IllegalActionError
from mcts_course.games.perft import perft


def has_four(grid: np.ndarray, player: int) -> bool:
    """A slow, obvious check of four in a row on a ``board()`` array."""
    rows, cols = grid.shape
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(4)]
                if all(0 <= y < rows and 0 <= x < cols and grid[y, x] == player for y, x in cells):
                    return True
    return False


def naive_rollout(state: ConnectFour, rng: random.Random) -> tuple[int, int]:
    """The textbook playout through the public protocol, as a reference for ``rollout``."""
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()


# -- published numbers ---------------------------------------------------------------------

# Leaves of the game tree: 7**n until a column can be full (ply 7: 7**7 - 7).
PERFT = {1: 7, 2: 49, 3: 343, 4: 2401, 5: 16807, 6: 117649, 7: 823536}


@pytest.mark.parametrize("depth", range(1, 8))
def test_perft(depth):
    assert perft(ConnectFour(), depth) == PERFT[depth]


def test_distinct_positions_per_ply():
    # OEIS A212693: legal 7x6 Connect Four positions after n plies (John Tromp).
    published = [1, 7, 49, 238, 1120, 4263, 16422, 54859]
    layer = {ConnectFour()}
    counts = [1]
    for _ in range(len(published) - 1):
        layer = {s.play(a) for s in layer for a in s.legal_actions()}
        counts.append(len(layer))
    assert counts == published


@pytest.mark.slow
def test_distinct_positions_ply_8():
    layer = {ConnectFour()}
    for _ in range(8):
        layer = {s.play(a) for s in layer for a in s.legal_actions()}
    assert len(layer) == 184275  # OEIS A212693, n = 8


# -- transcripts ---------------------------------------------------------------------------

EMPTY = ". . . . . . ."
DRAWN_GAME = "547125662261271266215743771576315353334444"
NUMBERS = "1 2 3 4 5 6 7"

TRANSCRIPTS = [
    # (moves, the six rows top first, result line, returns)
    (
        "1 2 1 2 1 2 1",  # vertical
        [EMPTY, EMPTY, "X . . . . . .", "X O . . . . .", "X O . . . . .", "X O . . . . ."],
        "Red (X) wins",
        (1, -1),
    ),
    (
        "1 1 2 2 3 3 4",  # horizontal
        [EMPTY, EMPTY, EMPTY, EMPTY, "O O O . . . .", "X X X X . . ."],
        "Red (X) wins",
        (1, -1),
    ),
    (
        "1 2 2 3 4 3 3 4 4 6 4",  # diagonal rising to the right
        [EMPTY, EMPTY, ". . . X . . .", ". . X X . . .", ". X O O . . .", "X O O X . O ."],
        "Red (X) wins",
        (1, -1),
    ),
    (
        "7 6 6 5 4 5 5 4 4 2 4",  # diagonal falling to the right
        [EMPTY, EMPTY, ". . . X . . .", ". . . X X . .", ". . . O O X .", ". O . X O O X"],
        "Red (X) wins",
        (1, -1),
    ),
    (
        "4 1 5 1 7 1 3 1",  # Yellow's vertical four, Red's three in a row blocked by nothing
        [EMPTY, EMPTY, "O . . . . . .", "O . . . . . .", "O . . . . . .", "O . X X X . X"],
        "Yellow (O) wins",
        (-1, 1),
    ),
    (
        DRAWN_GAME,  # all 42 cells, no four in a row
        [
            "O X O O X O X",
            "X O X X X O O",
            "O X O O O X X",
            "X O O X X X O",
            "O X X X O O O",
            "O X O O X X X",
        ],
        "draw",
        (0, 0),
    ),
]


@pytest.mark.parametrize("moves, rows, result, returns", TRANSCRIPTS)
def test_transcript(moves, rows, result, returns):
    moves = " ".join(moves) if " " not in moves else moves
    state = ConnectFour.from_moves(moves)
    assert str(state) == "\n".join([*rows, NUMBERS, result])
    assert state.is_terminal() and state.returns() == returns
    assert state.legal_actions() == []
    grid = np.array(state.board())
    assert has_four(grid, 0) == (returns == (1, -1)) and has_four(grid, 1) == (returns == (-1, 1))
    before = ConnectFour.from_moves(moves.split()[:-1])
    assert not before.is_terminal() and before.returns() == (0, 0)


def test_random_games_end_exactly_at_the_first_four():
    rng = random.Random(2)
    for _ in range(100):
        state = ConnectFour()
        while not state.is_terminal():
            mover = state.current_player
            state = state.play(rng.choice(state.legal_actions()))
            grid = np.array(state.board())
            mover_won = has_four(grid, mover)
            assert state.is_terminal() == (mover_won or bool((grid >= 0).all()))
        assert state.winner() == (mover if mover_won else None)
        assert not has_four(grid, 1 - mover)


def test_yellow_wins():
    state = ConnectFour.from_moves("1 2 1 2 1 2 3 2")  # Yellow completes column 2
    assert state.is_terminal() and state.returns() == (-1, 1) and state.winner() == 1
    assert str(state).splitlines()[-1] == "Yellow (O) wins"


def test_start_position():
    s = ConnectFour()
    assert s.current_player == 0
    assert s.legal_actions() == list(range(7))
    assert not s.is_terminal() and s.returns() == (0, 0) and s.winner() is None
    assert np.array(s.board()).shape == (6, 7)
    assert (np.array(s.board()) == -1).all()
    assert str(s) == "\n".join([EMPTY] * 6 + [NUMBERS, "Red (X) to move"])


def test_discs_fall_and_board_orientation():
    s = ConnectFour.from_moves("4 4 5")
    grid = np.array(s.board())
    assert grid[5, 3] == 0 and grid[4, 3] == 1 and grid[5, 4] == 0  # row 5 is the bottom
    assert (grid >= 0).sum() == 3
    assert s.current_player == 1
    assert s.cell_of(3) == (3, 3)  # the next disc in column 4 lands on the two there
    assert s.cell_of(0) == (5, 0)


def test_action_names():
    s = ConnectFour()
    assert [s.action_to_string(a) for a in range(7)] == list("1234567")
    assert [s.parse_action(t) for t in "1234567"] == list(range(7))
    assert s.parse_action(" 4 ") == 3


@pytest.mark.parametrize("text", ["", "0", "8", "a", "d3", "44", "-1"])
def test_parse_errors(text):
    with pytest.raises(IllegalActionError):
        ConnectFour().parse_action(text)


# -- errors and immutability --------------------------------------------------------------


def test_full_column_raises():
    s = ConnectFour.from_moves("1 1 1 1 1 1")
    assert s.legal_actions() == [1, 2, 3, 4, 5, 6]
    assert s.cell_of(0) is None
    with pytest.raises(IllegalActionError, match="legal: 2 \\(1\\)"):
        s.play(0)
    assert s == ConnectFour.from_moves("1 1 1 1 1 1")


def test_finished_game_raises():
    over = ConnectFour.from_moves("1 2 1 2 1 2 1")
    with pytest.raises(IllegalActionError, match="over"):
        over.play(3)


# -- random playouts -----------------------------------------------------------------------


@pytest.mark.parametrize("moves", ["", "4 4 4 3 5", "1 1 1 1 1 1 2 2 2 2 2 2 3 3 3 3 3"])
def test_rollouts_agree_with_naive_playouts(moves):
    state = ConnectFour.from_moves(moves)
    n = 3000
    fast_rng, naive_rng = random.Random(11), random.Random(12)
    fast = [state.rollout(fast_rng) for _ in range(n)]
    naive = [naive_rollout(state, naive_rng) for _ in range(n)]
    for outcome in ((1, -1), (-1, 1)):
        p, q = fast.count(outcome) / n, naive.count(outcome) / n
        pooled = (p + q) / 2
        standard_error = math.sqrt(2 * pooled * (1 - pooled) / n)
        assert abs(p - q) <= 4 * standard_error, (moves, outcome, p, q)


def outcome_probabilities(state: ConnectFour, memo: dict) -> tuple[float, float, float]:
    """Exact P(Red wins), P(Yellow wins), P(draw) under uniformly random play from ``state``."""
    if state.is_terminal():
        winner = state.winner()
        return (float(winner == 0), float(winner == 1), float(winner is None))
    if state not in memo:
        children = [outcome_probabilities(state.play(a), memo) for a in state.legal_actions()]
        memo[state] = tuple(sum(p) / len(children) for p in zip(*children, strict=True))
    return memo[state]


@pytest.mark.parametrize("left", [4, 5, 7, 10, 14])
def test_endgame_rollouts_match_exact_probabilities(left):
    # The drawn game above with its last ``left`` discs still to play: wins, draws and full
    # columns all happen in the playouts, and the exact odds are small enough to enumerate.
    state = ConnectFour.from_moves(" ".join(DRAWN_GAME[:-left]))
    exact = outcome_probabilities(state, {})
    n = 3000
    rng = random.Random(left)
    results = [state.rollout(rng) for _ in range(n)]
    observed = [results.count(r) / n for r in ((1, -1), (-1, 1), (0, 0))]
    for p, f in zip(exact, observed, strict=True):
        assert abs(f - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12, (left, exact, observed)
    assert state == ConnectFour.from_moves(" ".join(DRAWN_GAME[:-left]))


def test_rollout_from_a_finished_game():
    over = ConnectFour.from_moves("1 2 1 2 1 2 1")
    assert over.rollout(random.Random(0)) == (1, -1)


def test_rollout_is_seeded():
    s = ConnectFour.from_moves("4")
    assert len({s.rollout(random.Random(9)) for _ in range(3)}) == 1
    assert len({s.rollout(random.Random(seed)) for seed in range(40)}) >= 2
