"""MCTS-Solver and exact endgame search as a reader would write them: the game protocol only.

The package's :class:`~mcts_course.agents.solver.MCTSSolverAgent` and
:class:`~mcts_course.agents.endgame.EndgameSolver` compute the same values with hooks, tables,
bitboards and move ordering; these functions are the ones the chapters show, and
``tests/lab/test_textbook_extensions.py`` checks that both give the same answers.
"""

from __future__ import annotations

import math
import random

from mcts_course.games.base import GameState
from mcts_course.given import Node, reward


class SolverNode(Node):
    """The teaching node (:class:`mcts_course.given.Node`) with one more field: ``proven``, its
    proven reward for ``player`` (1, ½, 0), None while unknown."""

    def __init__(self, state: GameState, parent: Node | None = None, action: int | None = None):
        super().__init__(state, parent, action)
        self.proven: float | None = None


def prove(node: SolverNode) -> bool:
    """PROVE: settle ``node`` from its children if they allow it; True if it is proven now."""
    if node.state.is_terminal():
        node.proven = reward(node.state.returns(), node.player)
        return True
    q = node.state.current_player  # q chooses among the children
    known = [u for u in node.children.values() if u.proven is not None]
    best = max((u.proven if u.player == q else 1 - u.proven for u in known), default=None)
    every_move_known = not node.untried and len(known) == len(node.children)
    if best == 1 or (best is not None and every_move_known):
        node.proven = best if node.player == q else 1 - best
        return True
    return False


def solver_backup(path: list[SolverNode], returns: tuple[int, int]) -> None:
    """SOLVER-BACKUP: UCT's statistics, then the proofs from the leaf up to the root."""
    for node in path:
        node.visits += 1
        node.wins += reward(returns, node.player)
    for node in reversed(path):
        if node.proven is None and not prove(node):
            return  # an unproven node: nothing above it can be proven by this iteration


def _child(node: SolverNode, action: int) -> SolverNode:
    child = node.children[action] = SolverNode(node.state.play(action), node, action)
    return child


def _ucb(parent: SolverNode, child: SolverNode, c: float) -> float:
    if child.proven is not None:
        return -math.inf  # settled: nothing left to learn there
    return child.wins / child.visits + c * math.sqrt(math.log(parent.visits) / child.visits)


def solver_search(
    state: GameState, iterations: int, seed: int = 0, c: float = math.sqrt(2)
) -> SolverNode:
    """UCT with MCTS-Solver's backups: the root of the tree after ``iterations`` (or sooner,
    once the root is proven)."""
    rng = random.Random(seed)
    root = SolverNode(state)
    for _ in range(iterations):
        if root.proven is not None:
            break
        node, path = root, [root]
        while node.proven is None and not node.untried and node.children:
            node = max(node.children.values(), key=lambda u: _ucb(path[-1], u, c))
            path.append(node)
        if node.proven is None and node.untried:
            node = _child(node, node.untried.pop(rng.randrange(len(node.untried))))
            path.append(node)
        if node.state.is_terminal():
            returns = node.state.returns()
        elif node.proven is not None:  # a proven node's result, without a playout
            r = round(2 * node.proven - 1)
            returns = (r, -r) if node.player == 0 else (-r, r)
        else:
            returns = node.state.rollout(rng)
        solver_backup(path, returns)
    return root


def root_value(root: SolverNode) -> float | None:
    """The root's proven reward for the player to move there (None: not proven)."""
    if root.proven is None:
        return None
    return root.proven if root.player == root.state.current_player else 1 - root.proven


def final_margin(state: GameState) -> int:
    """A finished Othello game's disc margin for the player to move, empty squares to the winner."""
    counts = state.disc_counts()
    assert counts is not None, "a game whose pieces decide it"
    mine, theirs = counts[state.current_player], counts[1 - state.current_player]
    if mine == theirs:
        return 0
    empty = state.ROWS * state.COLS - mine - theirs
    return mine - theirs + (empty if mine > theirs else -empty)


def alphabeta_margin(
    state: GameState,
    alpha: int = -64,
    beta: int = 64,
    order: bool = True,
    nodes: list[int] | None = None,
) -> int:
    """Negamax alpha-beta on the final margin: exact if it lies in (alpha, beta), else a bound
    on that side.  ``order``: fastest first (the fewest replies); ``nodes[0]`` counts calls."""
    if nodes is not None:
        nodes[0] += 1
    if state.is_terminal():
        return final_margin(state)
    children = [state.play(a) for a in state.legal_actions()]  # a pass is a move
    if order:
        children.sort(key=lambda child: len(child.legal_actions()))
    value = -65
    for child in children:
        value = max(value, -alphabeta_margin(child, -beta, -alpha, order, nodes))
        alpha = max(alpha, value)
        if alpha >= beta:
            break  # the opponent will not allow this position: cut off
    return value


def pvs_margin(
    state: GameState, alpha: int = -64, beta: int = 64, counts: list[int] | None = None
) -> int:
    """Principal variation search (Algorithm 14.1) on the final margin: exact if it lies in
    (alpha, beta), else a bound on that side.  ``counts``: [positions searched, re-searches]."""
    if counts is not None:
        counts[0] += 1
    if state.is_terminal():
        return final_margin(state)
    children = [state.play(a) for a in state.legal_actions()]  # a pass is a move
    children.sort(key=lambda child: len(child.legal_actions()))  # fastest first
    value = -65
    for i, child in enumerate(children):
        if i == 0:  # the first move: its margin
            w = -pvs_margin(child, -beta, -alpha, counts)
        else:  # a null window: can this move beat alpha?
            w = -pvs_margin(child, -alpha - 1, -alpha, counts)
            if alpha < w < beta:  # yes: search again for its margin, at least w
                if counts is not None:
                    counts[1] += 1
                w = -pvs_margin(child, -beta, 1 - w, counts)
        value = max(value, w)
        alpha = max(alpha, value)
        if alpha >= beta:
            break  # the opponent will not allow this position: cut off
    return value
