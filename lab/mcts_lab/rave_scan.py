"""RAVE's K and every agent's c, tuned on half of a set of solved positions, tested on the other.

A search's move on a solved position is judged exactly: a *mistake* is a move that is not
optimal (it changes the position's win/draw/loss class for the mover).  The positions are one
per symmetry class of the tic-tac-toe positions where the choice matters, the class's canonical
member (:meth:`TicTacToe.is_canonical`): the 8 rotations and reflections of a position pose the
same problem, so the class is the unit, as in chapter 10.  Each is searched :data:`SEEDS` times
per setting (fixed before the run, for resolution: one search per class would leave a test half
of about two hundred yes/no flags), search j seeded with ``SEEDS * number + j``, so all
settings meet the same positions with the same seeds: paired, and a class's mistake rate over
its searches is its one number.  The classes are split before looking: even places in the list
tune (each agent keeps its setting with the fewest mistakes there), odd places test the tuned
agents against tuned UCT, so picking the best setting does not flatter the test, and no test
position is a rotation or reflection of a tuning one.  The budget, 30 iterations per move (about
three per legal move at the start: the regime where AMAF's many samples should help), was chosen
before the run.

``python -m mcts_lab.rave_scan`` writes ``data/rave_scan.json`` (a few minutes); the chapter
loads it and searches a random sample of the (class, seed) pairs again (:func:`recheck`).
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
from mcts_course.stats import CONFIDENCE, bootstrap_interval, paired_interval, sign_flip_p_value
from mcts_lab.learning import Truth
from mcts_lab.present import Table, p_text, percent_axis, span

FILE = "rave_scan.json"
ITERATIONS = 30
SEEDS = 8  # searches per class and setting
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
    """Solved positions where the choice matters, one per symmetry class: a number (its place
    among all reachable positions, from which its seeds come), a state, the optimal moves."""

    numbers: list[int]
    states: list[GameState]
    optimal: list[frozenset[int]]


def tictactoe_positions() -> Positions:
    truth = Truth(TicTacToe)
    matters: list[bool] = np.asarray(truth.matters).tolist()
    numbers = [
        k
        for k, state in enumerate(truth.states)
        if matters[k] and isinstance(state, TicTacToe) and state.is_canonical()
    ]
    optimal = [frozenset(int(a) for a in np.flatnonzero(truth.optimal[k])) for k in numbers]
    return Positions(numbers, [truth.states[k] for k in numbers], optimal)


def mistakes(
    spec: str,
    positions: Positions,
    picks: list[int] | None = None,
    iterations: int = ITERATIONS,
    seeds: range | tuple[int, ...] = range(SEEDS),
) -> np.ndarray:
    """Flags, one row per position (or per picked index) and one column per seed: is the move
    of ``spec`` not optimal?"""
    rows = []
    for i in range(len(positions.numbers)) if picks is None else picks:
        row = []
        for j in seeds:
            seed = SEEDS * positions.numbers[i] + j
            agent = make_agent(with_params(spec, iterations=iterations, seed=seed))
            row.append(agent.select_action(positions.states[i]) not in positions.optimal[i])
        rows.append(row)
    return np.array(rows, dtype=bool).reshape(-1, len(seeds))


@dataclass
class Scan:
    """Every setting's flags on every position."""

    positions: Positions
    flags: dict[str, np.ndarray]  # spec -> flags, one row per class, one column per seed

    def half(self, parity: int) -> np.ndarray:
        """The classes at even (0, tuning) or odd (1, test) places of the list."""
        out: np.ndarray = np.arange(len(self.positions.numbers)) % 2 == parity
        return out

    def rate(self, spec: str, parity: int) -> float:
        return float(self.flags[spec][self.half(parity)].mean())

    def class_rates(self, spec: str, parity: int) -> np.ndarray:
        """Each class's mistake rate over its searches, on one half: the unit's number."""
        return np.asarray(self.flags[spec][self.half(parity)].mean(axis=1), dtype=float)

    def tuned(self, agent: str) -> str:
        """The agent's setting with the fewest mistakes on the tuning half (ties: listed first)."""
        return min(AGENTS[agent], key=lambda spec: self.rate(spec, 0))

    def test_flags(self, agent: str) -> np.ndarray:
        """The tuned setting's mistake rate in each test class."""
        return self.class_rates(self.tuned(agent), 1)

    def versus_uct(
        self, agent: str, confidence: float = CONFIDENCE
    ) -> tuple[float, tuple[float, float], float]:
        """Tuned ``agent`` minus tuned UCT on the test half: difference of mistake rates, its
        paired bootstrap interval (95% unless ``confidence`` says otherwise: the chapter's two
        comparisons use Bonferroni's 97.5%) and the sign-flip p-value."""
        a, b = self.test_flags(agent), self.test_flags("UCT")
        return (
            float((a - b).mean()),
            paired_interval(a.tolist(), b.tolist(), confidence),
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
    if positions.numbers != data["numbers"] or data["seeds"] != SEEDS:
        raise ValueError("the shipped scan has other positions or seeds")
    flags = {
        s: np.array([c == "1" for c in bits]).reshape(-1, SEEDS)
        for s, bits in data["flags"].items()
    }
    return Scan(positions, flags)


def recheck(scan: Scan, spec: str, sample: int, seed: int = 0) -> bool:
    """Search ``sample`` (class, seed) pairs drawn at random again with ``spec``: the same
    flags as stored?"""
    rng = np.random.default_rng(seed)
    pairs = rng.choice(len(scan.positions.numbers) * SEEDS, size=sample, replace=False)
    for pair in sorted(pairs.tolist()):
        i, j = divmod(pair, SEEDS)
        if mistakes(spec, scan.positions, [i], seeds=(j,))[0, 0] != scan.flags[spec][i, j]:
            return False
    return True


@dataclass
class GraphLinks:
    """The graph search's links on the scan's searches: how many searches expanded a position
    that was already in its table, and in how many the graph's move differed from UCT's with the
    same ``c`` and seed."""

    searches: int
    linked: int
    moves_differ: int


def graph_links(
    scan: Scan, parity: int = 1, c: float = 0.7, iterations: int = ITERATIONS
) -> GraphLinks:
    """Repeat every search of one half of the scan (``parity`` 1: the test half) with the graph
    search and with UCT, same ``c`` and seeds, and count the graph's links and changed moves."""
    searches = linked = differ = 0
    for i in np.flatnonzero(scan.half(parity)).tolist():
        state = scan.positions.states[i]
        for j in range(SEEDS):
            seed = SEEDS * scan.positions.numbers[i] + j
            graph = make_agent(f"mcts:transpositions=1,c={c},iterations={iterations},seed={seed}")
            tree = make_agent(f"mcts:c={c},iterations={iterations},seed={seed}")
            move = graph.select_action(state)
            searches += 1
            linked += graph.shared > 0  # type: ignore[attr-defined]
            differ += move != tree.select_action(state)
    return GraphLinks(searches, linked, differ)


def scan_table(
    scan: Scan,
    tests: dict[str, tuple[float, tuple[float, float], float]],
    confidence: float = CONFIDENCE,
) -> Table:
    """One row per agent: its tuned setting, its mistake rate on each half (on the test half with
    its own 95% interval), and on the test half its difference from tuned UCT with the paired
    interval at ``confidence`` (the level ``tests`` were computed at: Bonferroni's, when several
    are read together) and the uncorrected p-value (intervals: bootstraps over the test
    classes)."""
    rows = []
    for agent in COMPARED:
        test = scan.test_flags(agent)
        low, high = bootstrap_interval(test.tolist())
        row = [
            agent,
            scan.tuned(agent).split(":")[1],
            scan.rate(scan.tuned(agent), 0),
            f"{test.mean():.1%} ({span(low, high)})",
        ]
        if agent in tests:
            diff, (d_low, d_high), p = tests[agent]
            row += [f"{diff:+.1%} ({span(d_low, d_high, signed=True)})", p_text(p)]
        else:
            row += ["", ""]
        rows.append(row)
    columns = [
        "agent",
        "tuned setting",
        "tuning half",
        "test half (95% interval)",
        f"minus UCT ({confidence:.1%} interval)".replace(".0%", "%"),
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
    over the test classes."""
    import matplotlib.pyplot as plt

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
    right.set(ylabel="mistake rate, test classes", ylim=(0, None), xlim=(-0.5, len(names) - 0.5))
    percent_axis(right.yaxis)
    right.set_title(f"Tic-tac-toe, {ITERATIONS} iterations, tuned settings", fontsize=10)
    fig.tight_layout()
    return fig


def main() -> None:  # pragma: no cover - a few minutes of searches
    scan = run(tictactoe_positions())
    bits = {s: "".join("1" if f else "0" for f in v.ravel()) for s, v in scan.flags.items()}
    data = {
        "iterations": ITERATIONS,
        "seeds": SEEDS,
        "numbers": scan.positions.numbers,
        "flags": bits,
    }
    path = Path(__file__).parent / "data" / FILE
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    for agent in AGENTS:
        print(agent, scan.tuned(agent), scan.rate(scan.tuned(agent), 1), flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
