"""MCTS-Solver against UCT on harder Connect Four endgames: computed once, shipped.

The design was fixed before any search was run, and nothing was scanned:

* **Positions**: the first ``COUNT`` distinct Connect Four positions after ``PLIES`` random moves
  (one ``random.Random(SEED)`` draws every move of every candidate in turn) that have a single
  right move (one column keeps the exact value, every other column gives something away) and no
  immediate win for the mover.  Four plies fewer than the twenty endgames the chapter checks
  the proofs on, so that plain UCT errs on more of them.
* **Searches**: the package's MCTS-Solver and its plain UCT (same ``c``, same playouts), seeds
  ``0 .. SEEDS - 1`` on every position, at each budget of ``BUDGETS``; a mistake is any column
  but the right one.
* **Reading**: the position is the unit (its share of mistaken searches); UCT's share minus the
  solver's, paired by position, with a percentile bootstrap over the positions, one interval
  per budget, Bonferroni over the budgets.  An equivalence bound of ``BOUND`` (5 points) was
  set in advance, to be read only at a budget where both mistake rates lie between 10% and 90%
  (near 0 a difference of 5 points is no small one).

Solving the positions exactly takes minutes, so ``python -m mcts_lab.solver_offline`` does it
once and writes ``data/solver_offline.json`` (the moves of each position, the exact value of
each column, and every search's choice).  The chapter loads the file and re-checks a sample at
build time (:func:`recheck`): the exact values of a few positions and all the searches of one.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import resources

from mcts_course.agents import MCTSAgent
from mcts_course.agents.exact import move_values
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.games import ConnectFour
from mcts_course.stats import corrected_confidence, equivalence, paired_interval

COUNT = 60
PLIES = 22
SEED = 12
SEEDS = 5
BUDGETS = (300, 1_000)
BOUND = 0.05
MID_SCALE = (0.10, 0.90)  # where an equivalence bound of 5 points is read at all
FILE = "solver_offline.json"


@dataclass
class Endgame:
    """One position: its moves from the empty board, the exact value of each column for the
    player to move (+1, 0, -1), and each search's column, per agent and budget, seed by seed."""

    moves: str
    values: dict[int, int]
    choices: dict[str, dict[int, list[int]]]  # "solver" / "uct" -> budget -> column per seed

    @property
    def state(self) -> ConnectFour:
        return ConnectFour.from_moves(self.moves)

    @property
    def right(self) -> int:
        return max(self.values, key=lambda a: self.values[a])

    def mistakes(self, agent: str, budget: int) -> float:
        """The share of this position's searches that chose another column than the right one."""
        picks = self.choices[agent][budget]
        return sum(p != self.right for p in picks) / len(picks)


def draw_endgames(count: int = COUNT, plies: int = PLIES, seed: int = SEED) -> list[Endgame]:
    """The design's positions, each with its exact column values (no searches yet)."""
    rng = random.Random(seed)
    found: list[Endgame] = []
    seen: set[ConnectFour] = set()
    while len(found) < count:
        state, moves = ConnectFour(), []
        for _ in range(plies):
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            moves.append(state.action_to_string(action))
            state = state.play(action)
        if state.is_terminal() or state in seen:
            continue
        seen.add(state)
        me = state.current_player
        if any(state.play(a).winner() == me for a in state.legal_actions()):
            continue
        values = {a: int(v) for a, v in move_values(state).items()}
        best = max(values.values())
        if sum(v == best for v in values.values()) == 1:
            found.append(Endgame(" ".join(moves), values, {}))
    return found


def search_all(endgame: Endgame, seeds: int = SEEDS, budgets: tuple[int, ...] = BUDGETS) -> None:
    """Fill ``endgame.choices``: every agent, budget and seed of the design."""
    state = endgame.state
    for name, agent in (("solver", MCTSSolverAgent), ("uct", MCTSAgent)):
        endgame.choices[name] = {
            b: [agent(b, seed=s).select_action(state) for s in range(seeds)] for b in budgets
        }


@dataclass
class Result:
    """The stored endgames read as the design says."""

    endgames: list[Endgame]
    budgets: tuple[int, ...]
    seeds: int

    def rates(self, agent: str, budget: int) -> list[float]:
        return [e.mistakes(agent, budget) for e in self.endgames]

    def mistakes(self, agent: str, budget: int) -> float:
        rates = self.rates(agent, budget)
        return sum(rates) / len(rates)

    def informative(self) -> int:
        """Positions where some search, of either agent at either budget, erred."""
        return sum(
            any(e.mistakes(a, b) > 0 for a in ("solver", "uct") for b in self.budgets)
            for e in self.endgames
        )

    def difference(self, budget: int) -> tuple[float, float]:
        """UCT's mistake share minus the solver's: paired percentile bootstrap over positions,
        Bonferroni over the budgets."""
        level = corrected_confidence(len(self.budgets))
        return paired_interval(self.rates("uct", budget), self.rates("solver", budget), level)

    def mid_scale(self, budget: int) -> bool:
        low, high = MID_SCALE
        return all(low <= self.mistakes(a, budget) <= high for a in ("solver", "uct"))

    def equivalent(self, budget: int) -> bool:
        """TOST within the pre-set bound (90% interval inside it), read only at mid-scale."""
        test = equivalence(self.rates("uct", budget), self.rates("solver", budget), BOUND)
        return self.mid_scale(budget) and test.equivalent

    def table(self) -> object:
        from mcts_lab.present import Table

        level = f"{corrected_confidence(len(self.budgets)):.1%}"
        column = f"UCT minus solver, percentage points ({level}, paired bootstrap)"
        rows = []
        for b in self.budgets:
            low, high = self.difference(b)
            rows.append(
                [
                    f"{b:,}",
                    self.mistakes("uct", b),
                    self.mistakes("solver", b),
                    100 * low,
                    100 * high,
                ]
            )
        return Table(
            ["iterations", "UCT's mistakes", "MCTS-Solver's", f"{column}: low", "high"],
            rows,
            {
                "UCT's mistakes": ".1%",
                "MCTS-Solver's": ".1%",
                f"{column}: low": "+.1f",
                "high": "+.1f",
            },
            right=["UCT's mistakes", "MCTS-Solver's", f"{column}: low", "high"],
        )


def to_json(endgames: list[Endgame], seeds: int = SEEDS, budgets: tuple[int, ...] = BUDGETS) -> str:
    rows = [
        {
            "moves": e.moves,
            "values": {str(a): v for a, v in e.values.items()},
            "choices": {
                name: {str(b): picks for b, picks in by_budget.items()}
                for name, by_budget in e.choices.items()
            },
        }
        for e in endgames
    ]
    head = {"count": COUNT, "plies": PLIES, "seed": SEED, "seeds": seeds}
    return json.dumps({**head, "budgets": list(budgets), "endgames": rows}, indent=0)


def from_json(text: str) -> Result:
    data = json.loads(text)
    endgames = [
        Endgame(
            row["moves"],
            {int(a): v for a, v in row["values"].items()},
            {
                name: {int(b): picks for b, picks in by_budget.items()}
                for name, by_budget in row["choices"].items()
            },
        )
        for row in data["endgames"]
    ]
    return Result(endgames, tuple(data["budgets"]), data["seeds"])


def load() -> Result:
    return from_json((resources.files("mcts_lab") / "data" / FILE).read_text())


def recheck(result: Result, exact: tuple[int, ...] = (0, 1), searched: int = 0) -> bool:
    """Solve the positions ``exact`` again and rerun every search of position ``searched``:
    the same column values and the same choices as the file's?"""
    for i in exact:
        e = result.endgames[i]
        if {a: int(v) for a, v in move_values(e.state).items()} != e.values:
            return False
    e = result.endgames[searched]
    again = Endgame(e.moves, e.values, {})
    search_all(again, result.seeds, result.budgets)
    return again.choices == e.choices


def main() -> None:  # pragma: no cover - minutes of exact search
    endgames = draw_endgames()
    for e in endgames:
        search_all(e)
    path = resources.files("mcts_lab") / "data" / FILE
    path.write_text(to_json(endgames) + "\n")  # type: ignore[attr-defined]
    result = from_json(to_json(endgames))
    for b in BUDGETS:
        print(b, result.mistakes("uct", b), result.mistakes("solver", b), result.difference(b))
    print("informative", result.informative())


if __name__ == "__main__":
    main()
