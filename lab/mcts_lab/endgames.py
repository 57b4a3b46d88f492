"""Exact Othello endgames: the solver on the FFO positions, and MCTS handing over to it.

* :func:`ffo_solutions` solves the FFO positions #1-19 (:mod:`mcts_lab.ffo`) with
  :class:`~mcts_course.agents.endgame.EndgameSolver` and keeps, for each, the published best
  margin, the solver's margin and move, its node count and time.
* :func:`handover_match` plays the hybrid ``mcts:time=T,endgame=N`` against plain
  ``mcts:time=T`` from seeded openings, each opening twice with the colours swapped, and keeps
  the time of every move, so that the solver's moves can be compared with the budget ``T``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from joblib import Parallel, delayed

from mcts_course.agents import (
    AlphaBetaAgent,
    EndgameSolver,
    MCTSAgent,
    endgame_margins,
    make_agent,
    solve_endgame,
    with_params,
)
from mcts_course.agents.endgame import empty_squares
from mcts_course.agents.mcts import Node, root_table
from mcts_course.arena import MatchResult, game_seeds, play_game
from mcts_course.games import Othello
from mcts_course.stats import bootstrap_interval
from mcts_lab import N_JOBS
from mcts_lab.exact_paired import sign_test_p
from mcts_lab.ffo import Share, SolvedPosition, load_ffo
from mcts_lab.paired import PairedDifference, paired_difference
from mcts_lab.present import Table


# -- the FFO positions, solved ------------------------------------------------------------------
@dataclass(frozen=True)
class FFOSolution:
    """One FFO position: the published margins and the solver's result."""

    position: SolvedPosition
    margin: int  # the solver's exact margin for the player to move
    move: int  # the solver's move
    nodes: int
    seconds: float

    @property
    def agrees(self) -> bool:
        """The published best margin, and a move the file says achieves it."""
        return self.margin == self.position.best and self.move in self.position.best_moves


def ffo_solutions(positions: Sequence[SolvedPosition] | None = None) -> list[FFOSolution]:
    """Solve each position (one core, one position after the other, a fresh table each)."""
    out = []
    for p in positions if positions is not None else load_ffo():
        solution = EndgameSolver().solve(p.state)
        out.append(FFOSolution(p, solution.margin, solution.move, solution.nodes, solution.seconds))  # type: ignore[arg-type]
    return out


def ffo_table(solutions: Sequence[FFOSolution]) -> Table:
    """One row per position: number, empty squares, the published best moves and margin, the
    solver's move and margin, and its nodes (positions searched: a count, unlike a time, that
    is the same on every machine)."""
    rows = []
    for s in solutions:
        state = s.position.state
        best = " ".join(state.action_to_string(a) for a in sorted(s.position.best_moves))
        rows.append(
            [
                s.position.number,
                s.position.empties,
                best,
                f"{s.position.best:+d}",
                state.action_to_string(s.move),
                f"{s.margin:+d}",
                s.nodes,
            ]
        )
    return Table(
        [
            "#",
            "empty squares",
            "published best moves",
            "published margin",
            "solver's move",
            "solver's margin",
            "nodes",
        ],
        rows,
        {"nodes": ","},
        right=["#", "empty squares", "published margin", "solver's margin", "nodes"],
    )


@dataclass
class RootVersusExact:
    """One MCTS search in an FFO position, its root statistics beside the exact margins."""

    position: SolvedPosition
    iterations: int
    rows: list[dict]  # from MCTSAgent.root_table: action, move, visits, wins, mean, uct
    choice: int  # the most visited move
    root: Node  # the search tree, for a look below the root

    def table(self) -> Table:
        """Move, visits, mean reward (the mover's win rate in the sampled games), margin."""
        return Table(
            ["move", "MCTS visits", "MCTS mean", "exact margin"],
            [
                [r["move"], r["visits"], r["mean"], f"{self.position.margins[r['action']]:+d}"]
                for r in self.rows
            ],
            {"MCTS visits": ",", "MCTS mean": ".3f"},
            right=["MCTS visits", "MCTS mean", "exact margin"],
        )

    def replies(self, action: int) -> list[dict]:
        """The opponent's replies to ``action`` as the tree saw them, most visited first:
        move, visits, ``mean`` the root player's mean reward in the games sampled below the
        reply, and ``margin`` its exact margin for the root player."""
        node = self.root.children[action]
        exact = endgame_margins(node.state)  # for the opponent, who replies
        return [
            {**row, "mean": 1 - row["mean"], "margin": -exact[row["action"]]}  # zero-sum
            for row in root_table(node)
        ]

    def replies_table(self, actions: Sequence[int], mover: str) -> Table:
        """Below each of ``actions``, the opponent's replies (:meth:`replies`), the means and
        margins headed as ``mover``'s (the player to move at the root, by name)."""
        state = self.position.state
        mean, margin = f"{mover}'s mean", f"{mover}'s exact margin"
        return Table(
            ["after", "reply", "MCTS visits", mean, margin],
            [
                [state.action_to_string(a), r["move"], r["visits"], r["mean"], f"{r['margin']:+d}"]
                for a in actions
                for r in self.replies(a)
            ],
            {"MCTS visits": ",", mean: ".3f"},
            right=["MCTS visits", mean, margin],
        )


def root_versus_exact(position: SolvedPosition, iterations: int, seed: int = 0) -> RootVersusExact:
    """Search ``position`` with MCTS (``iterations``, ``seed``) and keep its tree."""
    agent = MCTSAgent(iterations, seed=seed)
    choice = agent.select_action(position.state)
    assert agent.last_root is not None  # a search just ran
    return RootVersusExact(position, iterations, agent.root_table(), choice, agent.last_root)


def choices_over_seeds(position: SolvedPosition, iterations: int, seeds: int) -> list[int]:
    """MCTS's move in ``position`` with ``iterations``, for the seeds 0 to ``seeds`` - 1."""
    return [MCTSAgent(iterations, seed=seed).select_action(position.state) for seed in range(seeds)]


def reply_margins(position: SolvedPosition, action: int) -> dict[str, int]:
    """The exact margin of every reply to ``action``, for the opponent (who replies)."""
    child = position.state.play(action)
    return {child.action_to_string(a): m for a, m in endgame_margins(child).items()}


def solver_share(solutions: Sequence[FFOSolution]) -> Share:
    """The solver's decisions counted like any player's (:class:`~mcts_lab.ffo.Share`)."""
    best = sum(s.move in s.position.best_moves for s in solutions)
    kept = sum(s.position.keeps_outcome(s.move) for s in solutions)
    seconds = sum(s.seconds for s in solutions) / len(solutions)
    return Share("exact solver", best, kept, len(solutions), best, seconds)


def _mcts_move(solution: FFOSolution, seed: int) -> tuple[int, int, float]:
    agent = MCTSAgent(time_limit=solution.seconds, seed=seed)
    started = time.perf_counter()
    action = agent.select_action(solution.position.state)
    return action, agent.last_iterations, time.perf_counter() - started


@dataclass(frozen=True)
class EqualTime:
    """MCTS given, in each FFO position, the time the solver took there."""

    share: Share
    iterations: float  # mean iterations per decision


def mcts_at_solver_time(
    solutions: Sequence[FFOSolution], seeds: int = 2, n_jobs: int | None = N_JOBS
) -> EqualTime:
    """MCTS searching each position for as long as the solver took to solve it, ``seeds``
    times, its moves counted as best moves and outcome-keeping moves."""
    jobs = [(s, seed) for s in solutions for seed in range(seeds)]
    done = Parallel(n_jobs=n_jobs)(delayed(_mcts_move)(s, seed) for s, seed in jobs)
    best = sum(a in s.position.best_moves for (s, _), (a, _, _) in zip(jobs, done, strict=True))
    kept = sum(s.position.keeps_outcome(a) for (s, _), (a, _, _) in zip(jobs, done, strict=True))
    every = sum(
        all(
            a in s.position.best_moves
            for (t, _), (a, _, _) in zip(jobs, done, strict=True)
            if t is s
        )
        for s in solutions
    )
    seconds = sum(t for _, _, t in done) / len(done)
    # per position, the share of its seeds that found a best move / kept the outcome: the
    # position is the unit of the paired comparison with a random move
    pairs = list(zip(jobs, done, strict=True))
    by_best = tuple(
        statistics.fmean(a in s.position.best_moves for (t, _), (a, _, _) in pairs if t is s)
        for s in solutions
    )
    by_kept = tuple(
        statistics.fmean(s.position.keeps_outcome(a) for (t, _), (a, _, _) in pairs if t is s)
        for s in solutions
    )
    share = Share(
        "MCTS, the solver's time", best, kept, len(jobs), every, seconds, by_best, by_kept
    )
    return EqualTime(share, sum(i for _, i, _ in done) / len(done))


def random_move_best(position: SolvedPosition) -> float:
    """The exact chance that a uniformly random legal move is a best move (no sampling)."""
    return len(position.best_moves) / len(position.margins)


def random_move_kept(position: SolvedPosition) -> float:
    """The exact chance that a uniformly random legal move keeps the position's outcome."""
    return sum(position.keeps_outcome(a) for a in position.margins) / len(position.margins)


def equal_time_table(solutions: Sequence[FFOSolution], equal: EqualTime) -> Table:
    """The solver, MCTS at the solver's time and a random legal move on the same positions:
    best moves and outcome-keeping moves, with 95% Wilson intervals over the positions for the
    two searches; the random move's shares are exact means over the positions (no interval)."""
    positions = [s.position for s in solutions]
    rows: list[list[object]] = []
    for s in (solver_share(solutions), equal.share):
        (b0, b1), (k0, k1) = s.best_interval, s.kept_interval
        rows.append(
            [
                s.label,
                s.trials,
                s.best_share,
                f"{b0:.0%} to {b1:.0%}",
                s.kept_share,
                f"{k0:.0%} to {k1:.0%}",
            ]
        )
    best = statistics.fmean(random_move_best(p) for p in positions)
    kept = statistics.fmean(random_move_kept(p) for p in positions)
    rows.append(["a random legal move (exact)", len(positions), best, "exact", kept, "exact"])
    return Table(
        ["player", "decisions", "best move", "95% interval", "outcome kept", "95% interval "],
        rows,
        {"best move": ".0%", "outcome kept": ".0%"},
        right=["decisions", "best move", "outcome kept"],
    )


def versus_random(solutions: Sequence[FFOSolution], equal: EqualTime) -> PairedDifference:
    """MCTS's share of best moves minus a random legal move's, paired by position, with a
    bootstrap interval over the positions."""
    chance = [random_move_best(s.position) for s in solutions]
    return paired_difference(equal.share.best_by_position, chance)


def poisson_binomial_tail(chances: Sequence[float], hits: int) -> float:
    """P(X >= ``hits``) for X the number of successes of independent trials with these
    chances (the Poisson-binomial distribution), exactly, by convolving one trial at a time."""
    if any(not 0 <= c <= 1 for c in chances):
        raise ValueError("chances are probabilities")
    mass = [1.0]  # mass[k] = P(k successes among the trials so far)
    for c in chances:
        mass = [
            (mass[k] if k < len(mass) else 0.0) * (1 - c) + (mass[k - 1] * c if k else 0.0)
            for k in range(len(mass) + 1)
        ]
    return min(1.0, sum(mass[max(hits, 0) :]))


def better_than_chance_p(equal: EqualTime, positions: Sequence[SolvedPosition]) -> float:
    """The exact one-sided p-value of "MCTS's move is no more often a best move than a random
    legal move": under that hypothesis position i gives a best move with the random move's
    chance there, independently, so the count of best moves is Poisson-binomial.  MCTS makes
    one decision per position (its per-position share is 0 or 1)."""
    by_best = equal.share.best_by_position
    if len(by_best) != len(positions) or any(b not in (0.0, 1.0) for b in by_best):
        raise ValueError("one decision (0 or 1) per position")
    return poisson_binomial_tail([random_move_best(p) for p in positions], round(sum(by_best)))


def kept_better_than_chance_p(equal: EqualTime, positions: Sequence[SolvedPosition]) -> float:
    """As :func:`better_than_chance_p`, for the moves that keep the position's outcome: the
    exact one-sided p-value of "MCTS's move keeps the outcome no more often than a random legal
    move" (Poisson-binomial over the random move's exact chances)."""
    by_kept = equal.share.kept_by_position
    if len(by_kept) != len(positions) or any(k not in (0.0, 1.0) for k in by_kept):
        raise ValueError("one decision (0 or 1) per position")
    return poisson_binomial_tail([random_move_kept(p) for p in positions], round(sum(by_kept)))


@dataclass(frozen=True)
class SignTest:
    """A paired comparison of two players' 0/1 results on the same positions: the positions
    only the first got right, those only the second got right, and the exact two-sided sign
    test's p (only these discordant positions count; under "no difference" each goes either
    way with chance 1/2)."""

    only_first: int
    only_second: int
    p_value: float


def paired_sign_test(first: Sequence[float], second: Sequence[float]) -> SignTest:
    """The exact sign test on paired 0/1 results (one decision per position and player)."""
    if len(first) != len(second) or any(x not in (0.0, 1.0) for x in (*first, *second)):
        raise ValueError("one 0/1 result per position for each player")
    only_first = sum(x > y for x, y in zip(first, second, strict=True))
    only_second = sum(y > x for x, y in zip(first, second, strict=True))
    return SignTest(only_first, only_second, sign_test_p(only_first, only_second))


def solver_versus_mcts(solutions: Sequence[FFOSolution], equal: EqualTime, kept: bool) -> SignTest:
    """The solver against MCTS at its time, paired by position, on best moves (``kept`` false)
    or on moves that keep the outcome (``kept`` true)."""
    if kept:
        solver = [float(s.position.keeps_outcome(s.move)) for s in solutions]
        mcts = list(equal.share.kept_by_position)
    else:
        solver = [float(s.move in s.position.best_moves) for s in solutions]
        mcts = list(equal.share.best_by_position)
    return paired_sign_test(solver, mcts)


# -- the hand-over match ------------------------------------------------------------------------
def seeded_openings(n: int, plies: int, seed: int, empties: int | None = None) -> list[Othello]:
    """``n`` distinct positions after ``plies`` uniformly random moves from the start; with
    ``empties``, each continued by alpha-beta at depth 2 for both sides (the cell table, a
    fast and sensible player) until that many squares are empty."""
    rng = random.Random(seed)
    player = AlphaBetaAgent(2)
    found: dict[Othello, None] = {}
    while len(found) < n:
        state = Othello()
        for _ in range(plies):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        while empties is not None and not state.is_terminal() and empty_squares(state) > empties:
            state = state.play(player.select_action(state))
        if not state.is_terminal() and (empties is None or empty_squares(state) == empties):
            found.setdefault(state, None)
    return list(found)


@dataclass(frozen=True)
class MoveTime:
    """One move of a game: who made it (0 the hybrid, 1 plain MCTS), the empty squares before
    it and its seconds."""

    agent: int
    empties: int
    seconds: float


def _game(start: Othello, spec_a: str, spec_b: str, seed: int, index: int):
    seed_a, seed_b = game_seeds(seed, index)
    a = make_agent(spec_a, seed=seed_a)
    b = make_agent(spec_b, seed=seed_b)
    a_player = index % 2
    record = play_game(start, a, b) if a_player == 0 else play_game(start, b, a)
    times = [
        MoveTime(int(state.current_player != a_player), empty_squares(state), t)
        for state, t in zip(record.states, record.times, strict=False)
    ]
    return a_player, record.returns, times


@dataclass
class HandoverMatch:
    """The hybrid (agent A) against plain MCTS: the result, and the time of every move of
    every game."""

    time_per_move: float
    endgame: int
    result: MatchResult
    games: list[list[MoveTime]]

    def solver_moves(self) -> list[MoveTime]:
        """The hybrid's moves at ``endgame`` empty squares or fewer: its solver's moves."""
        return [m for g in self.games for m in g if m.agent == 0 and m.empties <= self.endgame]

    def first_solver_seconds(self) -> list[float]:
        """The seconds of the hybrid's first solver move in each game: usually its longest
        search, since the later ones have fewer empty squares and find part of their tree in the
        table (a forced move or a pass takes no search, wherever it falls)."""
        out = []
        for g in self.games:
            moves = [m.seconds for m in g if m.agent == 0 and m.empties <= self.endgame]
            out += moves[:1]
        return out

    def later_solver_seconds(self) -> list[float]:
        """The seconds of the hybrid's other solver moves, after the first of each game."""
        out = []
        for g in self.games:
            moves = [m.seconds for m in g if m.agent == 0 and m.empties <= self.endgame]
            out += moves[1:]
        return out

    def opening_scores(self) -> list[float]:
        """The hybrid's score from each opening: the mean of its two games there, one with each
        colour (the games are stored opening by opening, Black first)."""
        points = [(r > 0) + (r == 0) / 2 for r in self.result.a_returns]
        return [(points[k] + points[k + 1]) / 2 for k in range(0, len(points), 2)]

    @property
    def opening_interval(self) -> tuple[float, float]:
        """95% bootstrap interval of the hybrid's score over the openings, the unit of the
        match: the two games from one opening share it, so they are not two independent units."""
        return bootstrap_interval(self.opening_scores())

    @property
    def within_budget(self) -> float:
        """The share of the hybrid's solver moves that took no longer than the time per move."""
        moves = self.solver_moves()
        return sum(m.seconds <= self.time_per_move for m in moves) / len(moves)

    @property
    def median_first_seconds(self) -> float:
        return statistics.median(self.first_solver_seconds())

    @property
    def median_later_seconds(self) -> float:
        return statistics.median(self.later_solver_seconds())

    def seconds_per_game(self, agent: int) -> float:
        """The mean seconds per game that ``agent`` (0 the hybrid, 1 plain MCTS) spent."""
        return statistics.mean(sum(m.seconds for m in g if m.agent == agent) for g in self.games)

    def table(self) -> Table:
        """The match in one row: games, wins-draws-losses of the hybrid, its score and 95%
        interval (a bootstrap over the openings).  (No times: they change with the machine.)"""
        r = self.result
        lo, hi = self.opening_interval
        return Table(
            [
                "time per move",
                "hand-over",
                "games",
                "hybrid: wins-draws-losses",
                "score",
                "95% interval over the openings",
            ],
            [
                [
                    f"{self.time_per_move:g} s",
                    f"{self.endgame} empty squares",
                    r.games,
                    f"{r.wins}-{r.draws}-{r.losses}",
                    r.score,
                    f"{lo:.0%} to {hi:.0%}",
                ]
            ],
            {"score": ".0%"},
            right=["games", "score"],
        )


def handover_match(
    time_per_move: float,
    endgame: int,
    openings: int,
    plies: int = 6,
    empties: int | None = None,
    seed: int = 0,
    n_jobs: int | None = N_JOBS,
) -> HandoverMatch:
    """``mcts:time=T,endgame=N`` against ``mcts:time=T`` from ``openings`` seeded openings of
    ``plies`` random moves, each played twice (the hybrid Black, then White): equal time per
    move for the MCTS moves, and the solver's own time for the hybrid's last moves."""
    plain = with_params("mcts", time=time_per_move)
    hybrid = with_params(plain, endgame=endgame)
    starts = seeded_openings(openings, plies, seed, empties)
    tasks = [(start, 2 * k + colour) for k, start in enumerate(starts) for colour in (0, 1)]
    started = time.perf_counter()
    done = Parallel(n_jobs=n_jobs)(
        delayed(_game)(start, hybrid, plain, seed, index) for start, index in tasks
    )
    result = MatchResult(
        game="othello",
        names=(hybrid, plain),
        a_player=[a for a, _, _ in done],
        returns=[(int(r[0]), int(r[1])) for _, r, _ in done],
        seed=seed,
        player_names=Othello.PLAYER_NAMES,
        seconds=time.perf_counter() - started,
    )
    return HandoverMatch(time_per_move, endgame, result, [game for _, _, game in done])


# -- nodes searched against empty squares (the textbook search beside the engine) ---------------
SEARCHES = ("alpha-beta, moves in square order", "alpha-beta, fastest first", "package solver")


@dataclass(frozen=True)
class NodeCount:
    """One exact search of one position on a best line: who searched, at how many empties."""

    search: str
    empties: int
    nodes: int
    margin: int


def best_line(state: Othello, down_to: int) -> list[Othello]:
    """``state`` and the positions after each best move (the solver's) down to ``down_to``
    empty squares: FFO-like positions of every size, each with a known exact margin."""
    line = [state]
    while empty_squares(line[-1]) > down_to and not line[-1].is_terminal():
        move = EndgameSolver().solve(line[-1]).move
        assert move is not None
        line.append(line[-1].play(move))
    return line


def nodes_by_empties(
    positions: Sequence[SolvedPosition],
    down_to: int = 4,
    plain_up_to: int = 11,
    ordered_up_to: int = 13,
) -> list[NodeCount]:
    """Nodes searched to solve each position on the best lines of ``positions``: the textbook
    alpha-beta (:func:`~mcts_lab.textbook.solver.alphabeta_margin`) with the moves in square
    order and fastest first, up to the given empties (the build's time), and the package's
    solver at every size.  Each textbook margin is checked against the solver's."""
    from mcts_lab.textbook.solver import alphabeta_margin

    counts = []
    for position in positions:
        for state in best_line(position.state, down_to):
            empties, solution = empty_squares(state), EndgameSolver().solve(state)
            counts.append(NodeCount(SEARCHES[2], empties, solution.nodes, solution.margin))
            for search, order, top in (
                (SEARCHES[0], False, plain_up_to),
                (SEARCHES[1], True, ordered_up_to),
            ):
                if empties <= top:
                    nodes = [0]
                    margin = alphabeta_margin(state, order=order, nodes=nodes)
                    assert margin == solution.margin, "the textbook search disagrees"
                    counts.append(NodeCount(search, empties, nodes[0], margin))
    return counts


def nodes_figure(counts: Sequence[NodeCount]):
    """Nodes searched against empty squares, log scale: one point per position, and the
    geometric mean of each search at each size joined by a line."""
    import math

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for search, marker in zip(SEARCHES, "os^", strict=True):
        mine = [c for c in counts if c.search == search]
        sizes = sorted({c.empties for c in mine})
        means = [
            math.exp(statistics.fmean(math.log(c.nodes) for c in mine if c.empties == e))
            for e in sizes
        ]
        (line,) = ax.plot(sizes, means, marker=marker, label=search)
        ax.scatter(
            [c.empties for c in mine],
            [c.nodes for c in mine],
            s=10,
            alpha=0.35,
            color=line.get_color(),
        )
    ax.set_yscale("log")
    ax.set_xlabel("empty squares")
    ax.set_ylabel("positions searched (log scale)")
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3, which="major")
    return fig


def growth_per_empty(counts: Sequence[NodeCount], search: str, low: int, high: int) -> float:
    """The factor by which one more empty square multiplies ``search``'s nodes, from the
    geometric means at ``low`` and ``high`` empties."""
    import math

    def log_mean(e: int) -> float:
        return statistics.fmean(
            math.log(c.nodes) for c in counts if c.search == search and c.empties == e
        )

    return math.exp((log_mean(high) - log_mean(low)) / (high - low))


def margins_board(position: SolvedPosition):
    """The FFO position on the board, each legal move's cell coloured by its published exact
    margin for the player to move."""
    from mcts_course.render import draw_board

    reach = max(abs(m) for m in position.margins.values()) or 1  # white at 0: win or loss
    mover = position.state.PLAYER_NAMES[position.state.current_player]
    return draw_board(
        position.state,
        overlay=dict(position.margins),
        cmap="RdBu",
        fmt="{:+.0f}",
        vmin=-reach,
        vmax=reach,
        label="exact margin of the move",
        title=f"FFO #{position.number}: {mover} to move",
    )


def package_nodes_at_depth(
    positions: Sequence[SolvedPosition], shallow: int, sizes: range
) -> dict[int, float]:
    """The package solver's geometric-mean nodes at each of ``sizes`` empty squares, on the
    best lines of ``positions`` (as :func:`nodes_by_empties`), with its shallow loop (no move
    list, no ordering, no table) used only at ``shallow`` empties or fewer instead of the
    package's own threshold: what the fixed-order loop near the leaves costs in positions
    searched.  Each margin is checked against the package's own."""
    import math

    from mcts_course.agents import endgame

    states = [
        s
        for p in positions
        for s in best_line(p.state, min(sizes))  # the same lines: found before the patch
        if empty_squares(s) in sizes
    ]
    margins = [solve_endgame(s) for s in states]
    saved = endgame.SHALLOW
    endgame.SHALLOW = shallow  # a module constant read at every node; restored below
    try:
        logs: dict[int, list[float]] = {e: [] for e in sizes}
        for state, margin in zip(states, margins, strict=True):
            solution = EndgameSolver().solve(state)
            assert solution.margin == margin, "the margin changed"
            logs[empty_squares(state)].append(math.log(solution.nodes))
    finally:
        endgame.SHALLOW = saved
    return {e: math.exp(statistics.fmean(v)) for e, v in logs.items()}


def mean_nodes(counts: Sequence[NodeCount], search: str, empties: int) -> float:
    """The geometric mean of ``search``'s nodes over the positions with ``empties`` empties."""
    import math

    return math.exp(
        statistics.fmean(
            math.log(c.nodes) for c in counts if c.search == search and c.empties == empties
        )
    )
