"""The game protocol shared by Othello, tic-tac-toe and Connect Four.

Every agent in :mod:`mcts_course.agents` talks to a game only through these methods::

    s.current_player      # 0 moves first, then 1
    s.legal_actions()     # sorted list[int]
    s.play(a)             # a NEW state; s is never changed
    s.is_terminal()
    s.returns()           # (r0, r1): +1 win, -1 loss, 0 draw at the end; (0, 0) before it
    s.rollout(rng)        # returns of a uniformly random playout from s
    s.rollout(rng, max_plies=20)   # the same, cut after 20 plies and scored by cutoff_returns()

States are immutable values: hashable, and equal exactly when board and mover are equal, so
they can key a transposition table or an ``functools.lru_cache``.  How a board is stored
(bitboards, masks) is each game module's business and never leaks into the agents.

What differs between games is described by the game class itself, so that no other module
needs to know which game it holds::

    s.PASS                # the pass action (Othello's 64), or None in games without passes
    s.LINE_LENGTH         # how many in a row win (3, 4), or None
    s.DRAWING             # how pictures draw it: "discs", "marks" or "columns"
    s.cell_of(a)          # the (row, col) action a marks; s.action_at(row, col) the inverse
    s.must_pass()         # the player to move has no move but to pass
    s.disc_counts()       # (player 0's, player 1's) pieces when they decide the game, else None
    s.cell_score(p), s.disc_difference(p), s.mobility(p)   # the game's fast evaluations

A fourth game subclasses :class:`GameState`, sets the class constants, and is registered in
:data:`mcts_course.games.GAMES`; agents, arena, pictures and the command line then work as is.
"""

from __future__ import annotations

import operator
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from functools import cache
from typing import ClassVar, SupportsIndex, TypeVar

S = TypeVar("S", bound="GameState")

Returns = tuple[int, int]
WIN_RETURNS: tuple[Returns, Returns] = ((1, -1), (-1, 1))  # player 0 or player 1 has won
DRAW: Returns = (0, 0)
Board = tuple[tuple[int, ...], ...]  # rows of cells: -1 empty, 0 or 1 the owner
Weights = tuple[tuple[int, ...], ...]  # one number per cell, rows like a Board


@cache  # evaluations ask for it at every leaf
def winning_lines_table(rows: int, cols: int, length: int) -> Weights:
    """How many winning lines (rows, columns, diagonals of ``length`` cells) pass through each cell.

    For tic-tac-toe the centre lies on 4 lines, a corner on 3, an edge on 2; for Connect Four this
    gives the well-known table with 13 in the middle columns.
    """
    table = [[0] * cols for _ in range(rows)]
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for row in range(rows):
            for col in range(cols):
                end_row, end_col = row + d_row * (length - 1), col + d_col * (length - 1)
                if 0 <= end_row < rows and 0 <= end_col < cols:
                    for k in range(length):
                        table[row + d_row * k][col + d_col * k] += 1
    return tuple(tuple(row) for row in table)


class IllegalActionError(ValueError):
    """An action that is not legal in this state (or not an action at all)."""


class GameState(ABC):
    """Base class of an immutable game state.  Subclasses set the class constants."""

    __slots__ = ()

    NAME: ClassVar[str]  # "othello", "tictactoe", "connect4": a label, never a switch
    ROWS: ClassVar[int]
    COLS: ClassVar[int]
    NUM_ACTIONS: ClassVar[int]  # actions are 0 .. NUM_ACTIONS - 1
    PLAYER_NAMES: ClassVar[tuple[str, str]]  # e.g. ("Black", "White")
    PASS: ClassVar[int | None] = None  # the pass action, in games where a stuck player passes
    LINE_LENGTH: ClassVar[int | None] = None  # how many in a row win, in games won by a line
    DRAWING: ClassVar[str] = "discs"  # the picture style: "discs", "marks" or "columns"
    # How a state is drawn as PNG in a notebook: set by mcts_course.render when it is imported
    # (the pictures register themselves; the games never import them).
    png_renderer: ClassVar[Callable[[GameState], bytes] | None] = None

    # -- the protocol ------------------------------------------------------------------------
    _player: int  # every game keeps the mover in a slot of this name

    @property
    def current_player(self) -> int:
        """0 or 1: the player to move (meaningless once the game is over)."""
        return self._player

    def _rederive(self) -> None:
        """Check a state rebuilt slot by slot from another process's data (the grader's
        protocol) and recompute from its board what is derived (outcome, cached moves); raise
        ValueError for a state no game reaches.  A game that does not say how is refused."""
        raise ValueError(f"{type(self).__name__} states cannot be rebuilt from data")

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions, sorted; empty exactly when the game is over."""

    @abstractmethod
    def play(self: S, action: int) -> S:
        """The state after ``action``.  Raises :class:`IllegalActionError` if it is illegal."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abstractmethod
    def returns(self) -> Returns:
        """(r0, r1): +1 for a win, -1 for a loss, 0 for a draw; (0, 0) while the game goes on."""

    @abstractmethod
    def rollout(self, rng: random.Random, max_plies: int | None = None) -> Returns:
        """The returns at the end of a uniformly random playout from this state.

        With ``max_plies`` the playout stops after that many plies (a pass is a ply) and an
        unfinished game is scored by :meth:`cutoff_returns`.
        """

    def cutoff_returns(self) -> Returns:
        """The returns of a playout stopped here: :meth:`returns` if the game is over, else the
        game's guess.  By default an unfinished game counts as a draw; Othello counts discs."""
        return self.returns() if self.is_terminal() else (0, 0)

    def _cut_rollout(self, rng: random.Random, max_plies: int) -> Returns:
        """A random playout of at most ``max_plies`` plies through the protocol (the plain way)."""
        state = self
        for _ in range(max_plies):
            actions = state.legal_actions()
            if not actions:
                break
            state = state.play(actions[int(rng.random() * len(actions))])
        return state.cutoff_returns()

    @abstractmethod
    def board(self) -> Board:
        """The board as ROWS tuples of COLS ints: -1 empty, 0 or 1 the owner.

        Row 0 is the row printed on top.  Plain tuples keep the games free of numpy;
        ``numpy.array(state.board())`` gives an array of shape (ROWS, COLS).
        """

    @abstractmethod
    def _key(self) -> tuple[object, ...]:
        """What identifies the state: board and mover."""

    # -- moves as text -----------------------------------------------------------------------
    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """The usual name of an action: "d3" (Othello), "4" (Connect Four), "b2" (tic-tac-toe)."""

    @abstractmethod
    def parse_action(self, text: str) -> int:
        """The action named by ``text`` (the inverse of :meth:`action_to_string`).

        Raises :class:`IllegalActionError` if the text names no action of this game; it does not
        check that the action is legal here.
        """

    # -- shared behaviour --------------------------------------------------------------------
    @classmethod
    def from_moves(cls: type[S], moves: Iterable[int | str] | str = ()) -> S:
        """The state reached from the start by playing ``moves`` (actions or their names).

        A string is split on whitespace and commas, so ``Othello.from_moves("d3 c5 f6")`` works.
        """
        state = cls()
        if isinstance(moves, str):
            moves = moves.replace(",", " ").split()
        for move in moves:
            state = state.play(state.parse_action(move) if isinstance(move, str) else move)
        return state

    def winner(self) -> int | None:
        """0 or 1 for the winner of a finished game, None for a draw or a game still going on."""
        r0, r1 = self.returns()
        if r0 > r1:
            return 0
        if r1 > r0:
            return 1
        return None

    # -- what differs between games ------------------------------------------------------------
    def cell_of(self, action: int) -> tuple[int, int] | None:
        """The (row, col) an action marks on the board, or None (a pass).

        By default action ``row * COLS + col`` marks cell (row, col).
        """
        return divmod(action, self.COLS) if 0 <= action < self.ROWS * self.COLS else None

    def action_at(self, row: int, col: int) -> int | None:
        """The action that marks cell (row, col) (say, for a click there), or None if none
        can; the inverse of :meth:`cell_of`."""
        if 0 <= row < self.ROWS and 0 <= col < self.COLS:
            return row * self.COLS + col
        return None

    def is_pass(self, action: int | None) -> bool:
        """Is ``action`` this game's pass?"""
        return self.PASS is not None and action == self.PASS

    def must_pass(self) -> bool:
        """True when the player to move has no move but to pass (a forced pass)."""
        return self.PASS is not None and self.legal_actions() == [self.PASS]

    def disc_counts(self) -> tuple[int, int] | None:
        """(player 0's pieces, player 1's pieces) in games that the count decides (Othello);
        None in the others."""
        return None

    @classmethod
    def cell_weights(cls) -> Weights:
        """A positional weight per cell: by default the number of winning lines through it
        (games won by a line), else 0 everywhere."""
        if cls.LINE_LENGTH is None:
            return tuple((0,) * cls.COLS for _ in range(cls.ROWS))
        return winning_lines_table(cls.ROWS, cls.COLS, cls.LINE_LENGTH)

    def cell_score(self, player: int) -> float:
        """Sum of :meth:`cell_weights` over ``player``'s cells minus the opponent's cells."""
        score = 0
        for board_row, weight_row in zip(self.board(), self.cell_weights(), strict=True):
            for owner, weight in zip(board_row, weight_row, strict=True):
                if owner >= 0:
                    score += weight if owner == player else -weight
        return float(score)

    def disc_difference(self, player: int) -> int:
        """``player``'s pieces on the board minus the opponent's."""
        cells = [owner for row in self.board() for owner in row]
        return cells.count(player) - cells.count(1 - player)

    def mobility(self, player: int) -> int:
        """``player``'s number of legal moves minus the opponent's, as if each were to move.

        By default 0: in games such as tic-tac-toe and Connect Four both players always have the
        same moves.  Othello overrides it (a forced pass counts as no move).
        """
        return 0

    def _action_index(self, action: object) -> int:
        """``action`` as a plain int: numpy integers and other ``__index__`` types are accepted,
        bools, floats and strings are not (the slow path of :meth:`play`)."""
        if isinstance(action, bool) or not isinstance(action, SupportsIndex):
            raise self._illegal(action)
        return operator.index(action)

    def _illegal(self, action: object) -> IllegalActionError:
        legal = ", ".join(self.action_to_string(a) + f" ({a})" for a in self.legal_actions())
        if self.is_terminal():
            return IllegalActionError(f"{action!r} is not legal: the game is over")
        return IllegalActionError(
            f"{action!r} is not a legal action for {self.PLAYER_NAMES[self.current_player]} "
            f"in {self.NAME}; legal: {legal}"
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\n{self}\n)"

    def _repr_png_(self) -> bytes | None:
        """Shows the state as a picture in a notebook once :mod:`mcts_course.render` is imported
        (None, i.e. the text, before)."""
        renderer = GameState.png_renderer
        return None if renderer is None else renderer(self)


SO = TypeVar("SO", bound="StoredOutcome")


class StoredOutcome(GameState):
    """A state that stores its outcome as it is made (``_returns``, ``_over``): tic-tac-toe and
    Connect Four.  The outcome methods and the start of every playout are written here once;
    the subclass writes the fast inner loop, :meth:`_playout`, and :meth:`_who`."""

    __slots__ = ()
    _player: int
    _returns: Returns
    _over: bool

    @classmethod
    def _blank(cls: type[SO], player: int, returns: Returns, over: bool) -> SO:
        """A new state with its outcome set and its board still to set (by ``_make``)."""
        state = object.__new__(cls)  # skips __init__: play() is on the hot path of every search
        state._player = player
        state._returns = returns
        state._over = over
        return state

    @staticmethod
    def _outcome(first_won: bool, second_won: bool, full: bool) -> tuple[Returns, bool]:
        """The returns and whether the game is over, from the board's own lines
        (:meth:`_rederive`): a win, else a draw once the board is full, else play goes on."""
        if first_won or second_won:
            return WIN_RETURNS[0 if first_won else 1], True
        return DRAW, full

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> Returns:
        return self._returns

    def rollout(self, rng: random.Random, max_plies: int | None = None) -> Returns:
        if max_plies is not None:
            return self._cut_rollout(rng, max_plies)
        return self._returns if self._over else self._playout(rng)

    @abstractmethod
    def _playout(self, rng: random.Random) -> Returns:
        """Uniformly random moves from this unfinished state to the end; the returns there."""

    @abstractmethod
    def _who(self, player: int) -> str:
        """How the last line of the text board names ``player``."""

    def _checked_action(self, action: int, count: int, what: str) -> int:
        """``action`` as an int in ``range(count)``, else an error that says it is not ``what``."""
        if isinstance(action, bool) or not hasattr(type(action), "__index__"):
            raise IllegalActionError(f"{action!r} is not {what} (0..{count - 1})")
        if not 0 <= action < count:
            raise IllegalActionError(f"{action!r} is not {what} (0..{count - 1})")
        return int(action)

    def _status(self) -> str:
        """The last line of the text board: who won, a draw, or who is to move."""
        if self._over:
            winner = self.winner()
            return "draw" if winner is None else f"{self._who(winner)} wins"
        return f"{self._who(self.current_player)} to move"


def random_position(game: type[GameState], plies: int, rng: random.Random) -> GameState | None:
    """The position after ``plies`` random moves, or None if the game ended before."""
    state = game()
    for _ in range(plies):
        if state.is_terminal():
            return None
        state = state.play(rng.choice(state.legal_actions()))
    return None if state.is_terminal() else state
