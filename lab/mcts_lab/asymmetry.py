"""Where MCTS grows its tree: nodes per depth below each root move, against a full-width tree.

Each MCTS iteration adds (at most) one node, at the end of the path that selection chose, so the
tree grows where the visits go.  Whether that makes it *asymmetric* depends on the position:
where the root's moves are about equally good, UCT spreads its visits and the tree is about as
broad as a full-width tree of the same size; where one move is clearly best, the visits, and
with them the nodes, gather below that move.

:func:`forced_line_position` finds, in seeded random games, a position whose best line is
forced for several plies: at each of them exactly one move does not lose at once (every other
move lets the opponent win on the next ply).  :func:`depth_profiles` runs the package's MCTS
there and counts the tree's nodes at each depth below each root move, next to a full-width
tree (every position to a fixed depth, as minimax searches) with the same number of nodes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mcts_course.agents.mcts import MCTSAgent, Node
from mcts_course.games.base import GameState


# -- a position with a clear best line ---------------------------------------------------------
def wins_at_once(state: GameState) -> list[int]:
    """The moves that win the game immediately for the player to move."""
    me = state.current_player
    out = []
    for action in state.legal_actions():
        child = state.play(action)
        if child.is_terminal() and child.returns()[me] > 0:
            out.append(action)
    return out


def loses_at_once(state: GameState, action: int) -> bool:
    """Does ``action`` let the opponent win on the next ply (or lose the game outright)?"""
    me = state.current_player
    child = state.play(action)
    if child.is_terminal():
        return child.returns()[me] < 0
    return child.current_player != me and bool(wins_at_once(child))


def only_move(state: GameState) -> int | None:
    """The one legal move that does not lose at once, when the player to move has no immediate
    win and every other legal move loses at once; otherwise None."""
    if state.is_terminal() or wins_at_once(state):
        return None
    safe = [a for a in state.legal_actions() if not loses_at_once(state, a)]
    return safe[0] if len(safe) == 1 else None


def forced_line(state: GameState, min_moves: int = 5) -> list[int]:
    """The line of only moves from ``state``: while the player to move has at least
    ``min_moves`` legal moves and exactly one that does not lose at once (:func:`only_move`),
    that move, and the same again from the position it reaches."""
    line = []
    while len(state.legal_actions()) >= min_moves:
        move = only_move(state)
        if move is None:
            break
        line.append(move)
        state = state.play(move)
    return line


@dataclass(frozen=True)
class ForcedLine:
    """A position (reached by ``moves`` from the start) whose best line is forced: ``line``,
    each move of it the only one that does not lose at once.  ``game`` and ``seed`` name the
    random game it was found in."""

    state: GameState
    moves: tuple[str, ...]
    line: tuple[str, ...]
    game: int
    seed: int

    @property
    def best(self) -> str:
        """The first move of the forced line, the one clearly best move at the root."""
        return self.line[0]


def forced_line_position(
    start: GameState, *, games: int = 1000, max_played: int = 20, min_moves: int = 5, seed: int = 0
) -> ForcedLine | None:
    """The position with the longest :func:`forced_line` among the first ``max_played`` plies
    of ``games`` seeded random games from ``start`` (ties: fewest plies played, then the first
    game); None if no position has a forced move."""
    found: ForcedLine | None = None
    for game in range(games):
        rng = random.Random(seed * 100_003 + game)
        state, moves = start, []
        while not state.is_terminal() and len(moves) <= max_played:
            line = forced_line(state, min_moves)
            if line and (
                found is None or (len(line), -len(moves)) > (len(found.line), -len(found.moves))
            ):
                found = ForcedLine(state, tuple(moves), tuple(_names(state, line)), game, seed)
            action = rng.choice(state.legal_actions())
            moves.append(state.action_to_string(action))
            state = state.play(action)
    return found


def _names(state: GameState, line: list[int]) -> list[str]:
    """The moves of ``line``, played from ``state``, by name."""
    names = []
    for move in line:
        names.append(state.action_to_string(move))
        state = state.play(move)
    return names


# -- the shape of the trees ---------------------------------------------------------------------
def _levels(node: Node) -> list[int]:
    """Nodes at each depth of the subtree of ``node`` (index 0: the node itself)."""
    counts, frontier = [], [node]
    while frontier:
        counts.append(len(frontier))
        frontier = [child for n in frontier for child in n.children.values()]
    return counts


def full_width_levels(state: GameState, nodes: int) -> tuple[list[int], int]:
    """The full-width tree of ``state`` with ``nodes`` nodes, breadth first: its nodes at each
    depth (index 0: the root), and the depth D to which it holds every position (the rest of
    its nodes lie at depth D + 1; a finished game has no children)."""
    counts, frontier, total, complete = [1], [state], 1, 0
    while total < nodes:
        frontier = [s.play(a) for s in frontier if not s.is_terminal() for a in s.legal_actions()]
        if not frontier:
            break
        take = min(len(frontier), nodes - total)
        counts.append(take)
        total += take
        if take == len(frontier):
            complete += 1
    return counts, complete


@dataclass
class DepthProfiles:
    """The MCTS tree of one search, its shape below each root move, and a full-width tree of
    the same size.

    ``moves``: the root's moves (names, in action order); ``visits[m]``: root visits of move m;
    ``levels[m][d]``: nodes of the MCTS tree at depth d + 1 below the root under move m (index
    0: the move's own node); ``full_width``: nodes per depth (index 0: the root) of the
    full-width tree with as many nodes as the MCTS tree, which holds every position to depth
    ``full_width_complete``; ``pv``: the principal variation (the most visited child from the
    root on), as (move, visits) pairs.
    """

    state: GameState
    iterations: int
    seed: int
    moves: list[str]
    visits: dict[str, int]
    levels: dict[str, list[int]]
    full_width: list[int]
    full_width_complete: int
    pv: list[tuple[str, int]]

    @property
    def nodes(self) -> int:
        """The MCTS tree's nodes, the root included."""
        return 1 + sum(sum(counts) for counts in self.levels.values())

    def deepest(self, move: str) -> int:
        """The depth (plies below the root) of the deepest MCTS node under ``move``."""
        return len(self.levels[move])

    def subtree(self, move: str) -> int:
        """The MCTS tree's nodes under ``move`` (its own node included)."""
        return sum(self.levels[move])

    def share(self, move: str) -> float:
        """The share of the MCTS tree's nodes (root excluded) that lie under ``move``."""
        return self.subtree(move) / (self.nodes - 1)

    @property
    def full_width_depth(self) -> int:
        """The depth of the deepest node of the full-width tree of the same size."""
        return len(self.full_width) - 1

    def complete_to(self, move: str) -> int:
        """The depth to which the MCTS tree holds every position below ``move``."""
        state = self.state.play(self.state.parse_action(move))
        depth, frontier = 0, [state]
        for count in self.levels[move]:
            if count < len(frontier):
                break
            depth += 1
            frontier = [
                s.play(a) for s in frontier if not s.is_terminal() for a in s.legal_actions()
            ]
        return depth


def depth_profiles(
    state: GameState, iterations: int, *, seed: int = 0, **settings
) -> DepthProfiles:
    """Run the package's MCTS (``iterations`` iterations, other ``settings`` passed to
    :class:`~mcts_course.agents.mcts.MCTSAgent`) from ``state`` and measure its tree."""
    from mcts_course.trees import principal_variation

    agent = MCTSAgent(iterations=iterations, seed=seed, **settings)
    root = agent.search(state)
    name = state.action_to_string
    moves = [name(a) for a in sorted(state.legal_actions())]
    levels = {name(a): _levels(child) for a, child in root.children.items()}
    for move in moves:
        levels.setdefault(move, [])
    visits = {move: 0 for move in moves}
    visits.update({name(a): child.visits for a, child in root.children.items()})
    pv, parent = [], root
    for node in principal_variation(root):
        pv.append((parent.state.action_to_string(node.action), node.visits))
        parent = node
    nodes = 1 + sum(sum(c) for c in levels.values())
    full_width, complete = full_width_levels(state, nodes)
    return DepthProfiles(state, iterations, seed, moves, visits, levels, full_width, complete, pv)


def plot_depth_profiles(profiles: DepthProfiles, best: str | None = None, ax=None, title: str = ""):
    """Nodes per depth (log scale) below each root move of the MCTS tree: ``best`` in colour,
    the other moves in grey; dashed, a full-width tree of the same size, per root move."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.8))
    for move in profiles.moves:
        counts = profiles.levels[move]
        depths = range(1, len(counts) + 1)
        if move == best:
            ax.semilogy(
                depths, counts, "o-", color="#d1495b", lw=2.2, zorder=3, label=f"MCTS, below {move}"
            )
        else:
            first = move == [m for m in profiles.moves if m != best][0]
            label = "MCTS, below each other move" if best else "MCTS, below each move"
            ax.semilogy(depths, counts, "-", color="#9a9a9a", lw=1, label=label if first else None)
    share = [count / len(profiles.moves) for count in profiles.full_width[1:]]
    ax.semilogy(
        range(1, len(share) + 1),
        share,
        "s--",
        color="#30638e",
        lw=1.6,
        zorder=2,
        label="full-width tree of the same size, per move",
    )
    ax.set_xlabel("depth (plies below the root)")
    ax.set_ylabel("nodes at that depth")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.5, None)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
