"""Positions solved by the package's own exact search (:mod:`mcts_course.agents.exact`): Connect
Four endgames to measure searches against, and MCTS-Solver's proofs checked against them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mcts_course.agents.exact import exact_value, move_values
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.games import ConnectFour, GameState
from mcts_course.games.base import random_position
from mcts_lab.ffo import SolvedPosition
from mcts_lab.present import Table

WORDS = {1.0: "win", 0.5: "draw", 0.0: "loss"}  # MCTS-Solver's values for the player to move


def connect4_endgames(count: int, plies: int, seed: int) -> list[SolvedPosition]:
    """``count`` distinct Connect Four positions after ``plies`` random moves with a single
    right move (one move keeps the exact value, every other move gives something away) and no
    immediate win for the mover (a move any search finds at once), each with the exact value
    (+1, 0, -1) of every move."""
    rng = random.Random(seed)
    found: list[SolvedPosition] = []
    seen: set[GameState] = set()
    while len(found) < count:
        state = random_position(ConnectFour, plies, rng)
        if state is None or state in seen:
            continue
        seen.add(state)
        me = state.current_player
        if any(state.play(a).winner() == me for a in state.legal_actions()):
            continue
        values = move_values(state)
        best = max(values.values())
        if sum(v == best for v in values.values()) == 1:
            found.append(SolvedPosition(len(found) + 1, state, values))  # type: ignore[arg-type]
    return found


def solver_scale(state: GameState) -> float:
    """The exact value of ``state`` on MCTS-Solver's scale (1 win, 0.5 draw, 0 loss)."""
    return (exact_value(state) + 1) / 2


@dataclass
class SolverCheck:
    """MCTS-Solver's root proofs on a set of positions, against exact search."""

    positions: int
    iterations: int
    proven: int  # roots proven within the budget
    agree: int  # proofs equal to the exact value
    values: Counter  # exact values of all positions ("win", "draw", "loss")


def solver_check(positions: list[GameState], iterations: int) -> SolverCheck:
    """Search every position with MCTS-Solver (``iterations``, seeded by its index) and compare
    each proven root value with exact search."""
    proven = agree = 0
    for i, state in enumerate(positions):
        solver = MCTSSolverAgent(iterations, seed=i)
        solver.search(state)
        value = solver.root_value()
        if value is not None:
            proven += 1
            agree += value == solver_scale(state)
    values = Counter(WORDS[solver_scale(s)] for s in positions)
    return SolverCheck(len(positions), iterations, proven, agree, values)


@dataclass
class Proofs:
    """One search of MCTS-Solver: what it proved about each move, next to the exact values."""

    state: GameState
    choice: int
    proofs: dict[int, float]  # value for the mover (1 win, 0.5 draw, 0 loss); NaN: not proven
    exact: dict[int, float]  # the same scale, from exact search
    iterations: int

    @property
    def proven_moves(self) -> int:
        return sum(v == v for v in self.proofs.values())  # NaN != NaN

    def plot(self):
        import matplotlib.pyplot as plt

        from mcts_course.render import draw_board

        fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
        name = self.state.PLAYER_NAMES[self.state.current_player]
        move = self.state.action_to_string(self.choice)
        draw_board(
            self.state,
            ax=axes[0],
            overlay=self.proofs,
            cmap="RdYlGn",
            vmin=0,
            vmax=1,
            fmt="{:.1f}",
            colorbar=False,
            title=f"{name} to move: the solver's proofs; it plays {move}",
        )
        draw_board(
            self.state,
            ax=axes[1],
            overlay=self.exact,
            cmap="RdYlGn",
            vmin=0,
            vmax=1,
            fmt="{:.1f}",
            label="value for the mover (1 win, 0.5 draw, 0 loss)",
            title="exact values (exact search to the end)",
        )
        return fig


def solver_proofs(state: GameState, iterations: int, seed: int) -> Proofs:
    """Search ``state`` with MCTS-Solver; its proof for each root move, and the exact values."""
    solver = MCTSSolverAgent(iterations, seed=seed)
    choice = solver.select_action(state)
    mover = state.current_player
    proofs = {}
    for a, child in solver.last_root.children.items():
        v = solver.proven(child)
        proofs[a] = float("nan") if v is None else (v if child.player == mover else 1 - v)
    exact = {a: (v + 1) / 2 for a, v in move_values(state).items()}
    return Proofs(state, choice, proofs, exact, iterations)


def winning_with_losing_moves(positions: list[GameState]) -> GameState:
    """The first position that the mover wins although some of its moves lose."""
    for state in positions:
        values = move_values(state)
        if max(values.values()) == 1 and min(values.values()) == -1:
            return state
    raise ValueError("no position is won with some moves losing")


@dataclass
class SolverAgainstUCT:
    """MCTS-Solver and plain UCT on the same solved positions, at the same budgets and seeds:
    per position, the share of searches that play a move other than the single right one."""

    budgets: tuple[int, ...]
    seeds: int
    solver: dict[int, list[float]]
    uct: dict[int, list[float]]

    def mistakes(self, budget: int, solver: bool = True) -> float:
        rates = (self.solver if solver else self.uct)[budget]
        return sum(rates) / len(rates)

    def difference(self, budget: int, confidence: float) -> tuple[float, float]:
        """Paired bootstrap interval over positions of UCT's mistake rate minus the solver's."""
        from mcts_course.stats import paired_interval

        return paired_interval(self.uct[budget], self.solver[budget], confidence)

    def table(self, confidence: float) -> Table:
        level = f"{confidence:.1%}".replace(".0%", "%")
        rows = []
        for b in self.budgets:
            low, high = self.difference(b, confidence)
            rows.append(
                [
                    f"{b:,}",
                    self.mistakes(b, False),
                    self.mistakes(b),
                    f"{_end(low)} to {_end(high)}",
                ]
            )
        return Table(
            ["iterations", "UCT's mistakes", "MCTS-Solver's", f"UCT minus solver ({level})"],
            rows,
            {"UCT's mistakes": ".1%", "MCTS-Solver's": ".1%"},
            right=["UCT's mistakes", "MCTS-Solver's", f"UCT minus solver ({level})"],
        )


def _end(x: float) -> str:
    """An interval's end with its sign, but an end at 0 as a plain 0: "+0.0%" would hide
    whether the interval includes 0."""
    return "0" if abs(x) < 5e-4 else f"{x:+.1%}"


def solver_against_uct(
    positions: list[SolvedPosition], budgets: tuple[int, ...], seeds: int
) -> SolverAgainstUCT:
    """Search every position with MCTS-Solver and with the package's UCT (same c, same
    playouts), ``seeds`` seeds each, at every budget; a mistake is any move but the right one."""
    from mcts_course.agents import MCTSAgent

    rates: dict[bool, dict[int, list[float]]] = {True: {}, False: {}}
    for use_solver, agent in ((True, MCTSSolverAgent), (False, MCTSAgent)):
        for budget in budgets:
            rates[use_solver][budget] = [
                sum(
                    agent(budget, seed=s).select_action(p.state) not in p.best_moves
                    for s in range(seeds)
                )
                / seeds
                for p in positions
            ]
    return SolverAgainstUCT(budgets, seeds, rates[True], rates[False])


def mirror_pairs(states: Sequence[GameState]) -> tuple[list[tuple[int, int]], int]:
    """(pairs, own): the pairs (i, j), i < j, of ``states`` that are each other's left-right
    mirror image (the board read with its columns reversed, the same player to move), and how
    many states are their own mirror image.  A mirror pair poses one problem twice; a sample
    that counts positions as independent units should hold none."""
    keys = [(tuple(map(tuple, s.board())), s.current_player) for s in states]
    mirrors = [(tuple(tuple(row[::-1]) for row in board), p) for board, p in keys]
    own = sum(k == m for k, m in zip(keys, mirrors, strict=True))
    first: dict[object, list[int]] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, []).append(i)
    pairs = [
        (i, j) for i, m in enumerate(mirrors) if m != keys[i] for j in first.get(m, []) if i < j
    ]
    return pairs, own
