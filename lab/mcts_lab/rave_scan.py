"""RAVE's K and every agent's c, tuned on half of a set of solved positions, tested on the other.

A search's move on a solved position is judged exactly: a *mistake* is a move that is not
optimal (it changes the position's win/draw/loss class for the mover).  Every position where the
choice matters is searched once per setting, seeded by the position's number, so all settings
meet the same positions with the same seeds: paired, the position is the unit.  The positions
are split before looking: even numbers tune (each agent keeps its setting with the fewest
mistakes there), odd numbers test the tuned agents against tuned UCT, so picking the best
setting does not flatter the test.  The positions are every tic-tac-toe position where the
choice matters; the budget, 30 iterations per move (about three per legal move at the start:
the regime where AMAF's many samples should help), was chosen before the run.

``python -m mcts_lab.rave_scan`` writes ``data/rave_scan.json`` (under a minute); the chapter
loads it and searches a random sample of the positions again (:func:`recheck`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mcts_course.agents.spec import make_agent, with_params
from mcts_course.games import TicTacToe
from mcts_course.games.base import GameState
from mcts_course.stats import bootstrap_interval, paired_interval, sign_flip_p_value
from mcts_lab.learning import Truth
from mcts_lab.present import Table, p_text

FILE = "rave_scan.json"
ITERATIONS = 30
C_VALUES = (0.0, 0.35, 0.7, 1.41)
UCT_C_VALUES = (0.35, 0.7, 1.0, 1.41, 2.0)  # c = 0 would never try a second move in UCT
# K from 30 to 300,000 by factors of ten: at 30 iterations beta = sqrt(K / (3N + K)) is already
# above 0.98 at K = 3,000, so the larger values test whether trusting AMAF still more helps.
K_VALUES = (30, 300, 3000, 30000, 300000)
# agent -> its settings, each a spec without a budget or seed
AGENTS: dict[str, list[str]] = {
    "UCT": [f"mcts:c={c}" for c in UCT_C_VALUES],
    "RAVE": [f"mcts:rave={k},c={c}" for k in K_VALUES for c in C_VALUES],
    "RAVE as MoGo": [f"mcts:rave={k},amaf_unvisited=1,c={c}" for k in K_VALUES for c in C_VALUES],
    "graph (transpositions)": [f"mcts:transpositions=1,c={c}" for c in UCT_C_VALUES],
}
# the agents of the table, the figure and the Holm family: the graph search is scanned for the
# transpositions section, but at 30 iterations it builds the same tree as UCT (its moves are
# UCT's on every position), so comparing it with UCT would test nothing.
COMPARED = ("UCT", "RAVE", "RAVE as MoGo")


@dataclass
class Positions:
    """Solved positions where the choice matters: a number (the seed), a state, the optimal
    moves."""

    numbers: list[int]
    states: list[GameState]
    optimal: list[frozenset[int]]


def tictactoe_positions() -> Positions:
    truth = Truth(TicTacToe)
    numbers = [k for k in range(truth.positions) if truth.matters[k]]
    optimal = [frozenset(int(a) for a in np.flatnonzero(truth.optimal[k])) for k in numbers]
    return Positions(numbers, [truth.states[k] for k in numbers], optimal)


def mistakes(
    spec: str, positions: Positions, picks: list[int] | None = None, iterations: int = ITERATIONS
) -> np.ndarray:
    """One flag per position (or per picked index): is the move of ``spec`` not optimal?"""
    flags = []
    for i in range(len(positions.numbers)) if picks is None else picks:
        agent = make_agent(with_params(spec, iterations=iterations, seed=positions.numbers[i]))
        flags.append(agent.select_action(positions.states[i]) not in positions.optimal[i])
    return np.array(flags, dtype=bool)


@dataclass
class Scan:
    """Every setting's flags on every position."""

    positions: Positions
    flags: dict[str, np.ndarray]  # spec -> flags

    def half(self, parity: int) -> np.ndarray:
        return np.array([k % 2 == parity for k in self.positions.numbers])

    def rate(self, spec: str, parity: int) -> float:
        return float(self.flags[spec][self.half(parity)].mean())

    def tuned(self, agent: str) -> str:
        """The agent's setting with the fewest mistakes on the tuning half (ties: listed first)."""
        return min(AGENTS[agent], key=lambda spec: self.rate(spec, 0))

    def test_flags(self, agent: str) -> np.ndarray:
        return self.flags[self.tuned(agent)][self.half(1)].astype(float)

    def versus_uct(self, agent: str) -> tuple[float, tuple[float, float], float]:
        """Tuned ``agent`` minus tuned UCT on the test half: difference of mistake rates, its
        95% paired bootstrap interval and the sign-flip p-value."""
        a, b = self.test_flags(agent), self.test_flags("UCT")
        return (
            float((a - b).mean()),
            paired_interval(a.tolist(), b.tolist()),
            sign_flip_p_value((a - b).tolist()),
        )


def run(positions: Positions) -> Scan:
    flags = {spec: mistakes(spec, positions) for specs in AGENTS.values() for spec in specs}
    return Scan(positions, flags)


def load() -> Scan:
    """The shipped scan."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    if data["iterations"] != ITERATIONS:
        raise ValueError("the shipped scan was run at another budget")
    positions = tictactoe_positions()
    if positions.numbers != data["numbers"]:
        raise ValueError("the shipped scan has other positions")
    flags = {s: np.array([c == "1" for c in bits]) for s, bits in data["flags"].items()}
    return Scan(positions, flags)


def recheck(scan: Scan, spec: str, sample: int, seed: int = 0) -> bool:
    """Search ``sample`` positions drawn at random again with ``spec``: the same flags as
    stored?"""
    rng = np.random.default_rng(seed)
    picks = sorted(rng.choice(len(scan.positions.numbers), size=sample, replace=False).tolist())
    return bool((mistakes(spec, scan.positions, picks) == scan.flags[spec][picks]).all())


def scan_table(scan: Scan, tests: dict[str, tuple[float, tuple[float, float], float]]) -> Table:
    """One row per agent: its tuned setting, its mistake rate on each half, and on the test half
    its difference from tuned UCT with the paired 95% interval and the uncorrected p-value."""
    rows = []
    for agent in COMPARED:
        test = scan.test_flags(agent)
        low, high = bootstrap_interval(test.tolist())
        row = [
            agent,
            scan.tuned(agent).split(":")[1],
            scan.rate(scan.tuned(agent), 0),
            f"{test.mean():.1%} ({low:.1%} to {high:.1%})",
        ]
        if agent in tests:
            diff, (d_low, d_high), p = tests[agent]
            row += [f"{diff:+.1%} ({d_low:+.1%} to {d_high:+.1%})", p_text(p)]
        else:
            row += ["", ""]
        rows.append(row)
    columns = [
        "agent",
        "tuned setting",
        "tuning half",
        "test half (95% interval)",
        "minus UCT (95% interval)",
        "p (before Holm)",
    ]
    return Table(columns, rows, {"tuning half": ".1%"}, right=columns[2:])


def _short(spec: str) -> str:
    """A setting as the figure names it: "K=300, c=0.7" from "mcts:rave=300,c=0.7"."""
    params = dict(p.split("=") for p in spec.split(":")[1].split(","))
    words = [f"K={params['rave']}"] if "rave" in params else []
    return ", ".join([*words, f"c={float(params['c']):g}"])


def figure(scan: Scan) -> Any:
    """Left: RAVE's weight on the AMAF mean against the parent's visits, for the scanned K.
    Right: each tuned agent's mistake rate on the test positions, with 95% bootstrap intervals
    over the positions."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    visits = np.arange(0, 3001)
    for k in K_VALUES:
        left.plot(visits, np.sqrt(k / (3 * visits + k)), label=f"K = {k:,}")
    left.axvline(ITERATIONS, color="grey", linestyle=":", label=f"N = {ITERATIONS}")
    left.set(xlabel="parent's visits N", ylabel="β, the weight on AMAF", xlim=(0, 3000))
    left.set_xscale("symlog", linthresh=1)
    left.set_title("RAVE's schedule", fontsize=10)
    left.legend(frameon=False)
    names = list(COMPARED)
    rates = [float(scan.test_flags(a).mean()) for a in names]
    bounds = [bootstrap_interval(scan.test_flags(a).tolist()) for a in names]
    errors = np.array(
        [
            [r - b[0] for r, b in zip(rates, bounds, strict=True)],
            [b[1] - r for r, b in zip(rates, bounds, strict=True)],
        ]
    )
    right.errorbar(range(len(names)), rates, yerr=errors, fmt="o", capsize=4)
    labels = [f"{a.split(' (')[0]}\n{_short(scan.tuned(a))}" for a in names]
    right.set_xticks(range(len(names)), labels, fontsize=8)
    right.set(ylabel="mistake rate, test positions", ylim=(0, None), xlim=(-0.5, len(names) - 0.5))
    right.yaxis.set_major_formatter(PercentFormatter(1.0))
    right.set_title(f"Tic-tac-toe, {ITERATIONS} iterations, tuned settings", fontsize=10)
    fig.tight_layout()
    return fig


def main() -> None:  # pragma: no cover - under a minute of searches
    scan = run(tictactoe_positions())
    bits = {s: "".join("1" if f else "0" for f in v) for s, v in scan.flags.items()}
    data = {"iterations": ITERATIONS, "numbers": scan.positions.numbers, "flags": bits}
    path = Path(__file__).parent / "data" / FILE
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    for agent in AGENTS:
        print(agent, scan.tuned(agent), scan.rate(scan.tuned(agent), 1), flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
