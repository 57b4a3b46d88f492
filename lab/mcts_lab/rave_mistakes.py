"""Where AMAF helps: mistake rates of UCT and RAVE on every tic-tac-toe position, paired.

Tic-tac-toe is solved, so each search's move can be judged exactly: a *mistake* is a move that
is not optimal (it changes the position's exact value for the mover).  Every position where the
choice matters is searched once by each agent with the same seed (the position's number), so
the comparison is paired, the position is the unit, and the interval of the difference comes
from a bootstrap over the positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcts_course.agents.spec import make_agent, with_params
from mcts_course.games import TicTacToe
from mcts_lab.learning import Truth
from mcts_lab.present import Table


@dataclass
class Mistakes:
    """Per agent, one flag per position: did its move lose value?"""

    iterations: int
    wrong: dict[str, np.ndarray]

    @property
    def positions(self) -> int:
        return len(next(iter(self.wrong.values())))

    def rate(self, name: str) -> float:
        return float(self.wrong[name].mean())

    def difference(
        self, name: str, baseline: str, resamples: int = 2000, seed: int = 0
    ) -> tuple[float, float, float]:
        """``name``'s mistake rate minus ``baseline``'s, with a 95% bootstrap interval over the
        positions (each resample keeps the pairs together)."""
        paired = self.wrong[name].astype(float) - self.wrong[baseline].astype(float)
        rng = np.random.default_rng(seed)
        n = len(paired)
        means = np.sort([paired[rng.integers(0, n, n)].mean() for _ in range(resamples)])
        return (
            float(paired.mean()),
            float(means[int(0.025 * resamples)]),
            float(means[int(0.975 * resamples) - 1]),
        )

    def table(self, baseline: str) -> Table:
        rows = []
        for name in self.wrong:
            diff, low, high = self.difference(name, baseline)
            rows.append([name, self.rate(name), diff, low, high])
        return Table(
            ["agent", "mistake rate", f"minus {baseline}", "95% low", "95% high"],
            rows,
            {k: ".1%" for k in ("mistake rate", f"minus {baseline}", "95% low", "95% high")},
            right=["mistake rate", f"minus {baseline}", "95% low", "95% high"],
        )


def mistake_rates(specs: dict[str, str], iterations: int, truth: Truth | None = None) -> Mistakes:
    """Each agent (a spec without its budget) searches every position where the choice matters
    for ``iterations`` iterations, seeded by the position's number."""
    truth = truth or Truth(TicTacToe)
    positions = [k for k in range(truth.positions) if truth.matters[k]]
    wrong = {}
    for name, spec in specs.items():
        flags = []
        for k in positions:
            agent = make_agent(with_params(spec, iterations=iterations, seed=k))
            flags.append(not truth.optimal[k, agent.select_action(truth.states[k])])
        wrong[name] = np.array(flags)
    return Mistakes(iterations, wrong)
