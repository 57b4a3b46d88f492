"""Red team round 27: a game state rebuilt from a student's data kept the student's outcome and
cached moves: tic-tac-toe children marked finished with returns (0, 0) forged a tree the checks
believed (02, 03), and an Othello state with a move mask of -1 sent the grader's own engine into
an endless loop (01, 05).  The board's slots are checked and the rest is recomputed."""

from __future__ import annotations

import pytest

from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.grading.protocol import ProtocolError, _slots, make_state


def _wire(value):
    """A slot value as the protocol sends it (a tuple as {"$t": [...]})."""
    return {"$t": [_wire(v) for v in value]} if isinstance(value, tuple) else value


def _values(state) -> list:
    return [_wire(getattr(state, slot)) for slot in _slots(type(state))]


def _forged(state, **slots) -> list:
    names = _slots(type(state))
    values = _values(state)
    for name, value in slots.items():
        values[names.index(name)] = _wire(value)
    return values


def test_a_tic_tac_toe_outcome_comes_from_the_board():
    state = TicTacToe.from_moves("b2 a1")
    rebuilt = make_state("tictactoe", _forged(state, _over=True, _returns=(0, 0)))
    assert not rebuilt.is_terminal() and rebuilt.legal_actions() == state.legal_actions()
    won = TicTacToe.from_moves("a1 b1 a2 b2 a3")
    rebuilt = make_state("tictactoe", _forged(won, _over=False, _returns=(0, 0)))
    assert rebuilt.is_terminal() and rebuilt.returns() == won.returns()
    with pytest.raises(ProtocolError):
        make_state("tictactoe", _forged(state, _x=1 << 12))
    with pytest.raises(ProtocolError):
        make_state("tictactoe", _forged(state, _x=1, _o=1))


def test_a_connect_four_outcome_comes_from_the_board():
    state = ConnectFour.from_moves("4 4 3")
    rebuilt = make_state("connect4", _forged(state, _over=True, _returns=(1, -1)))
    assert not rebuilt.is_terminal() and rebuilt.legal_actions() == state.legal_actions()
    with pytest.raises(ProtocolError):
        make_state("connect4", _forged(state, _discs=(-1, 0)))


def test_an_othello_move_mask_is_never_taken_from_the_data():
    state = Othello()
    rebuilt = make_state("othello", _forged(state, _moves=-1, _over=True))
    assert rebuilt.legal_actions() == state.legal_actions() and not rebuilt.is_terminal()
    with pytest.raises(ProtocolError):
        make_state("othello", _forged(state, _mover=-1))
