"""Public checks of exercise 5: Connect Four rules on a plain board, and MCTS on them.

The rules are checked against the library's own engine (:mod:`mcts_course.games.connect4`:
its bitboards tell four in a row) and the contract's invariants (a new board with one more
disc); the seeded player's columns are compared with the reference's in the grader's tests.

Every expected answer is computed before the student's code sees the input, and the student's
code gets its own copy: whatever it does to a board cannot change what it is graded against.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import functools
import math
import random

import pytest

from mcts_course.games import ConnectFour
from mcts_course.games.connect4 import four_in_a_row
from mcts_course.grading.public import Node
from mcts_course.grading.tests.test_ttt_mcts import (
    drew_for_the_tree,
    grown_by_its_steps,
    selected_by_ucb1,
    visits_add_up,
)

COLS, ROWS = 7, 6
STRIDE = ROWS + 1  # the library's bitboard: 7 bits a column, the top one always empty
# The four directions of a line as (column step, row step), and the bit shift of each.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
SHIFTS = {(1, 0): STRIDE, (0, 1): 1, (1, 1): STRIDE + 1, (1, -1): STRIDE - 1}


def bits(board: list[list[int]], player: int) -> int:
    """``player``'s discs as the library's bitboard (bit 7 * column + row)."""
    return sum(
        1 << (STRIDE * col + row)
        for col, column in enumerate(board)
        for row, owner in enumerate(column)
        if owner == player
    )


def has_four(board: list[list[int]], player: int) -> bool:
    """Does ``player`` have four in a row on ``board``?  (The library's engine says.)"""
    return four_in_a_row(bits(board, player))


def position_of(board: list[list[int]], player: int) -> ConnectFour:
    """The library's position of ``board`` with ``player`` to move: the grader's judge of a
    tree grown on ``Position(board, player)``, whose states are the student's objects."""
    state = ConnectFour._make((bits(board, 0), bits(board, 1)), player, (0, 0), False)
    state._rederive()  # the outcome from the board itself
    return state


def columns_of(state: ConnectFour) -> list[list[int]]:
    """A library position as the exercise's board: columns listed from the bottom up."""
    rows = state.board()  # top row first, -1 for an empty cell
    return [[rows[r][c] for r in reversed(range(ROWS)) if rows[r][c] >= 0] for c in range(COLS)]


def with_disc(board: list[list[int]], column: int, player: int) -> list[list[int]]:
    """The contract of drop: a new board, ``player``'s disc on top of ``column``."""
    new = [list(c) for c in board]
    new[column].append(player)
    return new


def open_columns(board: list[list[int]]) -> list[int]:
    """The contract of legal_columns: the columns holding fewer than ROWS discs."""
    return [col for col, discs in enumerate(board) if len(discs) < ROWS]


def random_board(rng: random.Random) -> list[list[int]]:
    """Columns of random heights and random discs (not always a reachable position)."""
    return [
        [rng.randrange(2) for _ in range(rng.choice([0, 1, 2, 3, 4, 5, 6, 6]))] for _ in range(COLS)
    ]


def played_board(rng: random.Random) -> list[list[int]]:
    """The board after a random game prefix, as columns listed from the bottom up."""
    state = ConnectFour()
    for _ in range(rng.randint(0, 42)):
        if state.is_terminal():
            break
        state = state.play(rng.choice(state.legal_actions()))
    return columns_of(state)


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
    """How many lines of four ``player`` has per direction (the bitboard's shifts: a line
    starts where the disc and the three after it along the direction are all there)."""
    b, counts = bits(board, player), []
    for direction in DIRECTIONS:
        d = SHIFTS[direction]
        counts.append(bin(b & b >> d & b >> 2 * d & b >> 3 * d).count("1"))
    return counts


def _copies(cases: list) -> list:
    """A deep copy of the arguments for the student's code (which may change what it gets)."""
    return copy.deepcopy(cases)


@pytest.mark.points(
    2, exercise="connect4", hint="a column is legal while it holds fewer than 6 discs"
)
def test_legal_columns(student):
    """legal_columns matches the rules on 500 boards"""
    rng = random.Random(1)
    boards = [random_board(rng) for _ in range(500)]
    wants = [open_columns(board) for board in boards]
    results = student.legal_columns.many(_copies([(b,) for b in boards]))
    for board, want, got in zip(boards, wants, results, strict=True):
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
        legal = open_columns(board)
        if legal:
            cases.append((board, rng.choice(legal), rng.randrange(2)))
    wants = [with_disc(board, col, player) for board, col, player in cases]
    given = _copies(cases)
    results = student.drop.many(given, keep=True)  # its changes, if any
    for (before, col, player), (board, _, _), want, got in zip(
        cases, given, wants, results, strict=True
    ):
        assert board == before, "drop changed the board it was given; return a new one"
        assert isinstance(got, list) and [list(c) for c in got] == want, (
            f"drop(board, {col}, {player}) on\n{show(before)}\ngave {got!r}\nexpected\n{show(want)}"
        )


@pytest.mark.points(
    1, exercise="connect4", hint="raise ValueError for a full column or a column outside 0..6"
)
def test_drop_illegal(student):
    """drop raises ValueError for a full or missing column, and only for those"""
    board = [[0, 1, 0, 1, 0, 1]] + [[] for _ in range(6)]
    for col in (0, 7, -1):
        try:
            student.drop(copy.deepcopy(board), col, 0)
        except ValueError:
            continue
        raise AssertionError(f"drop(board, {col}, 0) should raise ValueError")
    # A drop that refuses every column would pass the loop above: the open columns of the same
    # board must take a disc.
    for col in (1, 6):
        try:
            got = student.drop(copy.deepcopy(board), col, 0)
        except ValueError:
            message = f"drop(board, {col}, 0) raised ValueError, but column {col} is open"
            raise AssertionError(message) from None
        assert isinstance(got, list) and [list(c) for c in got] == with_disc(board, col, 0), (
            f"drop(board, {col}, 0) should add a disc to the open column {col}"
        )


def _broken(rng: random.Random, board: list[list[int]], player: int, dc: int, dr: int):
    """``board`` with one disc of its planted line of ``player`` given to the opponent, or None
    when that leaves ``player`` another line."""
    mine = bits(board, player)
    (col, row), *_ = [
        (c, r)
        for c in range(COLS)
        for r in range(len(board[c]))
        if all(mine >> (STRIDE * (c + k * dc) + r + k * dr) & 1 for k in range(4))
    ]
    k = rng.randrange(4)
    broken = [list(column) for column in board]
    broken[col + k * dc][row + k * dr] = 1 - player
    return None if any(_lines(broken, player)) else broken


def _direction_test(student, dc: int, dr: int, name: str) -> None:
    """Forty boards with one line of four in this direction (is_win must be True for its
    player), the same boards asked about the other player, and the line broken by one disc of
    the other player (False both times): ``return True`` scores nothing."""
    rng = random.Random(100 + 10 * dc + dr)
    cases, wants, why = [], [], []
    for _ in range(40):
        player = rng.randrange(2)
        board = line_board(rng, dc, dr, player)
        cases += [(board, player), (board, 1 - player)]
        wants += [True, False]
        why += [
            f"missed a {name} line of four of player {player}",
            "the line is the other player's",
        ]
        broken = _broken(rng, board, player, dc, dr)
        if broken is not None:
            cases.append((broken, player))
            wants.append(False)
            why.append(f"the {name} line is broken by a disc of the other player")
    results = student.is_win.many(_copies(cases))
    for (board, player), want, reason, got in zip(cases, wants, why, results, strict=True):
        assert isinstance(got, bool) or got in (0, 1), f"is_win returned {got!r}, not a bool"
        assert bool(got) == want, (
            f"is_win(board, {player}) gave {got!r}: {reason}, in\n{show(board)}"
            if want
            else f"is_win(board, {player}) gave {got!r}, but player {player} has no four in a "
            f"row ({reason}) in\n{show(board)}"
        )


@pytest.mark.points(
    1,
    exercise="connect4",
    hint="look along the row, (col + k, row) for k = 0..3, at the player's own discs only",
)
def test_is_win_horizontal(student):
    """is_win finds horizontal lines, and only the player's own"""
    _direction_test(student, 1, 0, "horizontal")


@pytest.mark.points(
    1, exercise="connect4", hint="look up the column, (col, row + k), at the player's own discs"
)
def test_is_win_vertical(student):
    """is_win finds vertical lines, and only the player's own"""
    _direction_test(student, 0, 1, "vertical")


@pytest.mark.points(
    1,
    exercise="connect4",
    hint="look along the rising diagonal, (col + k, row + k), at the player's own discs",
)
def test_is_win_diagonal_up(student):
    """is_win finds rising diagonals (/), and only the player's own"""
    _direction_test(student, 1, 1, "rising diagonal (/)")


@pytest.mark.points(
    1,
    exercise="connect4",
    hint="look along the falling diagonal, (col + k, row - k), at the player's own discs",
)
def test_is_win_diagonal_down(student):
    """is_win finds falling diagonals (\\), and only the player's own"""
    _direction_test(student, 1, -1, "falling diagonal (\\)")


DIRECTION_NAMES = ("horizontal", "vertical", "rising diagonal (/)", "falling diagonal (\\)")


@functools.cache
def _random_win_cases() -> tuple[tuple, tuple[bool, ...]]:
    """600 boards, both players, and the engine's answers (computed once per run; the student
    gets copies, so no submission can change them for the next)."""
    rng = random.Random(3)
    boards = [random_board(rng) if i % 2 else played_board(rng) for i in range(600)]
    cases = tuple((board, player) for board in boards for player in (0, 1))
    return cases, tuple(has_four(board, player) for board, player in cases)


@pytest.mark.points(
    2,
    exercise="connect4",
    hint="True exactly when the player has four of their OWN discs in a line: look from every "
    "disc in all four directions",
)
def test_is_win_random_boards(student):
    """is_win matches the rules on 600 random boards (both players)"""
    cases, wants = _random_win_cases()
    results = student.is_win.many(_copies(list(cases)))
    for (board, player), want, got in zip(cases, wants, results, strict=True):
        if want and not got:
            lines = [
                n for n, count in zip(DIRECTION_NAMES, _lines(board, player), strict=True) if count
            ]
            raise AssertionError(
                f"is_win(board, {player}) gave {got!r}, but player {player} has a "
                f"{' and a '.join(lines)} line of four in\n{show(board)}"
            )
        assert bool(got) == want, (
            f"is_win(board, {player}) gave {got!r}, but player {player} has no four in a row "
            f"in\n{show(board)}"
        )


# -- the player: MCTS on the student's rules --------------------------------------------------
def _column(column) -> str:
    """A column as people number it (1-7), or whatever the student's code returned."""
    return f"column {column + 1}" if isinstance(column, int) else repr(column)


def board_of(moves: str) -> tuple[list[list[int]], int]:
    """The board after ``moves`` (columns 1-7, players alternating from 0) and who moves next."""
    state = ConnectFour()
    for text in moves.split():
        state = state.play(int(text) - 1)
    return columns_of(state), state.current_player


def _choose(student, boards: list[tuple[list[list[int]], int]], iterations: int, seeds) -> list:
    """The columns chosen by fresh players (one per seed) on each (board, player)."""
    return [
        (
            board,
            player,
            seed,
            student.MCTSPlayer(iterations=iterations, seed=seed).select_action(
                copy.deepcopy(board), player
            ),
        )
        for board, player in boards
        for seed in seeds
    ]


# X to move: horizontal win at column 4; O to move: vertical win at column 2; and a board no
# game reaches (O has three discs to X's two, and moves): only a search that runs on the rules
# of the board it is given, not on a game engine replaying moves, plays there.
WINS = [
    (*board_of("1 1 2 2 3 3"), 3),
    (*board_of("1 2 1 2 1 2 7"), 1),
    ([[1, 1, 1], [0], [], [], [], [], [0]], 1, 0),
]


@pytest.mark.points(
    1,
    exercise="connect4",
    timeout=10,
    hint="MCTSPlayer(iterations, c, seed).select_action(board, player) searches from "
    "Position(board, player)",
)
def test_player_takes_the_win(student):
    """the MCTS player completes its own four in a row, as either player, on any board"""
    for board, player, win in WINS:
        assert has_four(with_disc(board, win, player), player)  # the grader's own check
    got = _choose(student, [(b, p) for b, p, _ in WINS], 200, range(2))
    for (board, player, seed, column), (_, _, win) in zip(
        got, [w for w in WINS for _ in range(2)], strict=True
    ):
        assert column == win, (
            f"{'XO'[player]} (player {player}) wins at once with column {win + 1} in\n"
            f"{show(board)}\nMCTSPlayer(iterations=200, seed={seed}) played {_column(column)}"
        )
    assert_searched(student, got, 200)


BLOCKS = [(*board_of("1 7 1 7 2 7"), 6), (*board_of("1 7 2 7 3"), 3)]


@pytest.mark.points(
    1,
    exercise="connect4",
    timeout=16,
    hint="the values in the tree must be from the view of the player who moves into each "
    "node (flip the reward at every level)",
)
def test_player_blocks(student):
    """the MCTS player blocks the opponent's four in a row, as either player"""
    for board, player, block in BLOCKS:  # the opponent would win at `block`
        assert has_four(with_disc(board, block, 1 - player), 1 - player)
    got = _choose(student, [(b, p) for b, p, _ in BLOCKS], 300, range(2))
    for (board, player, seed, column), (_, _, block) in zip(
        got, [b for b in BLOCKS for _ in range(2)], strict=True
    ):
        assert column == block, (
            f"{'XO'[player]} (player {player}) must block column {block + 1} in\n{show(board)}"
            f"\nMCTSPlayer(iterations=300, seed={seed}) played {_column(column)}"
        )
    assert_searched(student, got, 300)


# The player's moves with a given seed are compared with the reference's by the grader's test
# (mcts_grader.tests.test_connect4: boards and seeds drawn for each submission).  Here the
# player must at least search: its moves come from its own mcts_search (red-team 3 attack 04:
# win, block and centre rules with no search took the strength tests' 5 points).
# The move must also be the tree's: the most visited child (ties to the smallest column) of the
# tree the student's own mcts_search grows for that call, a tree whose statistics add up and
# whose generator made its draws (red-team 4: that mcts_search ran said nothing of its tree).
def assert_searched(student, asked: list | None = None, iterations: int = 0) -> None:
    """``asked``: (board, player, seed, column) of fresh players' first moves, each with
    ``iterations``, c = sqrt(2) and ``random.Random(seed)``."""
    assert student.ran("mcts_search"), (
        "MCTSPlayer must choose its moves with your mcts_search (on Position(board, player))"
    )
    for i, (board, player, seed, column) in enumerate(asked or []):
        rng = random.Random(seed)
        position = student.Position(copy.deepcopy(board), player)
        root = student.mcts_search.keeping(position, iterations, math.sqrt(2), 1, rng)
        where = (
            f"your mcts_search(Position(board, {player}), {iterations}, sqrt(2), 1, "
            f"random.Random({seed})) on\n{show(board)}\n"
        )
        assert isinstance(root, Node) and root.children, f"{where}returned {root!r}"
        visits = {a: ch.visits for a, ch in sorted(root.children.items())}
        assert root.visits == iterations == sum(visits.values()), (
            f"{where}gave a root with {root.visits} visits and children {visits}: both must be "
            f"{iterations}, one per iteration"
        )
        most = max(visits, key=lambda a: visits[a])
        assert column == most, (
            f"{where}makes {_column(most)} the most visited move {visits}, but "
            f"MCTSPlayer(iterations={iterations}, seed={seed}) played {_column(column)}: the "
            "player must play best_action(mcts_search(...)) with its own generator"
        )
        drew_for_the_tree(root, seed, rng)
        selected_by_ucb1(root, math.sqrt(2))
        visits_add_up(root, position_of(board, player))  # the grader's engine asks, not theirs
        if i == 0:  # once a test: every step of it is a question
            fresh = student.Position(copy.deepcopy(board), player)
            grown_by_its_steps(student, fresh, iterations, math.sqrt(2), 1, seed, root)


class _Random:
    """The opponent: uniformly random moves among the open columns."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def select_action(self, board: list[list[int]], player: int) -> int:
        return self.rng.choice(open_columns(board))


@pytest.mark.points(
    3, exercise="connect4", timeout=40, hint="MCTS with 100 iterations should beat random play"
)
def test_player_beats_random(student):
    """MCTS(100) wins at least 7 of 8 games against random play (the grader keeps the game, on
    the library's engine)"""
    wins, first = 0, list[tuple[list[list[int]], int, int, int]]()
    for game in range(8):
        me = game % 2
        players = [_Random(game), _Random(game)]
        players[me] = student.MCTSPlayer(iterations=100, seed=game)
        position = ConnectFour()
        while not position.is_terminal():
            mover, board = position.current_player, columns_of(position)
            column = players[mover].select_action(board, mover)
            assert column in position.legal_actions(), (
                f"illegal move {column!r} for {'XO'[mover]} in\n{show(board)}"
            )
            if mover == me and len(first) == game:  # the player's first move of the game
                first.append((board, mover, game, column))
            position = position.play(column)
        wins += position.winner() == me
    assert_searched(student, first[:3], 100)
    assert wins >= 7, f"your MCTS won {wins} of 8 games against random play"
