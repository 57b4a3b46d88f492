"""The experiments of the first chapters: random play, cell scores, minimax and alpha-beta.

Every function is seeded (or deterministic, like a node count), so a chapter that calls it gets
the same numbers on every build; the figures are drawn here too, so that a chapter cell is a
call or two.  Only :func:`depth_by_time` depends on the machine (a time limit).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mcts_course.agents.evaluation import cell_score
from mcts_course.agents.minimax import (
    AlphaBetaAgent,
    SearchStats,
    alphabeta_value,
    minimax_value,
)
from mcts_course.games import ConnectFour, GameState, Othello
from mcts_course.games.base import random_position
from mcts_course.stats import wilson_interval

# The running example of the search chapters: an opening position after nine moves.
RUNNING_MOVES = "f5 d6 c3 d3 c4 f4 c5 b3 c2"


def running_position() -> Othello:
    """The Othello position the chapters on minimax and Monte Carlo search come back to."""
    return Othello.from_moves(RUNNING_MOVES)


# -- random play -----------------------------------------------------------------------------
@dataclass
class RandomGames:
    """Seeded random Othello games: who won, by how much, after how many moves."""

    black: int  # games Black won
    white: int
    draws: int
    margins: np.ndarray  # Black's discs minus White's at the end, per game
    lengths: np.ndarray  # moves per game (passes included)

    @property
    def games(self) -> int:
        return self.black + self.white + self.draws

    @property
    def black_share(self) -> float:
        """Black's share of the decided games."""
        return self.black / (self.black + self.white)

    @property
    def black_interval(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`black_share`."""
        return wilson_interval(self.black_share, self.black + self.white)

    def share_within(self, discs: int) -> float:
        """The share of games decided by at most ``discs`` discs (draws included)."""
        return float(np.mean(np.abs(self.margins) <= discs))

    def share_beyond(self, discs: int) -> float:
        """The share of games decided by ``discs`` discs or more."""
        return float(np.mean(np.abs(self.margins) >= discs))

    def plot(self):
        """Three panels: results by colour, the final margins, the game lengths."""
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(12, 3.4), width_ratios=[0.8, 1.2, 1])
        counts = [self.black, self.white, self.draws]
        axes[0].bar(
            ["Black", "White", "draw"],
            counts,
            color=["#222222", "#bbbbbb", "#4a90d9"],
            edgecolor="black",
        )
        for i, n in enumerate(counts):
            axes[0].text(i, n, f"{n:,}", ha="center", va="bottom")
        axes[0].set_ylim(0, max(counts) * 1.15)
        axes[0].set_ylabel("games")
        axes[0].set_xlabel("winner")
        axes[1].hist(self.margins, bins=np.arange(-64, 66, 4), color="#2e7d32", edgecolor="white")
        axes[1].set_xlabel("Black's discs minus White's at the end")
        axes[1].set_ylabel("games")
        shown = self.lengths[self.lengths >= 56]
        axes[2].bar(*np.unique(shown, return_counts=True), width=0.8, color="#555555")
        axes[2].set_xticks(range(56, int(shown.max()) + 1, 2))
        axes[2].set_ylim(0, np.unique(shown, return_counts=True)[1].max() * 1.3)
        hidden = len(self.lengths) - len(shown)
        axes[2].set_xlabel("moves in the game (passes included)")
        axes[2].text(
            0.97,
            0.95,
            f"{hidden:,} games under 56 moves\nnot shown",
            ha="right",
            va="top",
            fontsize=8,
            transform=axes[2].transAxes,
        )
        fig.suptitle(f"{self.games:,} random Othello games")
        fig.tight_layout()
        return fig


def random_games(games: int = 1000, seed: int = 0) -> RandomGames:
    """``games`` Othello games in which both sides play uniformly random moves; game ``i``
    draws its moves from ``random.Random(seed * 1_000_003 + i)``."""
    black = white = draws = 0
    margins, lengths = [], []
    for i in range(games):
        rng = random.Random(seed * 1_000_003 + i)
        state, moves = Othello(), 0
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
            moves += 1
        b, w = state.disc_counts()
        black += b > w
        white += w > b
        draws += b == w
        margins.append(b - w)
        lengths.append(moves)
    return RandomGames(black, white, draws, np.array(margins), np.array(lengths))


def legal_move_counts(games: int = 200, seed: int = 0) -> np.ndarray:
    """The number of legal moves at every turn of ``games`` random Othello games (seeded as in
    :func:`random_games`) at which the player to move has a move (passes are left out)."""
    counts: list[int] = []
    for i in range(games):
        rng = random.Random(seed * 1_000_003 + i)
        state = Othello()
        while not state.is_terminal():
            actions = state.legal_actions()
            if actions != [Othello.PASS]:
                counts.append(len(actions))
            state = state.play(rng.choice(actions))
    return np.array(counts)


# -- minimax and alpha-beta ------------------------------------------------------------------
def root_values(
    state: GameState, depth: int, search: Callable = minimax_value, evaluate: Callable = cell_score
) -> dict[int, float]:
    """Each legal move's value for the player to move, ``depth`` plies in all (the move
    included), with ``evaluate`` at the horizon."""
    me = state.current_player
    return {a: search(state.play(a), depth - 1, evaluate, me) for a in state.legal_actions()}


def best_of(values: dict[int, float]) -> int:
    """The move of the highest value; ties go to the smallest action (as the agents do)."""
    return max(values, key=lambda a: (values[a], -a))


def random_positions(
    game: type[GameState],
    count: int,
    plies: tuple[int, int],
    seed: int,
    key: Callable[[GameState], Hashable] | None = None,
) -> list[GameState]:
    """``count`` distinct non-terminal positions after a random number of random moves in
    ``plies`` (inclusive, drawn uniformly), in the order they were drawn.  A draw whose
    ``key`` (default: the position itself) equals an earlier one's is thrown away and drawn
    again; ``key=othello_symmetry_key`` also throws away mirror images of earlier ones."""
    rng = random.Random(seed)
    found: list[GameState] = []
    seen: set[Hashable] = set()
    while len(found) < count:
        state = random_position(game, rng.randint(*plies), rng)
        if state is None:
            continue
        mark = state if key is None else key(state)
        if mark not in seen:
            seen.add(mark)
            found.append(state)
    return found


def _square_maps() -> list[list[int]]:
    """The eight symmetries of the square board as permutations of the 64 squares."""
    maps = []
    for t in range(8):
        m = []
        for sq in range(64):
            r, c = divmod(sq, 8)
            if t & 4:
                r, c = c, r
            if t & 1:
                r = 7 - r
            if t & 2:
                c = 7 - c
            m.append(r * 8 + c)
        maps.append(m)
    return maps


_SQUARE_MAPS = _square_maps()


def othello_symmetry_key(state: GameState) -> Hashable:
    """The same key for an Othello position and its seven rotations and reflections (the
    smallest of the eight transformed boards, with the player to move): a mirror image of an
    opening is the same opening, seen from another side of the board."""
    assert isinstance(state, Othello)
    black, white = state.black, state.white

    def moved(bits: int, m: list[int]) -> int:
        return sum(1 << m[sq] for sq in range(64) if bits >> sq & 1)

    return min((moved(black, m), moved(white, m)) for m in _SQUARE_MAPS), state.current_player


@dataclass
class Agreement:
    """Minimax and alpha-beta searched on the same positions to the same depth."""

    depth: int
    positions: int
    agree: int  # positions where both returned the same value
    minimax_nodes: int  # in total over the positions
    alphabeta_nodes: int

    @property
    def ratio(self) -> float:
        """Alpha-beta's nodes as a share of minimax's."""
        return self.alphabeta_nodes / self.minimax_nodes

    def table(self):
        """The comparison as a table: per search, the positions where it found minimax's value
        and the nodes it visited in all."""
        from mcts_lab.present import Table

        return Table(
            ["search", f"depth {self.depth}: value equal to minimax's", "nodes visited in all"],
            [
                ["minimax", "(the reference)", self.minimax_nodes],
                ["alpha-beta (ordered)", f"{self.agree} of {self.positions}", self.alphabeta_nodes],
            ],
            formats={"nodes visited in all": ","},
            right=[f"depth {self.depth}: value equal to minimax's", "nodes visited in all"],
        )


def alphabeta_agreement(positions: Sequence[GameState], depth: int = 3) -> Agreement:
    """Search every position with minimax and with alpha-beta (ordered) to ``depth``."""
    agree = nodes_mm = nodes_ab = 0
    for state in positions:
        mm, ab = SearchStats(), SearchStats()
        v_mm = minimax_value(state, depth, cell_score, state.current_player, stats=mm)
        v_ab = alphabeta_value(state, depth, cell_score, state.current_player, stats=ab)
        agree += v_mm == v_ab
        nodes_mm += mm.nodes
        nodes_ab += ab.nodes
    return Agreement(depth, len(positions), agree, nodes_mm, nodes_ab)


@dataclass
class NodeCounts:
    """Nodes visited against the search depth, per search, summed over a set of positions."""

    title: str
    positions: int
    counts: dict[str, dict[int, int]]  # search -> depth -> nodes
    branching: float | None = None  # for the reference lines of a constant branching factor
    depths: list[int] = field(default_factory=list)

    def at(self, search: str, depth: int) -> int:
        return self.counts[search][depth]

    def whole_tree(self, depth: int) -> float:
        """Nodes of a tree with ``branching`` moves everywhere, to ``depth``, per position set."""
        b = self.branching
        return self.positions * sum(b**k for k in range(depth + 1))

    def perfect_leaves(self, depth: int) -> float:
        """Levin's count (published by Slagle and Dixon, analysed by Knuth and Moore) of the
        leaves of a perfectly ordered alpha-beta search, b^ceil(d/2) + b^floor(d/2) - 1, per
        position set."""
        b = self.branching
        return self.positions * (b ** math.ceil(depth / 2) + b ** (depth // 2) - 1)

    def perfect_nodes(self, depth: int) -> float:
        """All the nodes (root, inner nodes, leaves) of Knuth and Moore's perfectly ordered
        search to ``depth``, per position set: its nodes at depth k are the leaves of the
        perfectly ordered search to depth k, so the total sums :meth:`perfect_leaves` over
        k = 0..depth.  This is what compares with a search's count of nodes visited."""
        return sum(self.perfect_leaves(k) for k in range(depth + 1))

    def plot(self, ax=None):
        """Nodes against depth on a log scale, integer depth ticks."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 4.2))
        if self.branching is not None:
            b = int(self.branching)
            ax.semilogy(
                self.depths,
                [self.whole_tree(d) for d in self.depths],
                color="#999999",
                linestyle=":",
                label=f"whole tree, $b = {b}$",
            )
            ax.semilogy(
                self.depths,
                [self.perfect_nodes(d) for d in self.depths],
                color="#999999",
                linestyle="--",
                label=f"best case, $b = {b}$ (Levin; Slagle and Dixon), all nodes",
            )
        for (label, by_depth), marker in zip(self.counts.items(), "os^v", strict=False):
            ax.semilogy(list(by_depth), list(by_depth.values()), marker=marker, label=label)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("search depth (plies)")
        ax.set_ylabel(
            "nodes visited" + (f" ({self.positions} positions)" if self.positions > 1 else "")
        )
        ax.set_title(self.title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        return ax


SEARCHES = {
    "minimax": lambda s, d, stats: minimax_value(s, d, cell_score, s.current_player, stats),
    "alpha-beta, unordered": lambda s, d, stats: alphabeta_value(
        s, d, cell_score, s.current_player, stats=stats, order=False
    ),
    "alpha-beta, ordered": lambda s, d, stats: alphabeta_value(
        s, d, cell_score, s.current_player, stats=stats, order=True
    ),
}


def node_counts(
    positions: Sequence[GameState],
    depths: dict[str, Sequence[int]],
    title: str,
    labels: dict[str, str] | None = None,
    branching: float | None = None,
) -> NodeCounts:
    """Nodes each search of :data:`SEARCHES` named in ``depths`` visits at each of its depths,
    summed over ``positions``; ``labels`` renames the searches for the figure."""
    labels = labels or {}
    counts = {}
    for name, ds in depths.items():
        by_depth = {}
        for d in ds:
            total = 0
            for state in positions:
                stats = SearchStats()
                SEARCHES[name](state, d, stats)
                total += stats.nodes
            by_depth[d] = total
        counts[labels.get(name, name)] = by_depth
    all_depths = sorted({d for ds in depths.values() for d in ds})
    return NodeCounts(title, len(positions), counts, branching, all_depths)


def connect_four_counts(
    positions: int = 6, seed: int = 3, max_depth: int = 6, minimax_depth: int = 4
) -> NodeCounts:
    """Node counts on Connect Four openings (four random moves): minimax, alpha-beta with the
    columns left to right, and alpha-beta with the best-looking moves first."""
    states = random_positions(ConnectFour, positions, (4, 4), seed)
    return node_counts(
        states,
        {
            "minimax": range(1, minimax_depth + 1),
            "alpha-beta, unordered": range(1, max_depth + 1),
            "alpha-beta, ordered": range(1, max_depth + 1),
        },
        "Connect Four: nodes searched against depth",
        labels={
            "alpha-beta, unordered": "alpha-beta, left to right",
            "alpha-beta, ordered": "alpha-beta, best first",
        },
        branching=7,
    )


# -- iterative deepening ---------------------------------------------------------------------
@dataclass
class Deepening:
    """The cost of iterative deepening: nodes of one search to each depth against the nodes of
    all the iterations up to it (depths 1, 2, ..., d, the previous best move first)."""

    depths: list[int]
    single: list[int]  # one alpha-beta search to depth d
    iterative: list[int]  # iterative deepening up to depth d, all iterations together

    def overhead(self, depth: int) -> float:
        """Iterative deepening's nodes over the single search's, at ``depth``."""
        i = self.depths.index(depth)
        return self.iterative[i] / self.single[i]


def deepening_cost(state: GameState, depths: Sequence[int]) -> Deepening:
    """Count both searches' nodes at each depth (no time limit: the counts are exact)."""
    single, iterative = [], []
    for d in depths:
        fixed = AlphaBetaAgent(depth=d, seed=0)
        fixed.select_action(state)
        single.append(fixed.nodes)
        deepening = AlphaBetaAgent(depth=d, time_limit=3600.0, seed=0)
        deepening.select_action(state)
        iterative.append(deepening.nodes)
    return Deepening(list(depths), single, iterative)


@dataclass
class DepthByTime:
    """How deep iterative deepening got within each time limit (on the machine that ran it)."""

    limits: list[float]
    depths: list[int]
    nodes: list[int]
    repeats: int = 1  # runs per limit; depths and nodes are their medians

    def plot(self, ax=None):
        """Depth completed against the time limit: one marker per limit, no line between them
        (the depth is measured only at the limits, and it is a whole number of plies), integer
        depth ticks.  The node counts stay in ``nodes``: they mix finished and abandoned work,
        so they are not drawn."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 3.6))
        from matplotlib.ticker import NullLocator

        ax.semilogx(self.limits, self.depths, "o", markersize=7)
        top = max(self.depths)
        ax.set_yticks(range(0, top + 2))
        ax.set_ylim(0, top + 1.2)
        ax.set_xlim(min(self.limits) / 1.8, max(self.limits) * 1.8)
        ax.set_xticks(self.limits, [f"{t:g}" for t in self.limits])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("time limit per move (seconds)")
        ax.set_ylabel("depth completed (plies)")
        ax.set_title(
            "Iterative deepening: depth completed"
            + (f"\n(medians of {self.repeats} runs)" if self.repeats > 1 else "")
        )
        ax.figure.tight_layout()
        return ax


def depth_by_time(state: GameState, limits: Sequence[float], repeats: int = 1) -> DepthByTime:
    """Iterative deepening (alpha-beta, cell scores) on ``state`` under each time limit; with
    ``repeats`` runs per limit, the median depth and the median node count (one run is at the
    mercy of whatever else the machine does at that moment)."""
    depths, nodes = [], []
    for limit in limits:
        runs = []
        for _ in range(repeats):
            agent = AlphaBetaAgent(depth=None, time_limit=limit, seed=0)
            agent.select_action(state)
            runs.append((agent.depth_reached, agent.nodes))
        depths.append(int(np.median([d for d, _ in runs])))
        nodes.append(int(np.median([n for _, n in runs])))
    return DepthByTime(list(limits), depths, nodes, repeats)


# -- negamax against the two-function minimax --------------------------------------------------
def game_result(state: GameState, player: int) -> float:
    """The result for ``player`` of a finished game (+1, 0, -1); 0 before the end."""
    return float(state.returns()[player]) if state.is_terminal() else 0.0


def negamax_agreement(positions: Sequence[GameState]) -> int:
    """On how many of ``positions`` the package's exact solver (negamax) and the two-function
    minimax, searching to the end with the game result as the evaluation, give the same value
    for the player to move."""
    from mcts_course.agents.exact import exact_value

    depth = max(s.NUM_ACTIONS for s in positions)  # deeper than any game from there lasts
    return sum(
        exact_value(s) == minimax_value(s, depth, game_result, s.current_player) for s in positions
    )


# -- two agents over paired openings ---------------------------------------------------------
@dataclass
class OpeningPairs:
    """Agent A against agent B from the same openings, each opening played twice with the
    colours swapped; ``scores[i]`` is A's mean result on opening ``i`` (win 1, draw 1/2)."""

    names: tuple[str, str]
    scores: list[float]

    @property
    def openings(self) -> int:
        return len(self.scores)

    @property
    def score(self) -> float:
        return float(np.mean(self.scores))

    def interval(self, seed: int = 0) -> tuple[float, float]:
        """The 95% bootstrap interval of A's score, resampling openings (the unit: both games
        of an opening share it, so they are not two independent samples)."""
        from mcts_course.stats import bootstrap_interval

        return bootstrap_interval(self.scores, seed=seed)


def opening_pairs(
    agent_a,
    agent_b,
    game: type[GameState],
    openings: int,
    plies: tuple[int, int],
    seed: int,
    key: Callable[[GameState], Hashable] | None = None,
) -> OpeningPairs:
    """Play A against B from ``openings`` distinct random openings (``random_positions``), A
    first with one colour, then with the other.  Deterministic agents give one game per
    colour and opening, so the openings are where the variety comes from."""
    from mcts_course.arena import play_game

    scores = []
    for start in random_positions(game, openings, plies, seed, key):
        total = 0.0
        for a_player in (0, 1):
            pair = (agent_a, agent_b) if a_player == 0 else (agent_b, agent_a)
            final = play_game(start, *pair).final
            total += (game_result(final, a_player) + 1) / 2
        scores.append(total / 2)
    return OpeningPairs((agent_a.name, agent_b.name), scores)
