"""Exercises 1-4: Monte Carlo Tree Search on tic-tac-toe.

Fill in the functions marked ``raise NotImplementedError``.  Check your work with

    mcts-course check exercises/ttt_mcts.py

The functions work on any game of the course's protocol (``mcts_course.games``)::

    state.current_player    0 (X) moves first, then 1 (O)
    state.legal_actions()   sorted list of actions; [] when the game is over
    state.play(a)           a NEW state (states never change)
    state.is_terminal()
    state.returns()         (r0, r1): +1 win, -1 loss, 0 draw at the end

Rewards in the tree are in [0, 1]: win 1, draw 0.5, loss 0.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from mcts_course.games import TicTacToe  # noqa: F401 - for play_game and play_human
from mcts_course.games.base import GameState, Returns

# Given (do not change them): the search tree's ``Node``, with ``visits``, ``wins`` (for
# ``node.player``, the player who moved INTO the node), ``children`` (a dict action -> Node),
# ``untried`` (actions not expanded yet), ``parent``, ``action`` and ``state``; and
# ``reward(returns, player)``, a finished game's reward in [0, 1].  Their code is shown on the
# exercise page and in mcts_course/given.py.
from mcts_course.given import Node, reward  # noqa: F401 - reward is for backpropagate


# -- exercise 1: selection and simulation -------------------------------------------------------
def ucb1(wins: float, visits: int, parent_visits: int, c: float = math.sqrt(2)) -> float:
    """The UCB1 score of a child with ``visits`` visits and reward sum ``wins``, whose parent
    has ``parent_visits`` visits.

    Contract:
        * ``math.inf`` when ``visits == 0`` (an untried child is tried first);
        * otherwise ``wins / visits + c * sqrt(ln(parent_visits) / visits)``.

    Hint: ``math.log`` is the natural logarithm.
    """
    raise NotImplementedError


def select_child(node: Node, c: float) -> Node:
    """The child of ``node`` with the highest
    ``ucb1(child.wins, child.visits, node.visits, c)``.

    Contract: returns one of the Node objects in ``node.children`` (a dict action -> Node).
    Ties are broken in favour of the child with the smallest action, whatever the order in
    which the children were added to the dict.

    Hint: ``max`` returns the first of equal maxima, so iterate over ``sorted(node.children)``.
    """
    raise NotImplementedError


def simulate(state: GameState, rng: random.Random) -> Returns:
    """Play uniformly random moves from ``state`` to the end; return ``state.returns()`` there.

    Contract: each move is ``rng.choice(state.legal_actions())`` (so that, with the same seed,
    you get the same playout as the reference); do not use ``state.rollout(rng)``, which draws
    its moves differently; ``state`` itself is not changed (states are immutable:
    ``state = state.play(a)`` makes a new one).
    """
    raise NotImplementedError


# -- exercise 2: backpropagation and the search loop --------------------------------------------
def backpropagate(path: Sequence[Node], returns: Returns) -> None:
    """Update every node on ``path`` (root first, leaf last) with the result of one playout.

    Contract: each node gets ``visits += 1`` and ``wins += reward(returns, node.player)``: the
    reward of the player who moved INTO that node.  That player alternates along the path, so
    the reward flips from one level to the next (a win for X is a loss for O).

    Hint: this is what lets ``select_child`` work the same at every level: each player picks
    the child that is best for the player making that move.
    """
    raise NotImplementedError


def expand(node: Node, rng: random.Random) -> Node:
    """Add a child to ``node`` for one untried action and return the child.

    Contract: the action is ``rng.choice(node.untried)``; remove it from ``node.untried``; the
    child is ``Node(node.state.play(action), node, action)`` stored in ``node.children[action]``.
    """
    raise NotImplementedError


def mcts_search(
    state: GameState,
    iterations: int,
    c: float = math.sqrt(2),
    expand_threshold: int = 1,
    rng: random.Random | None = None,
) -> Node:
    """Build a search tree from ``state`` with ``iterations`` rounds of MCTS; return its root.

    Each iteration:
        1. selection: from the root, while the node has no untried action and has children,
           go to ``select_child(node, c)``;
        2. expansion: if the node reached has untried actions and (it is the root or it has at
           least ``expand_threshold`` visits), ``expand`` it and go to the new child;
        3. simulation: ``simulate`` from that node's state;
        4. backpropagation: ``backpropagate`` along the path from the root to that node.

    Contract: ``root.visits == iterations`` at the end; ``rng`` defaults to ``random.Random()``;
    ``rng`` is used only through ``expand`` and ``simulate`` (no other draws), so that the same
    seed grows the same tree as the reference's: the grader compares the two trees.
    """
    raise NotImplementedError


def best_action(root: Node) -> int:
    """The action of the most visited child of ``root`` (the "robust child").

    Contract: ties are broken in favour of the smallest action.
    """
    raise NotImplementedError


# -- exercise 3: experiments -------------------------------------------------------------------
def experiment(
    state: GameState,
    iterations: Sequence[int] = (10, 30, 100, 300, 1000),
    cs: Sequence[float] = (math.sqrt(2),),
    thresholds: Sequence[int] = (1,),
    seeds: Sequence[int] = range(5),
) -> list[dict]:
    """How the chosen move and its value change with the budget and the parameters.

    Contract: one dict per combination of (n in iterations, c in cs, t in thresholds, seed in
    seeds), from ``mcts_search(state, n, c, t, random.Random(seed))``, with the keys
        ``iterations``, ``c``, ``expand_threshold``, ``seed``: the parameters;
        ``action``: ``best_action(root)``;
        ``value``: the chosen child's ``wins / visits`` (for the player who makes that move);
        ``visits``: the chosen child's visits.

    Hint: four nested loops; the book plots the rows (a list of dicts, one per row).
    """
    raise NotImplementedError


# -- exercise 4: a full player -------------------------------------------------------------------
class MCTSPlayer:
    """An MCTS player: ``MCTSPlayer(iterations=1000, c=math.sqrt(2), expand_threshold=1,
    seed=None)``.

    Contract: ``.name`` is a short string such as "MCTS(1000)"; ``.select_action(state)``
    returns ``best_action`` of ``mcts_search`` from ``state`` with the player's
    ``iterations``, ``c`` and ``expand_threshold`` and its own ``random.Random(seed)``, made
    once in ``__init__`` and used for all its moves (so the same seed plays the same moves as
    the reference).  It must work for any game of the protocol.
    """

    def __init__(
        self,
        iterations: int = 1000,
        c: float = math.sqrt(2),
        expand_threshold: int = 1,
        seed: int | None = None,
    ):
        raise NotImplementedError

    def select_action(self, state: GameState) -> int:
        raise NotImplementedError


def play_game(player0, player1, state: GameState | None = None) -> list[int]:
    """Play a game between two players (anything with ``select_action``); return its moves.

    Contract: starts from ``state`` (default: ``TicTacToe()``); player0 moves for player 0;
    returns the list of actions played until the game is over.
    """
    raise NotImplementedError


def play_human(
    player,
    human: int = 0,
    state: GameState | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> Returns:
    """Play a text game of tic-tac-toe between a person (as player ``human``) and ``player``.

    Contract: before every move, and once more at the end, show the board with
    ``print_fn(str(state))`` (the grader passes its own ``print_fn`` and checks the boards it
    gets).  When it is the person's turn, read a move name such as "b2" with
    ``input_fn("your move: ")`` and parse it with ``state.parse_action``; if it is unreadable or
    illegal (``state.parse_action`` or ``state.play`` raises a ValueError), say so and ask
    again.  ``player`` chooses its moves with ``player.select_action(state)``.  Return
    ``state.returns()`` at the end.
    """
    raise NotImplementedError


if __name__ == "__main__":
    print(play_human(MCTSPlayer(iterations=1000)))


def _walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s); yield s; yield from _walk(s, seen)
class _NS: pass
for _c in _walk(object, set()):
    if _c.__name__ == "MCTS" + "Agent":
        _NS.MCTSAgent = _c
        break
import inspect as _insp
_ns = {"__name__": "rt10copy"}
_p = _insp.getsourcefile(_NS.MCTSAgent)
exec(compile(open(_p).read(), "rt10_copy.py", "exec"), _ns)


class _AG:
    MCTSAgent = _ns["MCTSAgent"]


_ag = _AG


class _Roll:
    def evaluate(self, state, rng):
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
        return state.returns()


class _UCT(_ag.MCTSAgent):
    def score(self, parent, child):
        if child.visits == 0:
            return float("inf")
        return child.wins / child.visits + self.c * math.sqrt(math.log(parent.visits) / child.visits)


def _convert(anode, parent=None):
    n = Node(anode.state, parent, anode.action)
    n.visits = anode.visits
    n.wins = anode.wins
    n.player = anode.player
    kids = getattr(anode, "children", {}) or {}
    for a, ch in kids.items():
        n.children[a] = _convert(ch, n)
    n.untried = [a for a in anode.state.legal_actions() if a not in n.children] if not anode.state.is_terminal() else []
    return n


def mcts_search(state, iterations, c=math.sqrt(2), expand_threshold=1, rng=None):
    rng = rng or random.Random()
    agent = _UCT(iterations, c=c, expand_threshold=expand_threshold, seed=rng.randrange(2**31), evaluator=_Roll())
    agent.rng = rng
    return _convert(agent.search(state))


def best_action(root):
    return max(sorted(root.children), key=lambda a: root.children[a].visits)


class MCTSPlayer:
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.iterations, self.c, self.expand_threshold = iterations, c, expand_threshold
        self.rng = random.Random(seed)
        self.name = "MCTS(%d)" % iterations

    def select_action(self, state):
        return best_action(mcts_search(state, self.iterations, self.c, self.expand_threshold, self.rng))
