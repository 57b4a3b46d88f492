"""The Connect Four agents on Pascal Pons' published test positions: mistake rates, offline.

The positions are two sets of Pons' solver benchmark (his blog "Solving Connect 4: how to build a
perfect AI" and the repository PascalPons/connect4, files ``Test_L2_R1``, "Middle-Easy", and
``Test_L2_R2``, "Middle-Medium", 1,000 positions each), copied unchanged to
``data/pons_Test_L2_R1.txt`` and ``data/pons_Test_L2_R2.txt``: one position a line, the moves
played so far as columns 1-7, then Pons' exact score for the side to move (its sign is the
win/draw/loss class).

A move is a *mistake* when it changes the position's class: the mover had a win and the move
gives a draw or a loss, or had a draw and the move loses.  (In a lost position no move is one.)
Deciding that needs, for every move, whether the child keeps the class, from the package's exact
solver (:mod:`mcts_course.agents.exact`, with a window just wide enough to decide it, and the
columns tried centre first), which takes milliseconds on a Middle-Easy position but seconds
to minutes on a Middle-Medium one.  So ``python -m mcts_lab.pons_offline`` (seeded) does the
slow part once and writes ``data/pons_offline.json``:

1. draws a sample of each set (sizes fixed here before the run: :data:`SAMPLE`) and decides
   for every move of each sampled position whether it keeps the class, under a per-position
   cap of processor time (:data:`CAP`); a position not settled within it is recorded as
   *capped* (``keeps`` null) and left out of the rates;
2. calibrates the agents' budgets once, on other positions of the sets, so that their mean
   processor time per move matches PUCT's with the shipped network at :data:`PUCT_ITERATIONS`
   iterations: UCT's iterations and alpha-beta's depth (:func:`calibrate`);
3. asks each agent, at those budgets (iterations and depths, never a clock, so every move repeats
   for the same seed), for its move in every solved position, seeded by the position's line
   number, and records the move and the processor time it took.

The chapter loads the file (:func:`load`), computes the rates and the paired comparisons
(:func:`summary`), and re-solves and re-plays a small sample at build time (:func:`recheck`).
"""

from __future__ import annotations

import json
import math
import random
import signal
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_course.agents.exact import forget, negamax
from mcts_course.agents.minimax import AlphaBetaAgent
from mcts_course.games import ConnectFour
from mcts_course.stats import holm, paired_interval, wilson_interval
from mcts_lab.present import percent_axis

SETS = {"Middle-Easy": "pons_Test_L2_R1.txt", "Middle-Medium": "pons_Test_L2_R2.txt"}
SAMPLE = {"Middle-Easy": 200, "Middle-Medium": 60}  # chosen before the run
CAP = {"Middle-Easy": 10.0, "Middle-Medium": 5.0}  # processor seconds per position, all children
CALIBRATION = 10  # positions of each set, outside the samples, to calibrate the budgets on
PUCT_ITERATIONS = 200  # the chapter's budget for PUCT with the network
UCT_PROBE = 1000  # iterations at which UCT's time per iteration is measured
DEPTHS = (1, 2, 3, 4, 5, 6, 7, 8)  # alpha-beta depths tried in the calibration
SEED = 2025
FILE = "pons_offline.json"
AGENTS = ("PUCT + self-play net", "UCT", "alpha-beta")


class Capped(Exception):
    """Raised by the timer when a position's solve passes its cap."""


def _raise_capped(signum: int, frame: object) -> None:
    raise Capped


def read_set(name: str) -> list[tuple[str, int]]:
    """The positions of one set, in the file's order: (moves as Pons writes them, score)."""
    text = (resources.files("mcts_lab") / "data" / SETS[name]).read_text()
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in rows]


def state_of(moves: str) -> ConnectFour:
    """The position after Pons' move string (columns 1-7)."""
    return ConnectFour.from_moves([int(c) - 1 for c in moves])


def sample_lines(name: str) -> list[int]:
    """The sampled line numbers of a set (0-based, sorted), drawn once with :data:`SEED`."""
    rng = random.Random(f"{SEED}-{name}")
    return sorted(rng.sample(range(len(read_set(name))), SAMPLE[name]))


def calibration_lines(name: str) -> list[int]:
    """:data:`CALIBRATION` other lines of the set, for the budgets."""
    rng = random.Random(f"{SEED}-{name}-calibration")
    rest = sorted(set(range(len(read_set(name)))) - set(sample_lines(name)))
    return sorted(rng.sample(rest, CALIBRATION))


class CentreFirst(ConnectFour):
    """Connect Four with the legal columns listed centre first.  The exact solver tries moves in
    the order ``legal_actions`` gives them, and central columns lie on more lines, so they are
    more often the refutation: the values are the same, the search much shorter."""

    __slots__ = ()

    def legal_actions(self) -> list[int]:
        legal = super().legal_actions()
        return [c for c in CENTRE_FIRST if c in legal]


CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)


def class_of(score: int) -> int:
    """Pons' score as a class for the mover: +1 win, 0 draw, -1 loss."""
    return (score > 0) - (score < 0)


def child_keeps(moves: str, score: int) -> list[bool | None]:
    """For each of the 7 columns, does the move keep the position's class (None: a full
    column)?  From the package's exact solver (:func:`mcts_course.agents.exact.negamax`), with a
    window just wide enough to decide it: after a move of a won position the opponent must be
    lost (value <= -1), after a move of a drawn one at most drawn (<= 0).  In a lost position
    every move keeps the class."""
    forget()  # positions of different lines share little: keep the table small
    state, target = CentreFirst.from_moves([int(c) - 1 for c in moves]), class_of(score)
    legal = state.legal_actions()
    keeps: list[bool | None] = []
    for column in range(ConnectFour.NUM_ACTIONS):
        if column not in legal:
            keeps.append(None)
        elif target == -1:
            keeps.append(True)
        else:  # the child's value for the opponent is <= -target or >= -target + 1
            keeps.append(negamax(state.play(column), -target, -target + 1) <= -target)
    return keeps


def solve_capped(moves: str, score: int, cap: float) -> list[bool | None] | None:
    """:func:`child_keeps` within ``cap`` seconds of processor time, else None."""
    old = signal.signal(signal.SIGPROF, _raise_capped)
    signal.setitimer(signal.ITIMER_PROF, cap)
    try:
        return child_keeps(moves, score)
    except Capped:
        return None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        forget()


def make_agent(name: str, budget: int, seed: int) -> Any:
    """One of :data:`AGENTS` at ``budget`` (iterations, or plies for alpha-beta)."""
    from mcts_lab.learning_c4 import net_agent, uct_agent

    if name == "PUCT + self-play net":
        return net_agent(iterations=budget, seed=seed)
    if name == "UCT":
        return uct_agent(iterations=budget, seed=seed)
    return AlphaBetaAgent(depth=budget, seed=seed)


def timed_move(name: str, budget: int, moves: str, seed: int) -> tuple[int, float]:
    """The agent's move in the position and the processor seconds it took."""
    agent = make_agent(name, budget, seed)
    state = state_of(moves)
    start = time.process_time()
    action = agent.select_action(state)
    return int(action), time.process_time() - start


def _mean_time(name: str, budget: int, positions: list[tuple[int, str]]) -> float:
    return sum(timed_move(name, budget, m, k)[1] for k, m in positions) / len(positions)


def calibrate() -> dict[str, Any]:
    """The budgets at which each agent's mean processor time per move matches PUCT's at
    :data:`PUCT_ITERATIONS`, measured once on the calibration positions."""
    positions = [(k, read_set(n)[k][0]) for n in SETS for k in calibration_lines(n)]
    target = _mean_time("PUCT + self-play net", PUCT_ITERATIONS, positions)
    per_iteration = _mean_time("UCT", UCT_PROBE, positions) / UCT_PROBE
    uct = max(50, round(target / per_iteration / 50) * 50)
    depth_times = {}
    for depth in DEPTHS:
        depth_times[depth] = _mean_time("alpha-beta", depth, positions)
        if depth_times[depth] > 3 * target:
            break
    depth = min(depth_times, key=lambda d: abs(math.log(depth_times[d] / target)))
    return {
        "positions": len(positions),
        "puct_seconds": target,
        "uct_seconds_per_iteration": per_iteration,
        "depth_seconds": {str(d): t for d, t in depth_times.items()},
        "budgets": {"PUCT + self-play net": PUCT_ITERATIONS, "UCT": uct, "alpha-beta": depth},
    }


def _save(data: dict[str, Any]) -> None:
    out = Path(__file__).parent / "data" / FILE
    out.write_text(json.dumps(data, indent=1) + "\n")


def main() -> None:  # pragma: no cover - minutes of exact search and of searches
    data: dict[str, Any] = {"seed": SEED, "sample": SAMPLE, "cap": CAP, "sets": {}}
    for name in SETS:
        rows, lines = [], read_set(name)
        for k in sample_lines(name):
            moves, score = lines[k]
            start = time.process_time()
            keeps = solve_capped(moves, score, CAP[name])
            seconds = time.process_time() - start
            if keeps is not None:  # the solver must agree with Pons: some move keeps the class
                assert any(keeps)
            rows.append(
                {
                    "line": k,
                    "moves": moves,
                    "score": score,
                    "keeps": keeps,
                    "seconds": round(seconds, 4),
                }
            )
            print(name, k, keeps is not None, f"{seconds:.2f}", flush=True, file=sys.stderr)
        data["sets"][name] = rows
        _save(data)
    data["calibration"] = calibrate()
    print(data["calibration"], flush=True, file=sys.stderr)
    _save(data)
    budgets = data["calibration"]["budgets"]
    for name in SETS:
        for row in data["sets"][name]:
            if row["keeps"] is None:
                continue
            row["moves_played"], row["agent_seconds"] = {}, {}
            for agent in AGENTS:
                action, seconds = timed_move(agent, budgets[agent], row["moves"], row["line"])
                row["moves_played"][agent] = action
                row["agent_seconds"][agent] = round(seconds, 5)
        _save(data)


# -- what the chapter computes from the file ---------------------------------------------------
def load() -> dict[str, Any]:
    """The shipped results (``data/pons_offline.json``)."""
    return dict(json.loads((resources.files("mcts_lab") / "data" / FILE).read_text()))


def is_mistake(keeps: list[bool | None], action: int) -> bool:
    """Does ``action`` change the class of a position whose columns keep it as ``keeps`` says?"""
    keep = keeps[action]
    if keep is None:
        raise ValueError(f"column {action + 1} is full")
    return not keep


@dataclass
class SetResult:
    """One set: the positions sampled, those solved within the cap, and per agent whether each
    solved position's move was a mistake (1) or not (0), in the same order."""

    name: str
    sampled: int
    mistakes: dict[str, list[int]]
    classes: dict[int, int]  # positions per class (+1 win, 0 draw, -1 loss) among the solved
    seconds: dict[str, float]  # mean processor seconds per move of each agent in the run
    possible: list[int] = field(default_factory=list)  # 1 where some legal move is a mistake

    @property
    def solved(self) -> int:
        return len(next(iter(self.mistakes.values())))

    @property
    def contested(self) -> int:
        """The solved positions where a mistake is possible: some legal move changes the class
        (in the others, lost positions among them, every move keeps it)."""
        return sum(self.possible)

    def rate(self, agent: str, where_possible: bool = False) -> float:
        """The share of mistakes over the solved positions, or over those where a mistake is
        possible (``where_possible``); the mistakes are the same, only the denominator changes."""
        return sum(self.mistakes[agent]) / (self.contested if where_possible else self.solved)

    def interval(self, agent: str, where_possible: bool = False) -> tuple[float, float]:
        n = self.contested if where_possible else self.solved
        return wilson_interval(self.rate(agent, where_possible), n)


def results(data: dict[str, Any] | None = None) -> dict[str, SetResult]:
    """Per set, the agents' mistakes on the solved positions of the sample."""
    data = load() if data is None else data
    out = {}
    for name, rows in data["sets"].items():
        solved = [r for r in rows if r["keeps"] is not None]
        mistakes = {
            a: [int(is_mistake(r["keeps"], r["moves_played"][a])) for r in solved] for a in AGENTS
        }
        classes = {c: 0 for c in (1, 0, -1)}
        for r in solved:
            classes[class_of(r["score"])] += 1
        seconds = {a: sum(r["agent_seconds"][a] for r in solved) / len(solved) for a in AGENTS}
        possible = [int(any(k is False for k in r["keeps"])) for r in solved]
        out[name] = SetResult(name, len(rows), mistakes, classes, seconds, possible)
    return out


def sign_test(a: list[int], b: list[int]) -> float:
    """Two-sided exact sign test on paired 0/1 outcomes: only the positions where the two
    differ count, and under "no difference" each is as likely to go either way."""
    only_a = sum(x > y for x, y in zip(a, b, strict=True))
    only_b = sum(y > x for x, y in zip(a, b, strict=True))
    n, k = only_a + only_b, min(only_a, only_b)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return float(min(1.0, 2 * tail))


@dataclass
class Comparison:
    """Agent ``a`` against agent ``b`` on one set: the difference of mistake rates (a - b), its
    paired bootstrap interval over the positions, the sign test's p and Holm's verdict."""

    set_name: str
    a: str
    b: str
    difference: float
    interval: tuple[float, float]
    p: float
    rejected: bool = False


def comparisons(by_set: dict[str, SetResult]) -> list[Comparison]:
    """Every pair of agents on every set, with Holm's correction over the whole family."""
    pairs = [(AGENTS[0], AGENTS[1]), (AGENTS[0], AGENTS[2]), (AGENTS[1], AGENTS[2])]
    family = []
    for name, result in by_set.items():
        for a, b in pairs:
            ma, mb = result.mistakes[a], result.mistakes[b]
            family.append(
                Comparison(
                    name,
                    a,
                    b,
                    result.rate(a) - result.rate(b),
                    paired_interval(ma, mb),
                    sign_test(ma, mb),
                )
            )
    for c, rejected in zip(family, holm([c.p for c in family]), strict=True):
        c.rejected = rejected
    return family


def rates_table(by_set: dict[str, SetResult]) -> Any:
    """Mistake rates with their 95% Wilson intervals, per set and agent."""
    from mcts_lab.present import Table

    rows = []
    for name, r in by_set.items():
        for agent in AGENTS:
            low, high = r.interval(agent)
            rows.append(
                [name, agent, f"{sum(r.mistakes[agent])}/{r.solved}", r.rate(agent), low, high]
            )
    return Table(
        ["set", "agent", "mistakes", "rate", "95% low", "95% high"],
        rows,
        {"rate": ".1%", "95% low": ".1%", "95% high": ".1%"},
        right=["mistakes", "rate", "95% low", "95% high"],
    )


def comparisons_table(family: list[Comparison]) -> Any:
    """The paired comparisons, with the sign test's p and Holm's verdict over the family."""
    from mcts_lab.present import Table

    rows = [
        [
            c.set_name,
            f"{c.a} − {c.b}",
            c.difference,
            c.interval[0],
            c.interval[1],
            f"{c.p:.4f}",
            "yes" if c.rejected else "no",
        ]
        for c in family
    ]
    return Table(
        [
            "set",
            "difference of rates",
            "difference",
            "95% low",
            "95% high",
            "sign test p",
            "after Holm",
        ],
        rows,
        {"difference": "+.1%", "95% low": "+.1%", "95% high": "+.1%"},
        right=["difference", "95% low", "95% high", "sign test p"],
    )


def rates_figure(by_set: dict[str, SetResult]) -> Any:
    """Mistake rates with their intervals, one group of bars per set: on the left over all
    solved positions, on the right over those where a mistake is possible."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    width = 0.25
    for ax, where_possible in zip(axes, (False, True), strict=True):
        for j, agent in enumerate(AGENTS):
            xs: list[float] = []
            ys: list[float] = []
            errs: list[list[float]] = [[], []]
            for i, r in enumerate(by_set.values()):
                low, high = r.interval(agent, where_possible)
                rate = r.rate(agent, where_possible)
                xs.append(i + (j - 1) * width)
                ys.append(rate)
                errs[0].append(rate - low)
                errs[1].append(high - rate)
            ax.bar(xs, ys, width, yerr=errs, capsize=3, label=agent)
        ax.set_xticks(range(len(by_set)))
        counts = [r.contested if where_possible else r.solved for r in by_set.values()]
        ax.set_xticklabels([f"{n}\n({c} positions)" for n, c in zip(by_set, counts, strict=True)])
        ax.set_title(
            "where a mistake is possible" if where_possible else "all solved positions",
            fontsize="medium",
        )
        percent_axis(ax.yaxis)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("moves that are mistakes")
    axes[0].legend(frameon=False, fontsize="small")
    fig.tight_layout()
    plt.close(fig)
    return fig


def recheck(positions: int = 3, data: dict[str, Any] | None = None) -> bool:
    """Re-solve the ``positions`` fastest-solved positions of the file that are not lost (in a
    lost one nothing is solved) and replay PUCT's move (with the network) on the first of them:
    True if all agree with the file."""
    data = load() if data is None else data
    rows = [
        r
        for rs in data["sets"].values()
        for r in rs
        if r["keeps"] is not None and class_of(r["score"]) != -1
    ]
    fastest = sorted(rows, key=lambda r: (r["seconds"], r["line"]))[:positions]
    same_values = all(child_keeps(r["moves"], r["score"]) == r["keeps"] for r in fastest)
    forget()
    agent = AGENTS[0]
    budget = data["calibration"]["budgets"][agent]
    row = fastest[0]
    action, _ = timed_move(agent, budget, row["moves"], row["line"])
    return same_values and action == row["moves_played"][agent]


if __name__ == "__main__":
    main()
