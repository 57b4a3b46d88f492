"""The experiments of the chapter "Properties of MCTS": anytime play, the narrow trap, one agent
for every game, and what smarter playouts do to the search.

Every function plays seeded games or searches, so the chapter gets the same numbers on every
build (the timings printed beside them depend on the machine).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcts_course.agents import MCTSAgent, MonteCarloAgent
from mcts_course.agents.exact import PerfectAgent, move_values
from mcts_course.agents.minimax import SearchStats, minimax_value
from mcts_course.agents.rollout import reward
from mcts_course.arena import MatchResult, match
from mcts_course.games import GameState, TicTacToe
from mcts_course.stats import CONFIDENCE, wilson_interval
from mcts_lab import N_JOBS
from mcts_lab.present import Table, error_bars, game_title

TRAP_MOVES = "a1 b2 c3"  # X holds two opposite corners, O the centre; O to move


def not_lost(result: MatchResult) -> tuple[float, tuple[float, float]]:
    """The share of games of ``result`` that its first player did not lose, with its 95%
    Wilson interval."""
    share = 1 - result.losses / result.games
    return share, wilson_interval(share, result.games)


# -- anytime: strength against iterations ----------------------------------------------------------
@dataclass
class Anytime:
    """MCTS with a growing number of iterations per move against perfect tic-tac-toe play."""

    budgets: list[int]
    results: dict[int, MatchResult]
    microseconds: float  # per iteration, on the empty board, on this machine

    @property
    def not_lost(self) -> list[float]:
        return [not_lost(self.results[b])[0] for b in self.budgets]

    @property
    def intervals(self) -> list[tuple[float, float]]:
        return [not_lost(self.results[b])[1] for b in self.budgets]

    def plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 3.8))
        ys = self.not_lost
        ax.errorbar(self.budgets, ys, yerr=error_bars(ys, self.intervals), marker="o", capsize=3)
        ax.set_xscale("log")
        ax.set_xticks(self.budgets, [f"{b:,}" for b in self.budgets])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        games = self.results[self.budgets[0]].games
        ax.set_xlabel(f"iterations per move (about {self.microseconds:.0f} µs each here)")
        ax.set_ylabel(f"share of {games} games not lost")
        ax.set_title("MCTS stopped after n iterations, against perfect tic-tac-toe play")
        return ax


def anytime(budgets: Sequence[int], games: int, seed: int, n_jobs: int | None = N_JOBS) -> Anytime:
    """``games`` games of MCTS (``budget`` iterations per move) against :class:`PerfectAgent`
    (colours alternating) for each budget, and the cost of one iteration."""
    results = {
        b: match(
            TicTacToe,
            MCTSAgent(b),
            PerfectAgent(),
            games=games,
            seed=seed + k,
            n_jobs=n_jobs,
            keep_moves=False,
        )
        for k, b in enumerate(budgets)
    }
    agent = MCTSAgent(2_000, seed=seed)
    started = time.process_time()
    agent.search(TicTacToe())
    return Anytime(list(budgets), results, (time.process_time() - started) / 2_000 * 1e6)


# -- the narrow trap -------------------------------------------------------------------------------
def trap_position() -> TicTacToe:
    return TicTacToe.from_moves(TRAP_MOVES)


def random_play_values(state: GameState) -> dict[int, float]:
    """For each move, the mean reward of a random playout after it for the player to move (win
    1, draw 1/2, loss 0), computed exactly: the average over every random continuation, each
    weighted by its probability.  It is what a move's playout mean converges to."""
    me = state.current_player

    @cache
    def value(s: GameState) -> float:
        if s.is_terminal():
            return reward(s.returns(), me)
        actions = s.legal_actions()
        return sum(value(s.play(a)) for a in actions) / len(actions)

    return {a: value(state.play(a)) for a in state.legal_actions()}


@dataclass
class Trap:
    """The narrow trap: exact values, playout means, and how often each search avoids it."""

    state: GameState
    values: dict[int, int]  # exact value of each move for the mover
    means: dict[int, float]  # the exact mean of a random playout after each move
    budgets: list[int]
    seeds: int
    mcts_safe: list[int]  # searches (of ``seeds``) that chose a move that does not lose
    flat_safe: list[int]
    depth_seen: int  # the depth at which full-width minimax without evaluation avoids it
    nodes_seen: int  # positions that search visits

    @property
    def safe(self) -> set[int]:
        return {a for a, v in self.values.items() if v >= 0}

    @property
    def random_share(self) -> float:
        return len(self.safe) / len(self.values)

    def share(self, which: str) -> list[float]:
        counts = self.mcts_safe if which == "mcts" else self.flat_safe
        return [c / self.seeds for c in counts]

    def intervals(self, which: str, confidence: float = CONFIDENCE) -> list[tuple[float, float]]:
        """Wilson's interval at each budget over the ``seeds`` searches of this one position
        (``confidence`` widened by the caller when several budgets are read together)."""
        return [wilson_interval(s, self.seeds, confidence) for s in self.share(which)]

    def plot(self, confidence: float = CONFIDENCE):
        import matplotlib.pyplot as plt

        from mcts_course.render import draw_board

        fig, axes = plt.subplots(
            1, 3, figsize=(15, 4.0), gridspec_kw={"width_ratios": [1, 1.2, 1.6]}
        )
        draw_board(
            self.state,
            ax=axes[0],
            overlay={a: float(v) for a, v in self.values.items()},
            cmap="RdYlGn",
            vmin=-1,
            vmax=1,
            fmt="{:+.0f}",
            colorbar=False,
            title="exact value of each move for O",
        )
        moves = sorted(self.means, key=lambda a: self.state.action_to_string(a))
        names = [self.state.action_to_string(a) for a in moves]
        colours = ["#c44e52" if self.values[a] < 0 else "#4c72b0" for a in moves]
        means = [self.means[a] for a in moves]
        bars = axes[1].bar(names, means, color=colours)
        # The axis starts at 0, as every bar chart of the book: the gap between the corners and
        # the edges is small, and the printed values, not the bars' heights, carry it.
        axes[1].bar_label(bars, labels=[f"{m:.3f}" for m in means], padding=2)
        axes[1].set_ylim(0, 1)
        axes[1].axhline(0.5, color="#999999", linestyle=":", linewidth=1)
        axes[1].set_ylabel("exact mean of a random playout, for O")
        axes[1].set_title("losing corners (red) score highest", fontsize=10)
        for which, label in (("mcts", "MCTS"), ("flat", "flat MC (uniform)")):
            ys = self.share(which)
            axes[2].errorbar(
                self.budgets,
                ys,
                yerr=error_bars(ys, self.intervals(which, confidence)),
                marker="o",
                capsize=3,
                label=label,
            )
        axes[2].axhline(
            self.random_share, color="#999999", linestyle="--", label="a random legal move"
        )
        axes[2].set_xscale("log")
        axes[2].set_xticks(self.budgets, [f"{b:,}" for b in self.budgets])
        axes[2].minorticks_off()
        axes[2].set_ylim(0, 1.05)
        axes[2].set_xlabel("playouts per decision (MCTS: iterations)")
        axes[2].set_ylabel(
            f"share of {self.seeds} searches not losing ({confidence:.2%} intervals)"
        )
        axes[2].legend(loc="lower left")
        fig.tight_layout()
        return fig


def _no_evaluation(state: GameState, player: int) -> float:
    """A position's value at the horizon when nothing is known: its result if the game is
    over, else a draw."""
    return reward(state.returns(), player) - 0.5 if state.is_terminal() else 0.0


def narrow_trap(budgets: Sequence[int], seeds: int, seed: int = 0) -> Trap:
    """The trap position: its exact values, the exact playout mean of each move, how many of
    ``seeds`` searches of MCTS and of flat Monte Carlo (its uniform allocation, the same number
    of playouts per decision) avoid the losing moves, and the depth (and positions visited) at which
    full-width minimax with no evaluation proves them worse."""
    state = trap_position()
    values = move_values(state)
    safe = {a for a, v in values.items() if v >= 0}
    means = random_play_values(state)
    mcts = [
        sum(MCTSAgent(n, seed=seed + s).select_action(state) in safe for s in range(seeds))
        for n in budgets
    ]
    flat = [
        sum(
            MonteCarloAgent(n, policy="uniform", seed=seed + s).select_action(state) in safe
            for s in range(seeds)
        )
        for n in budgets
    ]
    for depth in range(1, 10):  # the first depth at which every losing move scores below
        stats = SearchStats(nodes=1)  # the others (a tie broken the right way is no proof)
        scores = {
            a: minimax_value(state.play(a), depth - 1, _no_evaluation, state.current_player, stats)
            for a in values
        }
        if max(scores[a] for a in values if a not in safe) < min(scores[a] for a in safe):
            break
    return Trap(state, values, means, list(budgets), seeds, mcts, flat, depth, stats.nodes)


# -- one agent for every game ----------------------------------------------------------------------
LOSING, BEST = "#c0392b", "#1e8449"  # frame colours: moves that lose, best moves
FFO_NUMBER = 1  # the first FFO position: Othello, 14 empty squares (chapter 14's test set)
PONS_SET, PONS_LINE = "Middle-Easy", 0  # the first position of Pons' Middle-Easy set


@dataclass
class Panel:
    """One search of one position, beside the exact value of every move.

    ``values`` are for the player to move: Othello's exact final disc margin, in the other games
    +1 win, 0 draw, -1 loss.  ``source`` says where the position comes from."""

    state: GameState
    source: str
    values: dict[int, int]
    visits: dict[int, int]
    choice: int

    @property
    def best(self) -> int:
        return max(self.values.values())

    @property
    def best_moves(self) -> list[int]:
        return [a for a, v in self.values.items() if v == self.best]

    @property
    def losing(self) -> list[int]:
        """The moves that give the position's outcome away (a win or a draw turned worse)."""
        return [a for a, v in self.values.items() if _sign(v) < _sign(self.best)]

    @property
    def total(self) -> int:
        return sum(self.visits.values())

    def name(self, action: int) -> str:
        return self.state.action_to_string(action)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def exact_positions() -> list[tuple[GameState, str, dict[int, int]]]:
    """The three positions of the figure with the exact value of every move: FFO #1 (margins
    solved by the package's endgame solver), the first position of Pons' Middle-Easy set (the
    package's exact search; :func:`pons_check` compares it with Pons' published score) and the
    tic-tac-toe trap (exact search)."""
    from mcts_course.agents.endgame import endgame_margins
    from mcts_lab.ffo import load_ffo
    from mcts_lab.pons_offline import CentreFirst, read_set, state_of

    ffo = load_ffo()[FFO_NUMBER - 1].state
    moves, _ = read_set(PONS_SET)[PONS_LINE]
    # Centre-first move order: the same values, a much shorter exact search.
    connect4 = {
        int(a): v
        for a, v in move_values(CentreFirst.from_moves([int(c) - 1 for c in moves])).items()
    }
    return [
        (ffo, f"FFO #{FFO_NUMBER}", endgame_margins(ffo)),
        (state_of(moves), f"Pons {PONS_SET} #{PONS_LINE + 1}", connect4),
        (trap_position(), "the trap", move_values(trap_position())),
    ]


def pons_check() -> tuple[int, int]:
    """(Pons' published class of the Connect Four panel's position, the package's): +1 win,
    0 draw, -1 loss for the player to move."""
    from mcts_course.agents.exact import exact_value
    from mcts_lab.pons_offline import CentreFirst, class_of, read_set

    moves, score = read_set(PONS_SET)[PONS_LINE]
    return class_of(score), exact_value(CentreFirst.from_moves([int(c) - 1 for c in moves]))


def visits_against_exact(iterations: int = 2_000, seed: int = 1) -> list[Panel]:
    """The same ``MCTSAgent`` (``iterations``, ``seed``) in the three positions of
    :func:`exact_positions`: its visits and its move beside the exact values."""
    panels = []
    for state, source, values in exact_positions():
        agent = MCTSAgent(iterations, seed=seed)
        choice = agent.select_action(state)
        root = agent.last_root
        assert root is not None  # set by select_action
        visits = {a: child.visits for a, child in root.children.items()}
        panels.append(Panel(state, source, values, visits, choice))
    return panels


def _cell(state: GameState, action: int) -> tuple[int, int]:
    """The (row, column) of a move that has a square (every move of these positions)."""
    cell = state.cell_of(action)
    if cell is None:
        raise ValueError(f"{state.action_to_string(action)} has no square")
    return cell


def _outline(ax: Any, state: GameState, action: int, colour: str) -> None:
    """A frame around a move's cell (Connect Four: around its column's box)."""
    from matplotlib.patches import Rectangle

    if state.NAME == "connect4":
        box = Rectangle((action + 0.03, -1.13), 0.94, 0.94, fill=False, ec=colour, lw=3, zorder=6)
    else:
        row, col = _cell(state, action)
        box = Rectangle((col + 0.05, row + 0.05), 0.9, 0.9, fill=False, ec=colour, lw=3, zorder=6)
    ax.add_artist(box)


def _value_label(ax: Any, state: GameState, action: int, text: str, colour: str) -> None:
    """The exact value under the visits: in the cell, or under Connect Four's column number,
    on a white patch so that it reads on dark cells too."""
    patch = {"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.9}
    if state.NAME == "connect4":
        x, y, size = action + 0.5, state.ROWS + 1.0, 10
    else:
        row, col = _cell(state, action)
        x, y = col + 0.5, row + 0.8
        size = 7 if state.NAME == "othello" else 11
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        zorder=8,
        fontsize=size,
        color=colour,
        fontweight="bold",
        bbox=patch,
    )


def plot_against_exact(panels: list[Panel]) -> Any:
    """Each panel's visits on the board, with every move's exact value written under them;
    the moves of best exact value framed green, the moves that lose framed red."""
    import matplotlib.pyplot as plt

    from mcts_course.render import draw_board

    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.8))
    for ax, panel in zip(axes, panels, strict=True):
        state = panel.state
        draw_board(
            state,
            ax=ax,
            overlay=panel.visits,
            cmap="Blues",
            fmt="{:.0f}",
            label="visits",
            title=f"{game_title(state.NAME)} ({panel.source}), "
            f"{state.PLAYER_NAMES[state.current_player]} to move:\nplays "
            f"{panel.name(panel.choice)}",
        )
        if state.NAME == "connect4":  # room for the values under the column numbers
            low, high = ax.get_ylim()
            ax.set_ylim(low + 0.8, high)
        for action, value in panel.values.items():
            colour = LOSING if action in panel.losing else BEST if value == panel.best else "#333"
            _value_label(ax, state, action, f"{value:+d}", colour)
            if colour != "#333":
                _outline(ax, state, action, colour)
    fig.text(
        0.5,
        0.01,
        "large number: the move's visits;  small number: the "
        "move's exact value (Othello: final disc margin; else +1 win, 0 draw, -1 loss);  "
        "green frame: best exact value;  red frame: the move loses",
        ha="center",
        fontsize=9,
    )
    return fig


# -- smarter playouts ------------------------------------------------------------------------------
class WinningMovePlayout:
    """A playout that takes an immediate win whenever one exists, else a random move."""

    def evaluate(self, state, rng):
        """Play from ``state`` to the end of the game; return its result, one number per
        player (+1 win, 0 draw, -1 loss), as ``state.rollout(rng)`` does."""
        while not state.is_terminal():
            moves = state.legal_actions()
            mover = state.current_player
            winning = [move for move in moves if state.play(move).winner() == mover]
            state = state.play(winning[0] if winning else rng.choice(moves))
        return state.returns()


@dataclass
class PlayoutOutcomes:
    """The results of random and win-taking playouts from one position."""

    label: str
    x_wins: float
    draws: float
    o_wins: float
    microseconds: float  # per playout, here


def playout_outcomes(state: GameState, playouts: int, seed: int) -> list[PlayoutOutcomes]:
    """The share of first-player wins, draws and second-player wins of ``playouts`` random and
    ``playouts`` win-taking playouts from ``state``, and their cost."""
    out = []
    for label, evaluate in (
        ("random", lambda s, rng: s.rollout(rng)),
        ("takes a win", WinningMovePlayout().evaluate),
    ):
        rng = random.Random(seed)
        started = time.process_time()
        results = [evaluate(state, rng) for _ in range(playouts)]
        seconds = (time.process_time() - started) / playouts
        first = sum(r[0] > r[1] for r in results) / playouts
        draws = sum(r[0] == r[1] for r in results) / playouts
        out.append(PlayoutOutcomes(label, first, draws, 1 - first - draws, seconds * 1e6))
    return out


def outcomes_table(outcomes: list[PlayoutOutcomes]) -> Table:
    rows = [[o.label, o.x_wins, o.draws, o.o_wins, o.microseconds] for o in outcomes]
    return Table(
        ["playout", "X wins", "draws", "O wins", "µs per playout"],
        rows,
        {"X wins": ".0%", "draws": ".0%", "O wins": ".0%", "µs per playout": ".2f"},
        right=["X wins", "draws", "O wins", "µs per playout"],
    )


@dataclass
class PlayoutSearch:
    """MCTS with random and with win-taking playouts, each against perfect play."""

    iterations: int
    cost_ratio: float  # processor time per search, win-taking over random (measured here)
    results: dict[str, MatchResult]  # label -> MCTS's match against PerfectAgent

    def not_lost(self, label: str) -> float:
        return not_lost(self.results[label])[0]

    def interval(self, label: str) -> tuple[float, float]:
        return not_lost(self.results[label])[1]

    def table(self) -> Table:
        rows = []
        for label, result in self.results.items():
            low, high = self.interval(label)
            rows.append([label, result.names[0], result.games, self.not_lost(label), low, high])
        return Table(
            ["playouts", "agent", "games", "not lost", "95% low", "95% high"],
            rows,
            {"not lost": ".1%", "95% low": ".1%", "95% high": ".1%"},
            right=["games", "not lost", "95% low", "95% high"],
        )


def playout_search(
    iterations: int, equal_time: int, games: int, seed: int, n_jobs: int | None = N_JOBS
) -> PlayoutSearch:
    """MCTS against :class:`PerfectAgent` in tic-tac-toe, ``games`` games each: with random
    playouts and with win-taking playouts at ``iterations`` iterations (equal playouts), and
    with random playouts at ``equal_time`` iterations (chosen about equal in time to the
    win-taking search; the measured cost ratio is returned beside)."""
    smart = WinningMovePlayout()
    agents = {
        "random": MCTSAgent(iterations),
        "takes a win": MCTSAgent(iterations, evaluator=smart),
        "random, equal time": MCTSAgent(equal_time),
    }
    results = {
        label: match(
            TicTacToe,
            agent,
            PerfectAgent(),
            games=games,
            seed=seed,
            n_jobs=n_jobs,
            keep_moves=False,
        )
        for label, agent in agents.items()
    }
    return PlayoutSearch(iterations, cost_ratio(iterations, seed), results)


def cost_ratio(iterations: int, seed: int, positions: int = 40) -> float:
    """The processor time of an MCTS search with win-taking playouts over that with random ones
    (``iterations`` each), on the same tic-tac-toe positions of random games."""
    rng = random.Random(seed)
    states = [TicTacToe()]
    while len(states) < positions:
        state = TicTacToe()
        for _ in range(rng.randrange(5)):
            state = state.play(rng.choice(state.legal_actions()))
        states.append(state)
    # The two searches of each position one after the other: a machine whose load changes
    # during the measurement slows both alike (two blocks of searches were once measured at
    # different loads, the ratio below its usual 2.3)
    costs = [0.0, 0.0]
    for k, state in enumerate(states):
        for which, evaluator in enumerate((None, WinningMovePlayout())):
            started = time.process_time()
            MCTSAgent(iterations, evaluator=evaluator, seed=k).select_action(state)
            costs[which] += time.process_time() - started
    return costs[1] / costs[0]
