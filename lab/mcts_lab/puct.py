"""Does the prior help PUCT?  Matches that change one thing at a time.

PUCT with the cell prior differs from UCT in four ways: the prior, the constant ``c`` (1 against
√2, on another formula), expansion (all children at once) and the value of an unvisited child
(``fpu``).  Against UCT it measures all four together.  PUCT with a **uniform** prior differs
from PUCT with the cell prior in the prior alone, so that match is the control that isolates
it; PUCT(uniform) against UCT measures the rest.  Every match gives both sides the same number
of iterations (so of playouts) per move and alternates colours.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TypeVar

from mcts_course.agents import make_agent
from mcts_course.arena import MatchResult, match
from mcts_course.games import GameState
from mcts_lab import N_JOBS
from mcts_lab.present import Table, game_title, span

PAIRINGS = {  # label: (first, second), agent specs without the budget
    "PUCT(cells) vs PUCT(uniform)": ("puct:prior=cells", "puct:prior=uniform"),
    "PUCT(uniform) vs UCT": ("puct:prior=uniform", "mcts"),
    "PUCT(cells) vs UCT": ("puct:prior=cells", "mcts"),
}


@dataclass
class PriorControl:
    """The three matches in one game at one budget."""

    game: str
    iterations: int
    results: dict[str, MatchResult]

    def rows(self) -> list[tuple[str, str, MatchResult]]:
        return [(self.game, label, r) for label, r in self.results.items()]


def prior_control(
    game: type[GameState], iterations: int, games: int, seed: int, n_jobs: int | None = N_JOBS
) -> PriorControl:
    """PUCT(cells) against PUCT(uniform), PUCT(uniform) against UCT and PUCT(cells) against
    UCT, ``games`` games each with ``iterations`` iterations per move for both sides."""
    results = {}
    for k, (label, (first, second)) in enumerate(PAIRINGS.items()):
        results[label] = match(
            game,
            make_agent(first, iterations=iterations),
            make_agent(second, iterations=iterations),
            games=games,
            seed=seed + k,
            n_jobs=n_jobs,
            keep_moves=False,
        )
    return PriorControl(game.NAME, iterations, results)


def control_table(controls: list[PriorControl]):
    """One row per match: the game, the budget, the pairing, wins-draws-losses and the first
    player's score with its 95% interval."""
    from IPython.display import Markdown

    rows = [
        "| game | iterations per move | match | wins-draws-losses | score | 95% interval |",
        "|---|--:|---|--:|--:|--:|",
    ]
    for c in controls:
        for label, r in c.results.items():
            lo, hi = r.interval
            rows.append(
                f"| {game_title(c.game)} | {c.iterations:,} | {label} | {r.wins}-{r.draws}-"
                f"{r.losses} | {r.score:.1%} | {span(lo, hi)} |"
            )
    return Markdown("\n".join(rows))


def iterations_per_second(spec: str, state: GameState, n: int = 2000) -> float:
    """How many iterations per second of processor time the agent ``spec`` runs on ``state``,
    here and now (processor time, so that other processes on the machine count less)."""
    agent = make_agent(spec, iterations=n, seed=1)
    started = time.process_time()
    agent.search(state)  # type: ignore[attr-defined]
    return n / max(time.process_time() - started, 1e-9)


def iteration_rates(
    specs: dict[str, str], state: GameState, n: int = 2000, rounds: int = 3
) -> dict[str, float]:
    """``{label: iterations per second}`` for each agent spec on ``state``: the agents take
    turns, ``rounds`` times, and each keeps its best rate (the one least slowed by the rest of
    the machine)."""
    rates = {label: 0.0 for label in specs}
    for _ in range(rounds):
        for label, spec in specs.items():
            rates[label] = max(rates[label], iterations_per_second(spec, state, n))
    return rates


OTHELLO_MIDGAME = "f5 d6 c3 d3 c4 f4 c5 b3 c2 e6 c6 b4 b5 d2 e3 a6"


def othello_midgame() -> GameState:
    from mcts_course.games import Othello

    return Othello.from_moves(OTHELLO_MIDGAME)


def prior_figure():
    """The cell prior in an Othello middle game and in Connect Four after three moves."""
    import matplotlib.pyplot as plt

    from mcts_course.agents.puct import cell_prior
    from mcts_course.games import ConnectFour
    from mcts_course.render import draw_board

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    othello = othello_midgame()
    draw_board(
        othello,
        ax=axes[0],
        overlay=cell_prior(othello),
        cmap="Oranges",
        fmt="{:.2f}",
        label="prior",
        title="Othello: the prior from the cell weights",
    )
    c4 = ConnectFour.from_moves("4 4 3")
    draw_board(
        c4,
        ax=axes[1],
        overlay=cell_prior(c4),
        cmap="Oranges",
        fmt="{:.2f}",
        label="prior",
        title="Connect Four: centre first",
    )
    return fig


def rates_table(rates: dict[str, float]) -> Table:
    """Iterations per second per agent, and each relative to the first agent's."""
    name, first = next(iter(rates.items()))
    share = f"relative to {name}"
    rows = [[label, rate, rate / first] for label, rate in rates.items()]
    return Table(
        ["agent", "iterations per second", share],
        rows,
        {"iterations per second": ",.0f", share: ".0%"},
        right=["iterations per second", share],
    )


def rate_positions() -> dict[str, GameState]:
    """One position of each game for :func:`iteration_rates`: tic-tac-toe's empty board, Connect
    Four after three moves (the prior figure's) and the Othello middle game."""
    from mcts_course.games import ConnectFour, TicTacToe

    return {
        "tic-tac-toe": TicTacToe(),
        "Connect Four": ConnectFour.from_moves("4 4 3"),
        "Othello": othello_midgame(),
    }


def game_rates_table(by_game: dict[str, dict[str, float]]) -> Table:
    """Iterations per second of each agent in each game, and each relative to the first agent's
    rate in the same game (a ratio measured in one run, which depends less on the machine)."""
    games = list(by_game)
    agents = list(by_game[games[0]])
    columns, formats = ["agent"], {}
    for game in games:
        first = agents[0]
        columns += [f"{game}: iterations per second", f"{game}: relative to {first}"]
        formats[columns[-2]] = ",.0f"
        formats[columns[-1]] = ".0%"
    rows = []
    for agent in agents:
        row: list[object] = [agent]
        for game in games:
            rates = by_game[game]
            row += [rates[agent], rates[agent] / rates[agents[0]]]
        rows.append(row)
    return Table(columns, rows, formats, right=columns[1:])


Move = TypeVar("Move", int, str)  # an action, or a letter in a worked example
Children = dict[Move, tuple[int, float, float]]  # move -> (visits, total reward, prior)


def puct_select(
    stats: Children[Move], parent_visits: int, c: float = 1.0, fpu: float = 0.5
) -> Move:
    """PUCT-SELECT: ``stats`` maps each move to (visits n, total reward W, prior P)."""

    def score(action: Move) -> float:
        n, w, p = stats[action]
        q = w / n if n else fpu  # an unvisited move counts as a draw (first-play urgency)
        return q + c * p * parent_visits**0.5 / (1 + n)

    return max(sorted(stats), key=score)  # ties: the smallest move
