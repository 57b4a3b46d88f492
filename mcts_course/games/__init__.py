"""The three games of the course, behind one protocol (see :mod:`mcts_course.games.base`).

A fourth game is one module with a :class:`GameState` subclass and an entry in :data:`GAMES`.
"""

from mcts_course.games.base import GameState, IllegalActionError
from mcts_course.games.connect4 import ConnectFour
from mcts_course.games.othello import PASS, Othello
from mcts_course.games.tictactoe import TicTacToe

GAMES: dict[str, type[GameState]] = {
    "othello": Othello,
    "tictactoe": TicTacToe,
    "connect4": ConnectFour,
}


def game_class(name: str) -> type[GameState]:
    """The game class called ``name`` (one of :data:`GAMES`)."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None


def start_state(game: str | type[GameState] | GameState) -> GameState:
    """The state a game starts from: a state as it is, a class's start position, or a name's."""
    if isinstance(game, GameState):
        return game
    return (game_class(game) if isinstance(game, str) else game)()


__all__ = [
    "GAMES",
    "PASS",
    "ConnectFour",
    "GameState",
    "IllegalActionError",
    "Othello",
    "TicTacToe",
    "game_class",
    "start_state",
]
