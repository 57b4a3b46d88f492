"""Red team round 27: a game state rebuilt from a student's data kept the student's outcome and
cached moves: tic-tac-toe children marked finished with returns (0, 0) forged a tree the checks
believed (02, 03), and an Othello state with a move mask of -1 sent the grader's own engine into
an endless loop (01, 05).  The board's slots are checked and the rest is recomputed.  The tree
checks asked the student's own Connect Four states whether their game was over (04): the
grader's engine now judges every node, on the position its moves make."""

from __future__ import annotations

import pytest
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.grading.protocol import ProtocolError, _slots, make_state
from mcts_course.grading.public import Node
from mcts_course.grading.tests.test_ttt_mcts import visits_add_up


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


# -- 04: the tree checks asked the student's own states whether their game was over ------------
FORGED_LEAVES = '''

class Done(Position):
    """A leaf that says its game is over, with the returns the forged tree needs."""

    def __init__(self, board, current_player, ret):
        self.board, self.current_player, self._ret, self.winner = board, current_player, ret, None

    def is_terminal(self):
        return True

    def legal_actions(self):
        return []

    def returns(self):
        return self._ret


def _rule(board, me):
    cols = legal_columns(board)
    for who in (me, 1 - me):  # win, else block, else the centre
        for c in cols:
            if is_win(drop(board, c, who), who):
                return c
    return min(cols, key=lambda c: (abs(c - 3), c))


def mcts_search(state, iterations, c=math.sqrt(2), expand_threshold=1, rng=None):
    """No search: a rule picks the move; each other child is a 2-visit "draw" leaf."""
    root, me = Node(state), state.current_player
    acts, target = list(state.legal_actions()), _rule(state.board, me)
    for a in acts:
        won = a == target
        ret = ((1, -1) if me == 0 else (-1, 1)) if won else (0, 0)
        child = Node(Done(drop(state.board, a, me), 1 - me, ret), parent=root, action=a)
        child.visits = iterations - 2 * (len(acts) - 1) if won else 2
        child.wins = child.visits if won else 1.0
        root.children[a] = child
    root.untried, root.visits, root.wins = [], iterations, iterations / 2
    for _ in acts:
        rng.getrandbits(32)
    return root
'''


def test_04_connect_four_leaves_are_judged_by_the_grader_engine(tmp_path):
    """A win/block/centre rule in a one-level tree of leaves that say "over" took the MCTS
    player's 2 points here (and 3 more against random play); the leaves are now judged by the
    library's engine on the boards the tree's moves make."""
    code = (SOLUTIONS / "connect4.py").read_text() + FORGED_LEAVES
    options = ("--exercise-set=connect4", "-k", "takes or blocks")
    data = graded_file(tmp_path, "forger", "connect4.py", code, *options)
    asked = [t for t in data["tests"] if "completes its own" in t["name"] or "blocks" in t["name"]]
    assert len(asked) == 2 and all(t["score"] == 0 for t in asked), asked
    assert any("visits whose children have 0 in all" in t["output"] for t in asked), asked


def test_04_a_tic_tac_toe_child_is_the_move_played_whatever_state_it_holds():
    """The judge plays each child's move on its parent's position: a child holding a finished
    draw, for a move that finishes nothing, is a node that should have children."""
    root_state = TicTacToe.from_moves("b2 a1")
    drawn = TicTacToe.from_moves("a1 b2 c3 a2 c2 c1 a3 b3 b1")
    assert drawn.is_terminal() and drawn.returns() == (0, 0)
    root = Node(root_state)
    child = Node(drawn, root, 2)  # c1, which finishes nothing
    child.visits, child.wins = 2, 1.0
    root.children[child.action] = child
    root.visits = 2
    with pytest.raises(AssertionError, match="every visit after the first"):
        visits_add_up(root, root_state)
    root.children = {9: child}  # no such move
    child.action = 9
    with pytest.raises(AssertionError, match="not a legal move"):
        visits_add_up(root, root_state)
