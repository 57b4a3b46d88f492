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
    with_params,
)
from mcts_course.agents.endgame import empty_squares
from mcts_course.arena import MatchResult, game_seeds, play_game
from mcts_course.games import Othello
from mcts_lab import N_JOBS
from mcts_lab.ffo import Share, SolvedPosition, load_ffo
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
    solver's move and margin, its nodes and milliseconds."""
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
                s.seconds * 1000,
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
            "ms",
        ],
        rows,
        {"nodes": ",", "ms": ",.0f"},
        right=["#", "empty squares", "published margin", "solver's margin", "nodes", "ms"],
    )


@dataclass
class RootVersusExact:
    """One MCTS search in an FFO position, its root statistics beside the exact margins."""

    position: SolvedPosition
    iterations: int
    rows: list[dict]  # from MCTSAgent.root_table: action, move, visits, wins, mean, uct
    choice: int  # the most visited move

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


def root_versus_exact(position: SolvedPosition, iterations: int, seed: int = 0) -> RootVersusExact:
    """Search ``position`` with MCTS (``iterations``, ``seed``) and keep its root table."""
    agent = MCTSAgent(iterations, seed=seed)
    choice = agent.select_action(position.state)
    return RootVersusExact(position, iterations, agent.root_table(), choice)


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
    share = Share("MCTS, the solver's time", best, kept, len(jobs), every, seconds)
    return EqualTime(share, sum(i for _, i, _ in done) / len(done))


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
        interval, and the seconds per game each side spent thinking."""
        r = self.result
        lo, hi = r.interval
        return Table(
            [
                "time per move",
                "hand-over",
                "games",
                "hybrid: wins-draws-losses",
                "score",
                "95% interval",
                "s per game, hybrid",
                "s per game, MCTS",
            ],
            [
                [
                    f"{self.time_per_move:g} s",
                    f"{self.endgame} empty squares",
                    r.games,
                    f"{r.wins}-{r.draws}-{r.losses}",
                    r.score,
                    f"{lo:.0%} to {hi:.0%}",
                    self.seconds_per_game(0),
                    self.seconds_per_game(1),
                ]
            ],
            {"score": ".0%", "s per game, hybrid": ".2f", "s per game, MCTS": ".2f"},
            right=["games", "score", "s per game, hybrid", "s per game, MCTS"],
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
