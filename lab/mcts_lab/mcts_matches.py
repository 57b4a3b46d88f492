"""MCTS in matches: the earlier course's results replayed, MCTS against flat Monte Carlo budget by
budget (Connect Four and Othello), and a round robin of the book's agents at equal time.

Every match goes through :func:`mcts_course.arena.match` with a fixed seed and colours
alternated, so a chapter that calls these functions gets the same games on every build (the
round robin at equal time excepted: how far a search gets in 10 ms depends on the machine).
Budgets of the Monte Carlo agents are **playouts per decision, in total** (MCTS: iterations).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mcts_course.agents import (
    AlphaBetaAgent,
    CellScoreAgent,
    MCTSAgent,
    MinimaxAgent,
    MonteCarloAgent,
    RandomAgent,
)
from mcts_course.arena import MatchResult, match, play_game
from mcts_course.games import ConnectFour, GameState, Othello
from mcts_course.stats import CONFIDENCE, bradley_terry
from mcts_lab import N_JOBS
from mcts_lab.earlier import EarlierMCTS, disc_count_minimax, earlier_flat, lecture_minimax
from mcts_lab.experiments import Tournament, distinct_openings, round_robin
from mcts_lab.present import earlier_table, error_bars, inside, span, told_apart, versus_reported

# The sizes the chapter uses (tests/test_book_claims.py checks the promised minimums).
GAMES_EARLIER = 60  # per earlier match (the earlier pages played 100)
GAMES_RERUN = 40  # per rerun with one of the earlier code's differences
CURVE_BUDGETS = (10, 30, 100, 300, 1000, 3000)  # playouts per decision, in total
# Games per point: 100 where the question is close, fewer at 3,000 (decided by far, and a
# game there costs more than all the others together).
CURVE_GAMES = {10: 100, 30: 100, 100: 100, 300: 100, 1000: 100, 3000: 50}
CURVE_SEED = 400
OTHELLO_BUDGETS = (100, 300, 1000)
OTHELLO_GAMES = {100: 100, 300: 100, 1000: 100}
OTHELLO_SEED = 21
TIME_PER_MOVE = 0.01  # seconds, for each agent that can use time
OPENINGS = 25  # distinct Connect Four openings per pair of the round robin, two games each
OPENING_PLIES = 4  # random plies that make an opening
GAMES_PAIR = 2 * OPENINGS  # games per pair of the round robin


# -- the earlier course's matches ----------------------------------------------------------------
def earlier_mcts(iterations: int) -> MCTSAgent:
    """The package's MCTS with the earlier page's settings: expand after more than 20 visits,
    playouts of 21 plies (counted as their code counts them)."""
    agent = MCTSAgent(iterations, expand_threshold=21, playout_depth=21)
    agent.name = f"MCTS({iterations})"
    return agent


@dataclass
class EarlierRow:
    """One earlier match: our result and the one the earlier page reported (in 100 games)."""

    label: str
    result: MatchResult
    wins: int
    losses: int

    @property
    def reported(self) -> float:
        return (self.wins + (100 - self.wins - self.losses) / 2) / 100

    @property
    def inside(self) -> bool:
        return inside(self.result, self.wins, self.losses)

    def difference(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The two-sample interval of our score minus the reported one."""
        return versus_reported(self.result, self.wins, self.losses, confidence)


def earlier_matches(
    games: int = GAMES_EARLIER, seed: int = 70, n_jobs: int | None = N_JOBS
) -> dict[str, EarlierRow]:
    """The earlier page's three matches at 200 iterations: against random play, minimax with
    depth 2 (cell scores) and its flat Monte Carlo with 200 playouts (cut after 20 plies)."""
    spec = {  # label: (opponent, their wins, their losses)
        "vs random": (RandomAgent(), 94, 5),
        "vs minimax depth 2": (MinimaxAgent(depth=2), 32, 67),
        "vs flat MC(200)": (earlier_flat(200), 63, 34),
    }
    return {
        label: EarlierRow(
            label,
            match(
                Othello,
                earlier_mcts(200),
                other,
                games=games,
                seed=seed + k,
                n_jobs=n_jobs,
                keep_moves=False,
            ),
            w,
            lo,
        )
        for k, (label, (other, w, lo)) in enumerate(spec.items())
    }


def earlier_reruns(
    games: int = GAMES_RERUN, seed: int = 80, n_jobs: int | None = N_JOBS
) -> dict[str, MatchResult]:
    """The match against minimax with depth 2, rerun with differences of the earlier code: their
    MCTS (no change of perspective *and* the global log count: two changes at once), a minimax
    counting discs, a minimax looking 3 plies ahead (as the lecture notes' code does), and their
    MCTS with the package's change of perspective (the global log count alone), which separates
    the two changes of the first rerun."""
    runs = {
        "their MCTS vs minimax depth 2": (EarlierMCTS(200), MinimaxAgent(depth=2)),
        "MCTS vs minimax counting discs": (earlier_mcts(200), disc_count_minimax()),
        "MCTS vs minimax 3 plies": (earlier_mcts(200), lecture_minimax()),
        "their count only vs minimax depth 2": (EarlierMCTS(200, flip=True), MinimaxAgent(depth=2)),
    }
    return {
        label: match(Othello, a, b, games=games, seed=seed + k, n_jobs=n_jobs, keep_moves=False)
        for k, (label, (a, b)) in enumerate(runs.items())
    }


def earlier_markdown(rows: Mapping[str, EarlierRow], confidence: float = CONFIDENCE):
    """The earlier results next to ours, as a Markdown table, with the two-sample interval of
    each difference at ``confidence``."""
    from IPython.display import Markdown

    return Markdown(
        earlier_table(
            [(f"MCTS(200) {r.label}", r.result, r.wins, r.losses) for r in rows.values()],
            confidence,
        )
    )


def reruns_markdown(
    reruns: Mapping[str, MatchResult], reported: EarlierRow, confidence: float = CONFIDENCE
):
    """The reruns as a Markdown table: result, score and 95% interval, and the difference from
    the reported result (``reported``'s) with its two-sample interval at ``confidence``."""
    from IPython.display import Markdown

    lines = [
        "| rerun | result | score | 95% interval "
        f"| minus their {reported.reported:.1%} ({confidence:.1%} interval) |",
        "|---|--:|--:|--:|--:|",
    ]
    for label, r in reruns.items():
        lo, hi = r.interval
        d_lo, d_hi = versus_reported(r, reported.wins, reported.losses, confidence)
        lines.append(
            f"| {label} | {r.wins}-{r.losses} ({r.games} games) | {r.score:.1%} | "
            f"{span(lo, hi)} | {r.score - reported.reported:+.1%} "
            f"({span(d_lo, d_hi, signed=True)}) |"
        )
    return Markdown("\n".join(lines))


# -- MCTS against flat Monte Carlo, budget by budget ---------------------------------------------
def othello_duel(n_jobs: int | None = N_JOBS, keep_moves: bool = False) -> dict[int, MatchResult]:
    """The duel on Othello, at the budgets and sizes of the chapter."""
    return duel(Othello, OTHELLO_BUDGETS, OTHELLO_GAMES, OTHELLO_SEED, n_jobs, keep_moves)


sign = told_apart  # the chapter's name: +1, -1 or 0 as the interval lies above, below or on 1/2


def _games(games: int | Mapping[int, int], budget: int) -> int:
    return games if isinstance(games, int) else games[budget]


def duel(
    game: type[GameState] = ConnectFour,
    budgets: Sequence[int] = CURVE_BUDGETS,
    games: int | Mapping[int, int] = CURVE_GAMES,
    seed: int = CURVE_SEED,
    n_jobs: int | None = N_JOBS,
    keep_moves: bool = False,
) -> dict[int, MatchResult]:
    """MCTS against flat Monte Carlo (UCB1 over the moves), both with the same playouts per
    decision, one match per budget (colours alternated)."""
    return {
        b: match(
            game,
            MCTSAgent(b),
            MonteCarloAgent(b, policy="ucb1"),
            games=_games(games, b),
            seed=seed + k,
            n_jobs=n_jobs,
            keep_moves=keep_moves,
        )
        for k, b in enumerate(budgets)
    }


def _log_budgets(ax, budgets: Sequence[int]) -> None:
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.set_xticks(list(budgets), [f"{b:,}" for b in budgets])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _plot_curve(ax, curve: Mapping[int, MatchResult], fmt: str, label: str | None) -> None:
    xs = list(curve)
    ys = [curve[b].score for b in xs]
    ax.errorbar(
        xs,
        ys,
        yerr=error_bars(ys, [curve[b].interval for b in xs]),
        fmt=fmt,
        capsize=4,
        label=label,
    )


def plot_duel(results: Mapping[int, MatchResult], title: str):
    """One duel curve: MCTS's score against flat Monte Carlo per budget, with 95% Wilson
    intervals; the tick labels give every point's number of games."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, NullLocator

    fig, ax = plt.subplots(figsize=(6, 3.8))
    _plot_curve(ax, results, "^-", None)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    budgets = list(results)
    ax.set_xscale("log")
    ax.set_xticks(budgets, [f"{b:,}\n{results[b].games} games" for b in budgets], fontsize=8)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(min(budgets) / 1.6, max(budgets) * 1.6)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("playouts per decision (in total)")
    ax.set_ylabel("MCTS's score against flat MC")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


# -- a round robin at equal time ------------------------------------------------------------------
NAMES = ["random", "cell score", "minimax 2", "alpha-beta ID", "flat MC", "MCTS"]
NEEDS = {
    "random": "nothing",
    "cell score": "a table of expert weights, no search",
    "minimax 2": "an evaluation function; time exponential in the depth",
    "alpha-beta ID": "an evaluation function; any time limit, as deep as it gets",
    "flat MC": "only the rules and many playouts",
    "MCTS": "only the rules, many playouts and memory for a tree",
}


def equal_time_field(time_per_move: float = TIME_PER_MOVE) -> list:
    """The book's agents; those that can use time get ``time_per_move`` seconds."""
    field = [
        RandomAgent(),
        CellScoreAgent(),
        MinimaxAgent(depth=2),
        AlphaBetaAgent(time_limit=time_per_move),
        MonteCarloAgent(time_limit=time_per_move, policy="ucb1"),
        MCTSAgent(time_limit=time_per_move),
    ]
    for agent, name in zip(field, NAMES, strict=True):
        agent.name = name
    return field


def equal_time_round_robin(
    game: type[GameState] = ConnectFour,
    time_per_move: float = TIME_PER_MOVE,
    games: int = GAMES_PAIR,
    seed: int = 500,
    n_jobs: int | None = N_JOBS,
) -> Tournament:
    """Every agent of :func:`equal_time_field` against every other, from the same
    ``games // 2`` distinct openings (random first plies), each played twice with colours
    swapped: deterministic agents then play different games, and the opening is the unit."""
    openings = distinct_openings(game, games // 2, OPENING_PLIES, seed)
    return round_robin(game, equal_time_field(time_per_move), games, seed, n_jobs, openings)


def pair_scores(tournament: Tournament, first: str, second: str) -> list[float]:
    """``first``'s score against ``second`` from each opening (two games, both colours)."""
    i, j = tournament.names.index(first), tournament.names.index(second)
    if (i, j) in tournament.by_opening:
        return tournament.by_opening[(i, j)]
    return [1 - x for x in tournament.by_opening[(j, i)]]


def plot_crosstable(
    tournament: Tournament,
    game: str = "Connect Four",
    time_per_move: float = TIME_PER_MOVE,
    games: int = GAMES_PAIR,
):
    """The crosstable as a heat map: the score of the row's agent against the column's."""
    import matplotlib.pyplot as plt

    names = tournament.names
    scores = tournament.scores
    fig, ax = plt.subplots(figsize=(6.2, 5))
    image = ax.imshow(scores, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                ax.text(j, i, f"{scores[i, j]:.0%}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=35, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent")
    fig.colorbar(image, ax=ax, label="score of the row's agent")
    ax.set_title(f"{game}, {time_per_move * 1000:g} ms per move, {games} games a pair", fontsize=10)
    fig.tight_layout()
    return fig


ELO_RESAMPLES = 2000  # bootstrap resamples of the openings for the rating intervals
_ELO_DRAWS: dict[int, tuple[Tournament, np.ndarray]] = {}


def elo_draws(tournament: Tournament, resamples: int = ELO_RESAMPLES, seed: int = 0) -> np.ndarray:
    """Bootstrap ratings above random play, one row per resample, one column per agent.

    The opening is the unit: every pair played the same openings, so a resample draws openings
    with replacement and keeps, for each drawn opening, the two games of every pair from it;
    the Bradley-Terry fit is then redone on the resampled crosstable.  Games from one opening
    are not independent (the deterministic agents replay them), which is why the Fisher
    information of the fit, which counts every game as a unit, is not used for the intervals."""
    cached = _ELO_DRAWS.get(id(tournament))
    if cached is not None and cached[0] is tournament:
        return cached[1]
    k = len(tournament.names)
    count = len(next(iter(tournament.by_opening.values())))
    scores = {pair: np.asarray(v, dtype=float) for pair, v in tournament.by_opening.items()}
    anchor = tournament.names.index("random")
    rng = np.random.default_rng(seed)
    draws = np.empty((resamples, k))
    for r in range(resamples):
        drawn = rng.integers(0, count, size=count)
        points, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), v in scores.items():
            points[i, j] = 2 * v[drawn].sum()  # two games an opening, score the mean of both
            points[j, i] = 2 * count - points[i, j]
            games[i, j] = games[j, i] = 2 * count
        ratings = bradley_terry(tournament.names, points, games)
        draws[r] = ratings.elo - ratings.elo[anchor]
    _ELO_DRAWS[id(tournament)] = (tournament, draws)
    return draws


def elo(tournament: Tournament, name: str) -> tuple[float, float, float]:
    """An agent's rating above random play, with its 95% bootstrap interval over the openings."""
    r = tournament.ratings
    i, anchor = tournament.names.index(name), tournament.names.index("random")
    low, high = np.quantile(elo_draws(tournament)[:, i], [0.025, 0.975])
    return float(r.elo[i] - r.elo[anchor]), float(low), float(high)


def separated(tournament: Tournament, first: str, second: str) -> int:
    """+1 if ``first`` is rated above ``second`` beyond the noise (the 95% bootstrap interval of
    the difference of their ratings, over the openings, lies above 0), -1 below, else 0."""
    i, j = tournament.names.index(first), tournament.names.index(second)
    draws = elo_draws(tournament)
    low, high = np.quantile(draws[:, i] - draws[:, j], [0.025, 0.975])
    return 1 if low > 0 else -1 if high < 0 else 0


@dataclass
class Costs:
    """Per agent of the field: seconds per move, averaged over the positions of one random
    game (forced moves left out); for the two Monte Carlo agents also the playouts a decision
    got on average."""

    seconds: dict[str, float]
    playouts: dict[str, float]


def cost_per_move(
    game: type[GameState] = ConnectFour,
    time_per_move: float = TIME_PER_MOVE,
    seed: int = 1,
    repeats: int = 3,
) -> Costs:
    """Time every agent of :func:`equal_time_field` on the positions of one random game, each
    position ``repeats`` times."""
    record = play_game(game(), RandomAgent(seed=seed), RandomAgent(seed=seed + 1))
    probes = [s for s in record.states if not s.is_terminal() and len(s.legal_actions()) > 1]
    field = equal_time_field(time_per_move)
    spent = {agent.name: 0.0 for agent in field}
    done = {agent.name: 0 for agent in field}
    # The agents take turns on each position (rather than one agent after another), so that a
    # change in the machine's load while this runs falls on all of them alike.
    for _ in range(repeats):
        for state in probes:
            for agent in field:
                started = time.perf_counter()
                agent.select_action(state)
                spent[agent.name] += time.perf_counter() - started
                if isinstance(agent, MCTSAgent):
                    done[agent.name] += agent.last_iterations
                elif isinstance(agent, MonteCarloAgent):
                    done[agent.name] += sum(row["visits"] for row in agent.last_stats)
    moves = repeats * len(probes)
    seconds = {name: t / moves for name, t in spent.items()}
    playouts = {
        agent.name: done[agent.name] / moves
        for agent in field
        if isinstance(agent, MCTSAgent | MonteCarloAgent)
    }
    return Costs(seconds, playouts)


def methods_markdown(tournament: Tournament, cost: Costs):
    """What each agent needs, costs per move and buys (Elo above random), strongest first."""
    from IPython.display import Markdown

    lines = [
        "| agent | needs | time per move | Elo above random (95%, over the openings) |",
        "|---|---|--:|--:|",
    ]
    for i in tournament.ratings.order():
        name = tournament.names[i]
        e, lo, hi = elo(tournament, name)
        # Random play is the anchor of the scale: 0 in every resample, so no interval.
        rating = "0 (the anchor)" if name == "random" else f"{e:+.0f} ({lo:+.0f} to {hi:+.0f})"
        lines.append(f"| {name} | {NEEDS[name]} | {cost.seconds[name] * 1000:.2f} ms | {rating} |")
    return Markdown("\n".join(lines))
