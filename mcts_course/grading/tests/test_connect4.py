"""Grading tests of exercise 5: Connect Four rules on a plain board, and an MCTS player.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import functools
import random

import pytest

from mcts_course.games import ConnectFour
from mcts_course.solutions import connect4 as ref

COLS, ROWS = 7, 6


def random_board(rng: random.Random) -> list[list[int]]:
    """Columns of random heights and random discs (not always a reachable position)."""
    return [
        [rng.randrange(2) for _ in range(rng.choice([0, 1, 2, 3, 4, 5, 6, 6]))] for _ in range(COLS)
    ]


def played_board(rng: random.Random) -> list[list[int]]:
    """The board after a random game prefix, as columns listed from the bottom up."""
    board, player = [[] for _ in range(COLS)], 0
    for _ in range(rng.randint(0, 42)):
        legal = ref.legal_columns(board)
        if not legal or ref.is_win(board, 0) or ref.is_win(board, 1):
            break
        board = ref.drop(board, rng.choice(legal), player)
        player = 1 - player
    return board


def show(board) -> str:
    """The board printed top row first (X = player 0, O = player 1)."""
    lines = []
    for row in reversed(range(ROWS)):
        cells = []
        for col in range(COLS):
            cells.append(".XO"[board[col][row] + 1] if row < len(board[col]) else ".")
        lines.append(" ".join(cells))
    return "\n".join(lines + ["1 2 3 4 5 6 7"])


def line_board(rng: random.Random, dc: int, dr: int, player: int) -> list[list[int]]:
    """A board with one line of four of ``player`` in direction (dc, dr), the rest noise."""
    while True:
        col = rng.randrange(COLS - 3 * abs(dc))
        row = rng.randrange(ROWS - 3 * abs(dr)) + (3 if dr < 0 else 0)
        cells = {(col + k * dc, row + k * dr) for k in range(4)}
        board = []
        for c in range(COLS):
            top = max([r + 1 for cc, r in cells if cc == c] + [rng.randint(0, ROWS)])
            board.append([player if (c, r) in cells else rng.randrange(2) for r in range(top)])
        # noise must not make a second line: keep boards where only the planted one exists
        if sum(_lines(board, player)) == 1 and not any(_lines(board, 1 - player)):
            return board


def _lines(board, player) -> list[int]:
    """How many lines of four ``player`` has per direction (by brute force)."""
    counts = []
    for dc, dr in ref.DIRECTIONS:
        n = 0
        for col in range(COLS):
            for row in range(ROWS):
                if all(ref.disc(board, col + k * dc, row + k * dr) == player for k in range(4)):
                    n += 1
        counts.append(n)
    return counts


@pytest.mark.points(
    2, exercise="connect4", hint="a column is legal while it holds fewer than 6 discs"
)
def test_legal_columns(student):
    """legal_columns matches the rules on 500 boards"""
    rng = random.Random(1)
    boards = [random_board(rng) for _ in range(500)]
    for board, got in zip(boards, student.legal_columns.many([(b,) for b in boards]), strict=True):
        want = ref.legal_columns(board)
        assert isinstance(got, list | tuple) and list(got) == want, (
            f"legal_columns of\n{show(board)}\nis {want}, you gave {got!r}"
        )


@pytest.mark.points(
    2, exercise="connect4", hint="copy the board, append the disc to the column (bottom first)"
)
def test_drop(student):
    """drop adds a disc on top of the column and leaves the old board alone"""
    rng = random.Random(2)
    cases = []
    for _ in range(200):
        board = played_board(rng)
        legal = ref.legal_columns(board)
        if legal:
            cases.append((board, rng.choice(legal), rng.randrange(2), copy.deepcopy(board)))
    results = student.drop.many([(board, col, player) for board, col, player, _ in cases])
    for (board, col, player, before), got in zip(cases, results, strict=True):
        assert board == before, "drop changed the board it was given; return a new one"
        want = ref.drop(before, col, player)
        assert isinstance(got, list) and [list(c) for c in got] == want, (
            f"drop(board, {col}, {player}) on\n{show(before)}\ngave {got!r}\nexpected\n{show(want)}"
        )


@pytest.mark.points(
    1, exercise="connect4", hint="raise ValueError for a full column or a column outside 0..6"
)
def test_drop_illegal(student):
    """drop raises ValueError for a full or missing column"""
    board = [[0, 1, 0, 1, 0, 1]] + [[] for _ in range(6)]
    for col in (0, 7, -1):
        try:
            student.drop(copy.deepcopy(board), col, 0)
        except ValueError:
            continue
        raise AssertionError(f"drop(board, {col}, 0) should raise ValueError")


def _direction_test(student, dc: int, dr: int, name: str) -> None:
    rng = random.Random(100 + 10 * dc + dr)
    cases = []
    for _ in range(40):
        player = rng.randrange(2)
        cases.append((line_board(rng, dc, dr, player), player))
    for (board, player), got in zip(cases, student.is_win.many(cases), strict=True):
        assert got is True or got == True, (  # noqa: E712 - accept numpy bools
            f"is_win(board, {player}) missed a {name} line of four:\n{show(board)}"
        )


@pytest.mark.points(1, exercise="connect4", hint="check the row: (col + k, row) for k = 0..3")
def test_is_win_horizontal(student):
    """is_win finds horizontal lines"""
    _direction_test(student, 1, 0, "horizontal")


@pytest.mark.points(1, exercise="connect4", hint="check the column: (col, row + k)")
def test_is_win_vertical(student):
    """is_win finds vertical lines"""
    _direction_test(student, 0, 1, "vertical")


@pytest.mark.points(1, exercise="connect4", hint="check the rising diagonal: (col + k, row + k)")
def test_is_win_diagonal_up(student):
    """is_win finds rising diagonals (/)"""
    _direction_test(student, 1, 1, "rising diagonal (/)")


@pytest.mark.points(1, exercise="connect4", hint="check the falling diagonal: (col + k, row - k)")
def test_is_win_diagonal_down(student):
    """is_win finds falling diagonals (\\)"""
    _direction_test(student, 1, -1, "falling diagonal (\\)")


@functools.cache
def _random_win_cases() -> tuple[list, list[bool]]:
    """600 boards, both players, and the reference's answers (computed once per run)."""
    rng = random.Random(3)
    boards = [random_board(rng) if i % 2 else played_board(rng) for i in range(600)]
    cases = [(board, player) for board in boards for player in (0, 1)]
    return cases, [ref.is_win(board, player) for board, player in cases]


@pytest.mark.points(
    2, exercise="connect4", hint="a player wins only with FOUR of their own discs in a line"
)
def test_is_win_random_boards(student):
    """is_win matches the rules on 600 random boards (both players)"""
    cases, wants = _random_win_cases()
    for (board, player), want, got in zip(cases, wants, student.is_win.many(cases), strict=True):
        assert bool(got) == want, f"is_win(board, {player}) should be {want} for\n{show(board)}"


class _Random:
    name = "random"

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def select_action(self, state):
        return self.rng.choice(state.legal_actions())


@pytest.mark.points(
    1,
    exercise="connect4",
    timeout=5,
    hint="MCTSPlayer(iterations, c, seed).select_action(ConnectFour state)",
)
def test_player_takes_the_win(student):
    """the MCTS player completes its own four in a row, as either player"""
    for moves, win, who in (("1 1 2 2 3 3", 3, "Red"), ("1 2 1 2 1 2 7", 1, "Yellow")):
        state = ConnectFour.from_moves(moves)  # the player to move wins at once
        assert state.play(win).returns()[state.current_player] == 1
        for seed in range(2):
            got = student.MCTSPlayer(iterations=500, seed=seed).select_action(state)
            assert got == win, (
                f"{who} wins at once with column {win + 1} in\n{state}\nyou played {got!r}"
            )


@pytest.mark.points(
    1,
    exercise="connect4",
    timeout=5,
    hint="the values in the tree must be from the view of the player who moves into each "
    "node (flip the reward at every level)",
)
def test_player_blocks(student):
    """the MCTS player blocks the opponent's four in a row, as either player"""
    for moves, block, who in (("1 7 1 7 2 7", 6, "Red"), ("1 7 2 7 3", 3, "Yellow")):
        state = ConnectFour.from_moves(moves)
        threat = state.play(0 if block else 1)
        assert any(
            threat.play(a).returns()[1 - state.current_player] == 1 for a in threat.legal_actions()
        )
        for seed in range(2):
            got = student.MCTSPlayer(iterations=800, seed=seed).select_action(state)
            assert got == block, (
                f"{who} must block column {block + 1} in\n{state}\nyou played {got!r}"
            )


@pytest.mark.points(
    3, exercise="connect4", timeout=20, hint="MCTS with 200 iterations should beat random play"
)
def test_player_beats_random(student):
    """MCTS(200) wins at least 9 of 10 games against random play"""
    wins = 0
    for game in range(10):
        me = game % 2
        players = [_Random(game), _Random(game)]
        players[me] = student.MCTSPlayer(iterations=200, seed=game)
        state = ConnectFour()
        while not state.is_terminal():
            action = players[state.current_player].select_action(state)
            assert action in state.legal_actions(), f"illegal move {action!r} in\n{state}"
            state = state.play(action)
        wins += state.returns()[me] == 1
    assert wins >= 9, f"your MCTS won {wins} of 10 games against random play"
