"""Play a game against an agent in the terminal.

`mcts-course play GAME --opponent SPEC`: play against an agent in the terminal.

Play GAME against an agent. Type a move as the board names it: d3 in Othello, a column 1-7 in
Connect Four, b2 in tic-tac-toe; 'moves' lists your legal moves, 'quit' (or end of input) stops. In
Othello a forced pass is played for you.
"""

from __future__ import annotations

import argparse
import sys

from mcts_course.commands import add_game, subcommand
from mcts_course.errors import UsageError
from mcts_course.games import GAMES, GameState, IllegalActionError

_QUIT = ("quit", "exit", "q")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommand(subparsers, run)
    add_game(parser)
    parser.add_argument(
        "--opponent",
        default="mcts:iterations=500",
        metavar="SPEC",
        help="agent spec of your opponent (mcts:iterations=500)",
    )
    parser.add_argument(
        "--first", choices=["human", "agent"], default="human", help="who moves first (human)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent")
    parser.add_argument(
        "--start",
        default="",
        metavar="MOVES",
        help='moves played before the game starts, e.g. "d3 c5"',
    )


def _read(prompt: str) -> str | None:
    """A line typed by the human; None at the end of the input."""
    try:
        line = input(prompt)
    except EOFError:
        print()
        return None
    if not sys.stdin.isatty():  # echo piped input so a transcript reads like a session
        print(line)
    return line.strip()


def _human_move(state: GameState) -> int | None:
    """Ask until the human types a legal move; None if they quit."""
    who = state.PLAYER_NAMES[state.current_player]
    while True:
        example = state.action_to_string(state.legal_actions()[0])  # a legal move, as typed
        text = _read(f"{who}, your move (e.g. {example}): ")
        if text is None or text.lower() in _QUIT:
            return None
        legal = [state.action_to_string(a) for a in state.legal_actions()]
        if text.lower() in ("moves", "help", "?"):
            print("legal moves:", " ".join(legal))
            continue
        try:
            action = state.parse_action(text)
        except IllegalActionError as error:  # not a move at all
            print(f"  {error}")
            continue
        if action not in state.legal_actions():
            print(f"  {text} is not a legal move here; legal moves: {' '.join(legal)}")
            continue
        return action


def _result(state: GameState, human: int) -> str:
    winner = state.winner()
    if winner is None:
        return "Draw."
    return "You win!" if winner == human else "You lose."


def run(args: argparse.Namespace) -> int:
    from mcts_course.agents import make_agent

    try:
        agent = make_agent(args.opponent, game=args.game)
    except ValueError as error:
        raise UsageError(str(error)) from None
    game = GAMES[args.game]
    try:
        state = game.from_moves(args.start)
    except IllegalActionError as error:
        raise UsageError(f"bad --start: {error}") from None
    agent.seed(args.seed)
    agent.reset()
    human = state.current_player if args.first == "human" else 1 - state.current_player
    names = state.PLAYER_NAMES
    print(
        f"You are {names[human]}, {agent.name} is {names[1 - human]}. "
        "Type 'moves' for your legal moves, 'quit' to stop."
    )
    while not state.is_terminal():
        print(state)
        if state.current_player == human:
            if state.must_pass():  # Othello: no move but to pass
                print(f"{names[human]} has no legal move and must pass.")
                state = state.play(state.legal_actions()[0])
                continue
            action = _human_move(state)
            if action is None:
                print("Game abandoned.")
                return 0
        else:
            action = agent.select_action(state)
            print(f"{agent.name} ({names[1 - human]}) plays {state.action_to_string(action)}")
        state = state.play(action)
    print(state)
    print(_result(state, human))
    return 0
