"""The book's experiments: strength curves, a round robin, convergence on tic-tac-toe.

Each function plays seeded matches through :func:`mcts_course.arena.match`, so a chapter that
calls it gets the same numbers on every build, and the sentences that read the numbers come
from the functions here and in :mod:`mcts_lab.present` rather than from the author.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mcts_course.agents import exact
from mcts_course.arena import MatchResult, Player, match
from mcts_course.games import GameState, TicTacToe
from mcts_course.stats import Ratings, bradley_terry, crosstable, difference_interval
from mcts_lab import N_JOBS

# -- strength against budgets ----------------------------------------------------------------------


@dataclass
class Lead:
    """Who leads at one budget: the difference of two scores and its 95% interval."""

    budget: int
    difference: float
    low: float
    high: float

    @property
    def sign(self) -> int:
        """+1 if the first is ahead beyond the noise, -1 if behind, 0 if undecided."""
        return 1 if self.low > 0 else -1 if self.high < 0 else 0


def leads(first: dict[int, MatchResult], second: dict[int, MatchResult]) -> list[Lead]:
    """Budget by budget, the score of ``first`` minus the score of ``second`` (two independent
    matches against the same opponent), with Newcombe's interval for the difference."""
    out = []
    for budget in first:
        a, b = first[budget], second[budget]
        low, high = difference_interval(a.score, a.games, b.score, b.games)
        out.append(Lead(budget, a.score - b.score, low, high))
    return out


def drops(curve: dict[int, MatchResult]) -> list[tuple[int, int, Lead]]:
    """Pairs of budgets (smaller, larger) where the larger budget scored less beyond the noise
    (the interval of the difference lies below 0).  Every pair is compared, not only
    neighbours, so a slow decline is found too."""
    budgets = list(curve)
    found = []
    for i, small in enumerate(budgets):
        for large in budgets[i + 1 :]:
            a, b = curve[large], curve[small]
            low, high = difference_interval(a.score, a.games, b.score, b.games)
            if high < 0:
                found.append((small, large, Lead(large, a.score - b.score, low, high)))
    return found


# -- a round robin ---------------------------------------------------------------------------------
@dataclass
class Tournament:
    """Every pair's match, the crosstable and the Elo fit."""

    names: list[str]
    results: dict[tuple[int, int], MatchResult]
    points: np.ndarray
    games: np.ndarray
    ratings: Ratings
    seconds: float
    # per pair (i, j), with openings: agent i's score from each opening (two games, both colours)
    by_opening: dict[tuple[int, int], list[float]] = field(default_factory=dict)

    @property
    def scores(self) -> np.ndarray:
        """scores[i, j]: the score of agent i against agent j (NaN on the diagonal)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(
                self.games > 0, self.points / np.where(self.games, self.games, 1), np.nan
            )


def distinct_openings(
    game: type[GameState], count: int, plies: int, seed: int, attempts: int = 100_000
) -> list[GameState]:
    """``count`` different positions, each reached by ``plies`` uniformly random legal moves
    from the start (seeded; a sequence that ends the game is dropped).  Used as the unit of a
    match between deterministic agents, which would otherwise replay one game over and over."""
    rng = random.Random(seed)
    seen: set[tuple[int, ...]] = set()
    out: list[GameState] = []
    for _ in range(attempts):
        if len(out) == count:
            return out
        state, moves = game(), []
        for _ in range(plies):
            action = rng.choice(list(state.legal_actions()))
            moves.append(action)
            state = state.play(action)
            if state.is_terminal():
                break
        if not state.is_terminal() and tuple(moves) not in seen:
            seen.add(tuple(moves))
            out.append(state)
    raise ValueError(f"found only {len(out)} distinct openings of {plies} plies")


def _opening_pair(opening: GameState, a: Player, b: Player, seed: int) -> MatchResult:
    """Two games from one opening, each agent once with each colour."""
    return match(opening, a, b, games=2, seed=seed, n_jobs=1, keep_moves=True, progress=False)


def _merged(parts: Sequence[MatchResult]) -> MatchResult:
    """One result holding the games of ``parts`` (their own starts are kept in the parts)."""
    first = parts[0]
    return MatchResult(
        game=first.game,
        names=first.names,
        a_player=[p for r in parts for p in r.a_player],
        returns=[x for r in parts for x in r.returns],
        seed=first.seed,
        player_names=first.player_names,
        moves=[m for r in parts for m in r.moves],
        start=None,
        seconds=sum(r.seconds for r in parts),
    )


def round_robin(
    game: type[GameState],
    agents: Sequence[Player],
    games: int,
    seed: int,
    n_jobs: int | None = N_JOBS,
    openings: Sequence[GameState] | None = None,
) -> Tournament:
    """Every agent against every other, ``games`` games per pair with colours alternated; or,
    with ``openings``, two games per opening and pair (each agent once with each colour), so
    that the unit is the opening and no game is a replay of another (``games`` is then
    ignored)."""
    names = [agent.name for agent in agents]
    results, table, by_opening = {}, {}, {}
    k = 0
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            if openings is None:
                r = match(
                    game,
                    agents[i],
                    agents[j],
                    games=games,
                    seed=seed + k,
                    n_jobs=n_jobs,
                    keep_moves=False,
                )
            else:
                from joblib import Parallel, delayed

                parts = Parallel(n_jobs=n_jobs)(
                    delayed(_opening_pair)(o, agents[i], agents[j], seed + 1000 * k + n)
                    for n, o in enumerate(openings)
                )
                by_opening[(i, j)] = [p.score for p in parts]
                r = _merged(parts)
            results[(i, j)] = r
            table[(i, j)] = (r.wins + r.draws / 2, r.games)
            k += 1
    points, played = crosstable(names, table)
    ratings = bradley_terry(names, points, played)
    seconds = sum(r.seconds for r in results.values())
    return Tournament(names, results, points, played, ratings, seconds, by_opening)


# -- tic-tac-toe, solved ---------------------------------------------------------------------------
# The package's one exact solver (mcts_course.agents.exact), under the names the chapters use.
exact_value = exact.exact_value
move_values = exact.move_values


def reachable_states(start: GameState) -> list[GameState]:
    """Every non-terminal state reachable from ``start`` (each once), in breadth-first order."""
    seen = {start}
    frontier, out = [start], []
    while frontier:
        nxt = []
        for state in frontier:
            if state.is_terminal():
                continue
            out.append(state)
            for action in state.legal_actions():
                child = state.play(action)
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        frontier = nxt
    return out


def choice_matters(state: GameState) -> bool:
    """Do the legal moves of ``state`` differ in exact value (can the mover go wrong)?"""
    return len(set(move_values(state).values())) > 1


def decisive_positions(game: type[GameState] = TicTacToe) -> list[GameState]:
    """Every reachable position of ``game`` where the choice of move matters."""
    return [s for s in reachable_states(game()) if choice_matters(s)]


def root_value(root) -> float:
    """MCTS's estimate of the root position for the player to move, in [0, 1]: the mean
    reward of all playouts through the root's children."""
    visits = sum(child.visits for child in root.children.values())
    wins = sum(child.wins for child in root.children.values())
    return wins / visits if visits else math.nan


def to_unit(value: float) -> float:
    """An exact value in [-1, 1] on the reward scale [0, 1] (win 1, draw 1/2, loss 0)."""
    return (value + 1) / 2


@dataclass
class Trap:
    """A position where flat Monte Carlo picks a losing move and MCTS does not."""

    state: GameState
    flat_move: int  # the move flat Monte Carlo picked in every seed
    flat_mean: float  # its estimated mean reward, averaged over the seeds
    flat_picks: int  # seeds in which flat Monte Carlo picked it
    mcts_optimal: int  # seeds in which MCTS picked a move of the best exact value
    seeds: int
    values: dict[int, int]


def find_trap(
    positions: Iterable[GameState],
    make_flat: Callable[[int], Player],
    make_mcts: Callable[[int], Player],
    seeds: int = 5,
) -> Trap | None:
    """The first position (in the given order) where flat Monte Carlo picks the same losing
    move in every seed, although a move of better value exists, and MCTS picks a best move in
    every seed."""
    for state in positions:
        values = move_values(state)
        best = max(values.values())
        if best < 0:
            continue  # every move loses: nothing to get wrong
        flat = make_flat(0)
        move = flat.select_action(state)
        if values[move] >= 0:
            continue  # cheap first filter: one seed
        picks, means = 0, []
        for s in range(seeds):
            flat = make_flat(s)
            picks += flat.select_action(state) == move
            means.extend(row["mean"] for row in flat.last_stats if row["action"] == move)
        if picks < seeds:
            continue
        optimal = sum(values[make_mcts(s).select_action(state)] == best for s in range(seeds))
        if optimal == seeds:
            return Trap(state, move, float(np.mean(means)), picks, optimal, seeds, values)
    return None


def sample(items: Sequence, k: int, seed: int) -> list:
    """``k`` items drawn without replacement (all of them if there are fewer), in their order."""
    if k >= len(items):
        return list(items)
    chosen = sorted(random.Random(seed).sample(range(len(items)), k))
    return [items[i] for i in chosen]


@dataclass
class Convergence:
    """Shares of best moves and MCTS's root error, per budget, over a set of positions."""

    budgets: list[int]
    positions: int
    mcts_share: list[float]
    flat_share: list[float]
    random_share: float  # the share a uniformly random move achieves on average
    root_error: list[float]  # mean |MCTS root value - exact value| on the [0, 1] scale


def convergence(
    positions: Sequence[GameState],
    budgets: Sequence[int],
    make_mcts: Callable[[int, int], Player],
    make_flat: Callable[[int, int], Player],
    seed: int = 0,
) -> Convergence:
    """Play every position with MCTS and flat Monte Carlo at each budget (``make_*(budget,
    seed)``); count moves of the best exact value and MCTS's error on the root's value."""
    mcts_share, flat_share, root_error = [], [], []
    random_share = float(
        np.mean(
            [
                sum(v == max(vals.values()) for v in vals.values()) / len(vals)
                for vals in (move_values(s) for s in positions)
            ]
        )
    )
    for budget in budgets:
        hits_m = hits_f = 0
        errors = []
        for k, state in enumerate(positions):
            values = move_values(state)
            best = max(values.values())
            mcts = make_mcts(budget, seed + k)
            hits_m += values[mcts.select_action(state)] == best
            errors.append(abs(root_value(mcts.last_root) - to_unit(exact_value(state))))
            hits_f += values[make_flat(budget, seed + k).select_action(state)] == best
        mcts_share.append(hits_m / len(positions))
        flat_share.append(hits_f / len(positions))
        root_error.append(float(np.mean(errors)))
    return Convergence(
        list(budgets), len(positions), mcts_share, flat_share, random_share, root_error
    )
