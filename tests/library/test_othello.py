"""Othello: move generation against published perft counts, the rules of passing and game end,
transcripts, the protocol's contract, and the random playouts' distribution."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest

from mcts_course.games import PASS, IllegalActionError, Othello
from mcts_course.games.othello import move_mask, squares
from mcts_course.games.othello_batch import flipped_discs, legal_moves, random_set_bit
from mcts_course.games.perft import perft

# Aart Bik's published Othello perft counts (a pass is a ply; an early end is one leaf).
PERFT = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]


def sq(name: str) -> int:
    return Othello().parse_action(name)


def bits(*names: str) -> int:
    return sum(1 << sq(n) for n in names)


def random_positions(count: int, seed: int) -> list[Othello]:
    """Positions met along seeded random games, terminal ones included."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = Othello()
        while True:
            positions.append(state)
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
    return positions[:count]


@pytest.mark.parametrize("depth", range(0, 8))
def test_perft_matches_published_counts(depth):
    assert perft(Othello(), depth) == PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [8, 9])
def test_perft_deep(depth):
    assert perft(Othello(), depth) == PERFT[depth]


def test_cli_perft_prints_the_count():
    out = subprocess.run(
        [sys.executable, "-m", "mcts_course", "perft", "othello", "8"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "390216"


def test_start_position_and_encoding():
    s = Othello()
    assert s.current_player == 0
    assert s.black == bits("d5", "e4") and s.white == bits("d4", "e5")
    assert sq("a1") == 0 and sq("d3") == 19 and sq("h8") == 63
    assert s.action_to_string(19) == "d3" and s.action_to_string(PASS) == "pass"
    assert s.legal_actions() == [sq("d3"), sq("c4"), sq("f5"), sq("e6")]
    board = np.array(s.board())
    assert board.shape == (8, 8) and board[3, 3] == 1 and board[3, 4] == 0 and board[0, 0] == -1
    assert str(s).splitlines()[0].split() == list("abcdefgh")


def test_a_move_flips_the_flanked_disc():
    s = Othello().play(sq("d3"))
    assert s.black == bits("d3", "d4", "d5", "e4") and s.white == bits("e5")
    assert s.current_player == 1
    assert s.legal_actions() == [sq("c3"), sq("e3"), sq("c5")]


def test_shortest_game_wipes_out_white():
    # The known shortest Othello game: nine moves, Black ends with 13 discs and White with none.
    s = Othello.from_moves("e6 f4 e3 f6 g5 d6 e7 f5 c5")
    assert s.is_terminal() and s.legal_actions() == []
    assert s.disc_counts() == (13, 0)
    assert s.returns() == (1, -1) and s.winner() == 0


def test_pass_is_the_only_move_when_stuck_and_the_game_goes_on():
    # White a1, Black b1: Black cannot flank anything, White can play c1.
    s = Othello(black=bits("b1"), white=bits("a1"), player=0)
    assert not s.is_terminal() and s.legal_actions() == [PASS] and s.returns() == (0, 0)
    after = s.play(PASS)
    assert after.current_player == 1 and after.black == s.black and after.white == s.white
    assert after.legal_actions() == [sq("c1")]
    end = after.play(sq("c1"))  # Black is wiped out
    assert end.is_terminal() and end.returns() == (-1, 1) and end.disc_counts() == (0, 3)


def test_pass_is_illegal_when_a_move_exists():
    with pytest.raises(IllegalActionError):
        Othello().play(PASS)


def test_both_players_stuck_ends_the_game_before_the_board_is_full():
    s = Othello(black=bits("a1"), white=bits("h8"), player=0)
    assert s.is_terminal() and s.legal_actions() == [] and s.returns() == (0, 0)
    s = Othello(black=bits("a1", "a2"), white=bits("h8"), player=1)
    assert s.is_terminal() and s.returns() == (1, -1)


def test_full_board_ends_the_game():
    black = (1 << 33) - 1  # squares 0..32
    s = Othello(black=black, white=((1 << 64) - 1) ^ black, player=0)
    assert s.is_terminal() and s.returns() == (1, -1)


def test_random_games_end_by_the_rules():
    for state in random_positions(3000, seed=1):
        moves = move_mask(state._mover, state._opponent)
        if state.is_terminal():
            assert moves == 0 and move_mask(state._opponent, state._mover) == 0
            b, w = state.disc_counts()
            assert state.returns() == ((b > w) - (b < w), (w > b) - (w < b))
        elif moves == 0:
            assert state.legal_actions() == [PASS]


def test_illegal_actions_raise_and_change_nothing():
    s = Othello()
    before = (s.black, s.white, s.current_player)
    for bad in [0, 64, 65, -1, 27, "d3", 19.0, True, None]:
        with pytest.raises(IllegalActionError) as error:
            s.play(bad)
        assert isinstance(error.value, ValueError)
        assert repr(bad) in str(error.value)
    legal = r"legal: d3 \(19\), c4 \(26\), f5 \(37\), e6 \(44\)"
    with pytest.raises(IllegalActionError, match=legal):
        s.play(0)
    assert (s.black, s.white, s.current_player) == before
    assert s.play(np.int64(19)) == s.play(19)
    end = Othello.from_moves("e6 f4 e3 f6 g5 d6 e7 f5 c5")
    with pytest.raises(IllegalActionError, match="game is over"):
        end.play(PASS)


def test_parse_action_rejects_non_moves():
    for text in ["i1", "a9", "", "d", "19"]:
        with pytest.raises(IllegalActionError):
            Othello().parse_action(text)
    assert Othello().parse_action(" D3 ") == 19 and Othello().parse_action("pass") == PASS


def test_states_are_values():
    # Two move orders reaching the same position: equal, same hash, one dictionary key.
    a = Othello.from_moves("d3 c5 f6 f5 e6 e3")
    c = Othello(black=a.black, white=a.white, player=a.current_player)
    assert a == c and hash(a) == hash(c) and len({a, c}) == 1
    assert a != Othello(black=a.black, white=a.white, player=1 - a.current_player)
    assert a != Othello.from_moves("d3 c5 f6 f5 e6")

    @lru_cache(maxsize=100_000)
    def count(state: Othello) -> int:
        return len(state.legal_actions())

    assert count(a) == count(c) and count.cache_info().hits == 1


def test_transpositions_exist_in_the_tree():
    # Perft counts paths; fewer distinct states lie at depth 4, so some are reached twice.
    level = {Othello()}
    for _ in range(4):
        level = {s.play(a) for s in level for a in s.legal_actions()}
    assert len(level) < perft(Othello(), 4)


def exact_outcome_probabilities(state: Othello) -> dict[int, float]:
    """P(Black wins / draw / White wins) under uniformly random play, by exhaustive search."""

    @lru_cache(maxsize=100_000)
    def probabilities(s: Othello) -> tuple[float, float, float]:
        if s.is_terminal():
            r = s.returns()[0]
            return (float(r == 1), float(r == 0), float(r == -1))
        children = [probabilities(s.play(a)) for a in s.legal_actions()]
        return tuple(sum(c[i] for c in children) / len(children) for i in range(3))

    p = probabilities(state)
    return {1: p[0], 0: p[1], -1: p[2]}


def near_end_position() -> Othello:
    rng = random.Random(7)
    s = Othello()
    while bin(s.black | s.white).count("1") < 55:
        s = s.play(rng.choice(s.legal_actions()))
    return s


def assert_frequencies(outcomes: list[int], exact: dict[int, float]) -> None:
    n = len(outcomes)
    for value, p in exact.items():
        observed = outcomes.count(value) / n
        tolerance = 4.5 * max((p * (1 - p) / n) ** 0.5, 1e-3)
        assert abs(observed - p) <= tolerance, (value, observed, p)


def test_rollout_plays_uniformly_random_moves():
    s = near_end_position()
    exact = exact_outcome_probabilities(s)
    assert 0.05 < max(exact.values()) < 0.95  # a position whose outcome depends on the moves
    rng = random.Random(3)
    assert_frequencies([s.rollout(rng)[0] for _ in range(20000)], exact)


def test_batched_rollouts_play_uniformly_random_moves():
    s = near_end_position()
    outcomes = s.rollouts(20000, seed=5)
    assert outcomes.shape == (20000,) and set(np.unique(outcomes)) <= {-1, 0, 1}
    assert_frequencies(outcomes.tolist(), exact_outcome_probabilities(s))


def test_single_and_batched_rollouts_agree_from_the_start():
    n = 6000
    single = np.array([Othello().rollout(random.Random(i))[0] for i in range(n)])
    batched = Othello().rollouts(n, seed=11)
    for value in (1, -1):
        p1, p2 = (single == value).mean(), (batched == value).mean()
        assert abs(p1 - p2) < 4.5 * ((p1 * (1 - p1) + p2 * (1 - p2)) / n) ** 0.5


def test_cut_rollouts_stop_after_max_plies_and_count_discs():
    rng = random.Random(0)
    # After one ply Black always has 4 discs to 1; after two, 3 to 3.
    assert {Othello().rollout(rng, max_plies=1) for _ in range(50)} == {(1, -1)}
    assert {Othello().rollout(rng, max_plies=2) for _ in range(50)} == {(0, 0)}
    assert Othello.from_moves("d3").rollout(rng, max_plies=0) == (1, -1)
    end = Othello.from_moves("e6 f4 e3 f6 g5 d6 e7 f5 c5")
    assert end.rollout(rng, max_plies=5) == end.returns()


def test_fast_cut_rollouts_match_the_plain_protocol_playout():
    # The bitboard playout and the base class's play()-by-play() one agree in distribution.
    n, s = 6000, Othello.from_moves("d3 c5 f6")
    fast = np.array([s.rollout(random.Random(i), max_plies=20)[0] for i in range(n)])
    plain = np.array([s._cut_rollout(random.Random(n + i), 20)[0] for i in range(n)])
    for value in (1, -1):
        p1, p2 = (fast == value).mean(), (plain == value).mean()
        assert abs(p1 - p2) < 4.5 * ((p1 * (1 - p1) + p2 * (1 - p2)) / n) ** 0.5


def test_batched_rollouts_are_seeded_and_handle_the_end():
    s = Othello.from_moves("d3 c5")
    assert np.array_equal(s.rollouts(500, seed=1), s.rollouts(500, seed=1))
    end = Othello.from_moves("e6 f4 e3 f6 g5 d6 e7 f5 c5")
    assert end.rollouts(10).tolist() == [1] * 10
    assert Othello().rollouts(0).shape == (0,)
    assert Othello(black=bits("b1"), white=bits("a1")).rollouts(5).tolist() == [-1] * 5


def test_batch_move_generation_and_flips_match_the_scalar_engine():
    positions = [s for s in random_positions(800, seed=2) if not s.is_terminal()]
    mover = np.array([s._mover for s in positions], dtype=np.uint64)
    opponent = np.array([s._opponent for s in positions], dtype=np.uint64)
    moves = legal_moves(mover, opponent)
    assert [int(m) for m in moves] == [move_mask(s._mover, s._opponent) for s in positions]
    chosen = random_set_bit(moves, np.random.default_rng(0).random(len(positions)))
    flipped = flipped_discs(chosen, mover, opponent)
    for s, bit, f in zip(positions, chosen, flipped, strict=True):
        bit = int(bit)
        if bit == 0:
            assert s.legal_actions() == [PASS] and int(f) == 0
            continue
        assert bit & move_mask(s._mover, s._opponent)
        after = s.play(bit.bit_length() - 1)
        assert int(f) == (after._opponent ^ s._mover ^ bit)


def test_random_set_bit_is_uniform_over_the_set_bits():
    mask = np.uint64((1 << 3) | (1 << 17) | (1 << 40) | (1 << 63))
    picks = random_set_bit(np.full(40000, mask), np.random.default_rng(1).random(40000))
    values, counts = np.unique(picks, return_counts=True)
    assert sorted(int(v).bit_length() - 1 for v in values) == [3, 17, 40, 63]
    assert all(abs(c / 40000 - 0.25) < 0.015 for c in counts)


def test_squares_lists_the_bits():
    assert squares(bits("a1", "d3", "h8")) == [0, 19, 63]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"black": -1, "white": 0}, "64-bit bitboard"),
        ({"black": 1 << 64, "white": 0}, "64-bit bitboard"),
        ({"black": 1.0, "white": 2}, "64-bit bitboard"),
        ({"black": bits("d4", "e4"), "white": bits("e4")}, "overlap on e4"),
        ({"black": bits("d4"), "white": None}, "white must be"),
        ({"black": bits("d4"), "white": bits("e5"), "player": 2}, "player must be 0 or 1"),
    ],
)
def test_invalid_positions_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Othello(**kwargs)
