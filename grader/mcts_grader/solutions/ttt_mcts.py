"""Reference solution: Monte Carlo Tree Search on tic-tac-toe (exercises 1 to 4)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from mcts_course.games import TicTacToe
from mcts_course.games.base import GameState, Returns
from mcts_course.given import Node, reward


# -- exercise 1: selection and simulation -------------------------------------------------------
def ucb1(wins: float, visits: int, parent_visits: int, c: float = math.sqrt(2)) -> float:
    """UCB1 score of a child: mean reward plus exploration bonus; inf when never visited."""
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def select_child(node: Node, c: float) -> Node:
    """The child with the highest UCB1 score; ties go to the smallest action."""
    action = max(
        sorted(node.children),
        key=lambda a: ucb1(node.children[a].wins, node.children[a].visits, node.visits, c),
    )
    return node.children[action]


def simulate(state: GameState, rng: random.Random) -> Returns:
    """Play uniformly random moves (``rng.choice`` of the legal actions) to the end."""
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()


# -- exercise 2: backpropagation and the search loop --------------------------------------------
def backpropagate(path: Sequence[Node], returns: Returns) -> None:
    """Add one visit and the reward seen by each node's player to every node on the path."""
    for node in path:
        node.visits += 1
        node.wins += reward(returns, node.player)


def expand(node: Node, rng: random.Random) -> Node:
    """Add the child of one untried action, ``rng.choice(node.untried)``, and return it."""
    action = rng.choice(node.untried)
    node.untried.remove(action)
    child = Node(node.state.play(action), parent=node, action=action)
    node.children[action] = child
    return child


def mcts_search(
    state: GameState,
    iterations: int,
    c: float = math.sqrt(2),
    expand_threshold: int = 1,
    rng: random.Random | None = None,
) -> Node:
    """Run ``iterations`` rounds of select, expand, simulate, backpropagate; return the root."""
    rng = rng or random.Random()
    root = Node(state)
    for _ in range(iterations):
        node, path = root, [root]
        while not node.untried and node.children:  # fully expanded: descend by UCB1
            node = select_child(node, c)
            path.append(node)
        if node.untried and (node is root or node.visits >= expand_threshold):
            node = expand(node, rng)
            path.append(node)
        backpropagate(path, simulate(node.state, rng))
    return root


def best_action(root: Node) -> int:
    """The most visited child's action (the robust child); ties go to the smallest action."""
    return max(sorted(root.children), key=lambda a: root.children[a].visits)


# -- exercise 3: experiments -------------------------------------------------------------------
def experiment(
    state: GameState,
    iterations: Sequence[int] = (10, 30, 100, 300, 1000),
    cs: Sequence[float] = (math.sqrt(2),),
    thresholds: Sequence[int] = (1,),
    seeds: Sequence[int] = range(5),
) -> list[dict]:
    """One row per (iterations, c, threshold, seed): the chosen move and its value."""
    rows = []
    for n in iterations:
        for c in cs:
            for threshold in thresholds:
                for seed in seeds:
                    root = mcts_search(state, n, c, threshold, random.Random(seed))
                    action = best_action(root)
                    child = root.children[action]
                    rows.append(
                        {
                            "iterations": n,
                            "c": c,
                            "expand_threshold": threshold,
                            "seed": seed,
                            "action": action,
                            "value": child.wins / child.visits,
                            "visits": child.visits,
                        }
                    )
    return rows


# -- exercise 4: a full player -------------------------------------------------------------------
class MCTSPlayer:
    """An MCTS player for any game of the protocol."""

    def __init__(
        self,
        iterations: int = 1000,
        c: float = math.sqrt(2),
        expand_threshold: int = 1,
        seed: int | None = None,
    ):
        self.iterations = iterations
        self.c = c
        self.expand_threshold = expand_threshold
        self.rng = random.Random(seed)
        self.name = f"MCTS({iterations})"

    def select_action(self, state: GameState) -> int:
        root = mcts_search(state, self.iterations, self.c, self.expand_threshold, self.rng)
        return best_action(root)


def play_game(player0, player1, state: GameState | None = None) -> list[int]:
    """Let two players (anything with ``select_action``) play a game; return its moves."""
    state = state if state is not None else TicTacToe()
    players, moves = (player0, player1), []
    while not state.is_terminal():
        action = players[state.current_player].select_action(state)
        moves.append(action)
        state = state.play(action)
    return moves


def play_human(
    player,
    human: int = 0,
    state: GameState | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> Returns:
    """Play a text game against ``player``; the human moves as ``human`` (0 moves first).

    The human types a move name ("b2"); an illegal or unreadable move is asked for again.
    """
    state = state if state is not None else TicTacToe()
    while not state.is_terminal():
        print_fn(str(state))
        if state.current_player == human:
            text = input_fn("your move: ")
            try:
                action = state.parse_action(text.strip())
                state = state.play(action)
            except ValueError as error:
                print_fn(f"not a legal move: {error}")
        else:
            action = player.select_action(state)
            print_fn(f"{player.name} plays {state.action_to_string(action)}")
            state = state.play(action)
    print_fn(str(state))
    winner = state.winner()
    print_fn("draw" if winner is None else f"{state.PLAYER_NAMES[winner]} wins")
    return state.returns()
