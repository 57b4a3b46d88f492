"""The game protocol, checked the same way for every game (the tests' fourth game included).

Each game's own rules (flips, gravity, lines, perft counts) are tested in its own file; what
every game promises through :class:`~mcts_course.games.base.GameState` is tested here once.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from helpers import TicTacToe4, all_games, random_state

from mcts_course.games import ConnectFour, IllegalActionError, Othello, TicTacToe

GAMES = all_games()
ids = [game.NAME for game in GAMES]

# Two move orders reaching the same position, per game (transpositions are equal states).
TRANSPOSITIONS = {
    TicTacToe: ("a1 b2 c3", "c3 b2 a1"),
    ConnectFour: ("1 2 3 4", "3 4 1 2"),
    Othello: ("d3 c3 c4 e3", "c4 c3 d3 e3"),
    TicTacToe4: ("a1 b2 c3", "c3 b2 a1"),
}


def states(game, count=12, seed=0):
    """Positions along seeded random games, start and finished ones included."""
    rng = random.Random(seed)
    found = [game()]
    while len(found) < count:
        found.append(random_state(game, rng, rng.randrange(0, 70)))
    return found


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_class_constants_describe_the_game(game):
    assert game.NAME and len(game.PLAYER_NAMES) == 2
    assert game.ROWS >= 1 and game.COLS >= 1 and game.NUM_ACTIONS >= 1
    assert game.PASS is None or game.PASS < game.NUM_ACTIONS
    assert game.LINE_LENGTH is None or 2 <= game.LINE_LENGTH <= max(game.ROWS, game.COLS)
    weights = game.cell_weights()
    assert len(weights) == game.ROWS and all(len(row) == game.COLS for row in weights)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_legal_actions_terminal_and_returns_agree(game):
    for state in states(game):
        actions = state.legal_actions()
        assert actions == sorted(set(actions))
        assert all(0 <= a < game.NUM_ACTIONS for a in actions)
        assert state.is_terminal() == (actions == [])
        r0, r1 = state.returns()
        if state.is_terminal():
            assert r0 == -r1 and r0 in (-1, 0, 1)
            assert state.winner() == (0 if r0 > 0 else 1 if r1 > 0 else None)
        else:
            assert (r0, r1) == (0, 0) and state.winner() is None
        assert state.current_player in (0, 1)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_board_cells_and_passes(game):
    for state in states(game):
        board = state.board()
        assert len(board) == game.ROWS and all(len(row) == game.COLS for row in board)
        assert {owner for row in board for owner in row} <= {-1, 0, 1}
        for action in state.legal_actions():
            cell = state.cell_of(action)
            assert (cell is None) == state.is_pass(action)
            if cell is not None:
                assert board[cell[0]][cell[1]] == -1  # a move goes on an empty cell
                assert state.action_at(*cell) == action  # and a click there plays it
        assert state.must_pass() == (game.PASS is not None and state.legal_actions() == [game.PASS])
        assert state.action_at(-1, 0) is None and state.action_at(0, game.COLS) is None


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_evaluations_are_zero_sum(game):
    for state in states(game):
        for evaluation in ("cell_score", "disc_difference", "mobility"):
            mine, theirs = (getattr(state, evaluation)(p) for p in (0, 1))
            assert mine == -theirs, evaluation
        board = [owner for row in state.board() for owner in row]
        assert state.disc_difference(0) == board.count(0) - board.count(1)
        counts = state.disc_counts()
        assert counts is None or counts == (board.count(0), board.count(1))


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_action_names_round_trip_and_from_moves_forms_agree(game):
    rng = random.Random(1)
    state, actions = game(), []
    for _ in range(6):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        name = state.action_to_string(action)
        assert state.parse_action(name) == action
        assert state.parse_action(f" {name.upper()} ") == action
        actions.append(action)
        state = state.play(action)
    names = [game().action_to_string(a) for a in actions]
    assert game.from_moves(" ".join(names)) == state
    assert game.from_moves(", ".join(names)) == state
    assert game.from_moves(names) == game.from_moves(actions) == state
    with pytest.raises(IllegalActionError):
        game().parse_action("zz9")


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_bad_actions_raise_and_change_nothing(game):
    state = game().play(game().legal_actions()[0])
    legal = state.legal_actions()
    name = state.action_to_string(legal[0])
    illegal = [a for a in range(game.NUM_ACTIONS) if a not in legal][:3]  # taken, full, ...
    before = (str(state), hash(state), state.legal_actions())
    for bad in [
        -1,
        game.NUM_ACTIONS,
        *illegal,
        name,
        float(legal[0]),
        True,
        None,
        np.float64(legal[0]),
    ]:
        with pytest.raises(IllegalActionError) as info:
            state.play(bad)
        assert isinstance(info.value, ValueError)
        message = str(info.value)
        assert repr(bad) in message
        assert f"{name} ({legal[0]})" in message  # the legal actions are named
    assert (str(state), hash(state), state.legal_actions()) == before
    finished = next(s for s in states(game, 40) if s.is_terminal())
    with pytest.raises(IllegalActionError, match="over"):
        finished.play(0)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_numpy_integers_are_actions(game):
    action = game().legal_actions()[-1]
    for kind in (np.int64, np.int8, np.uint8):
        assert game().play(kind(action)) == game().play(action)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_states_are_immutable_values(game):
    start = game()
    action = start.legal_actions()[0]
    after = start.play(action)
    assert after is not start and after != start
    assert start == game() and start.legal_actions() == game().legal_actions()
    assert start.current_player == 0
    with pytest.raises(AttributeError):
        start.colour = 1  # __slots__: no stray attributes
    first, second = (game.from_moves(moves) for moves in TRANSPOSITIONS[game])
    assert first == second and hash(first) == hash(second) and len({first, second}) == 1
    assert first != start and first != " ".join(TRANSPOSITIONS[game])
    assert pickle.loads(pickle.dumps(first)) == first


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_rollouts_are_seeded_finish_the_game_and_leave_the_state_alone(game):
    for state in states(game, 6, seed=2):
        before = (state, str(state))
        results = [state.rollout(random.Random(seed)) for seed in range(20)]
        assert results == [state.rollout(random.Random(seed)) for seed in range(20)]
        assert all(r[0] == -r[1] and r[0] in (-1, 0, 1) for r in results)
        assert (state, str(state)) == before
        if state.is_terminal():
            assert set(results) == {state.returns()}
        assert state.rollout(random.Random(0), max_plies=0) == state.cutoff_returns()
