"""Speed benchmarks: our engines side by side with peers, measured in one run.

Every workload is timed in several rounds; ours and the peer's runs alternate inside each round,
so a noisy neighbour on a shared machine slows both alike, and the reported figure is the median
rate over the rounds.  Peers:

* OpenSpiel (a C++ game core, driven from Python as its users do) when ``open-spiel`` is
  installed (``pip install "mcts-course[bench]"``); it is never a runtime dependency;
* :class:`ListOthello`, a straightforward list-of-lists Othello of the kind found in teaching
  code, to show what the bitboards buy.

Speed is never asserted in the test suite: these are measurements to run and report.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from mcts_course.games import ConnectFour, GameState, Othello, TicTacToe

BATCH = 16384  # games per call of Othello.rollouts in the batched workload


class ListOthello:
    """Teaching-style Othello: a list of lists of "." / "B" / "W", scanned square by square.

    Only here as a speed baseline (and checked by perft in the tests, so the comparison is
    between two correct engines).
    """

    DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]

    def __init__(self) -> None:
        self.board = [["."] * 8 for _ in range(8)]
        self.board[3][3] = self.board[4][4] = "W"
        self.board[3][4] = self.board[4][3] = "B"
        self.player = "B"

    def opponent(self) -> str:
        return "W" if self.player == "B" else "B"

    def flips(self, row: int, col: int) -> list[tuple[int, int]]:
        if self.board[row][col] != ".":
            return []
        flipped = []
        for d_row, d_col in self.DIRECTIONS:
            r, c, line = row + d_row, col + d_col, []
            while 0 <= r < 8 and 0 <= c < 8 and self.board[r][c] == self.opponent():
                line.append((r, c))
                r, c = r + d_row, c + d_col
            if line and 0 <= r < 8 and 0 <= c < 8 and self.board[r][c] == self.player:
                flipped.extend(line)
        return flipped

    def legal_moves(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(8) for c in range(8) if self.flips(r, c)]

    def play(self, move: tuple[int, int] | None) -> None:
        """Play a move in place; None passes."""
        if move is not None:
            for r, c in self.flips(*move):
                self.board[r][c] = self.player
            self.board[move[0]][move[1]] = self.player
        self.player = self.opponent()

    def copy(self) -> ListOthello:
        other = ListOthello.__new__(ListOthello)
        other.board = [row[:] for row in self.board]
        other.player = self.player
        return other

    def rollout(self, rng: random.Random) -> int:
        """Black's disc count minus White's at the end of a random game played in place."""
        passes = 0
        while passes < 2:
            moves = self.legal_moves()
            if moves:
                self.play(rng.choice(moves))
                passes = 0
            else:
                self.play(None)
                passes += 1
        cells = [cell for row in self.board for cell in row]
        return cells.count("B") - cells.count("W")


@dataclass
class Measurement:
    workload: str
    unit: str
    ours: float
    peer_name: str | None = None
    peer: float | None = None
    target: float | None = None  # the ratio ours / peer we aim for

    @property
    def ratio(self) -> float | None:
        return self.ours / self.peer if self.peer else None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"ratio": self.ratio}


def rate_units(work: Callable[[], int], min_seconds: float) -> int:
    """Call ``work`` (which returns the units it did) until min_seconds have passed; the units."""
    done, start = 0, time.perf_counter()
    while True:
        done += work()
        if time.perf_counter() - start >= min_seconds:
            return done


def side_by_side(
    ours: Callable[[], int],
    peer: Callable[[], int] | None,
    rounds: int,
    min_seconds: float,
    slices: int = 10,
) -> tuple[float, float | None]:
    """Median rates of ``ours`` and ``peer`` over ``rounds``.

    Within a round the two take turns in ``slices`` short slices, so that a burst of load from
    another process on a shared machine hits both alike.
    """
    mine, theirs = [], []
    for _ in range(rounds):
        work = {"ours": [0, 0.0], "peer": [0, 0.0]}
        for _ in range(slices):
            for key, fn in (("ours", ours), ("peer", peer)):
                if fn is not None:
                    start = time.perf_counter()
                    units = rate_units(fn, min_seconds / slices)
                    work[key][0] += units
                    work[key][1] += time.perf_counter() - start
        mine.append(work["ours"][0] / work["ours"][1])
        if peer is not None:
            theirs.append(work["peer"][0] / work["peer"][1])
    return statistics.median(mine), statistics.median(theirs) if theirs else None


def _our_rollouts(game: type[GameState], rng: random.Random) -> Callable[[], int]:
    start = game()

    def work() -> int:
        start.rollout(rng)
        return 1

    return work


def _spiel_rollouts(name: str, rng: random.Random) -> Callable[[], int] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    start = pyspiel.load_game(name).new_initial_state()

    def work() -> int:  # the plain loop OpenSpiel's users write
        state = start.clone()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        state.returns()
        return 1

    return work


def _mcts_iterations(
    iterations: int, seed: int
) -> tuple[Callable[[], int], Callable[[], int] | None]:
    from mcts_course.agents import MCTSAgent

    agent = MCTSAgent(iterations=iterations, seed=seed)

    def ours() -> int:
        agent.search(Othello())
        return iterations

    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return ours, None
    game = pyspiel.load_game("othello")
    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bot = mcts.MCTSBot(game, 2**0.5, iterations, evaluator, random_state=random_state)

    def theirs() -> int:
        bot.mcts_search(game.new_initial_state())
        return iterations

    return ours, theirs


def run(
    rounds: int = 5, min_seconds: float = 1.0, seed: int = 0, mcts: bool = True
) -> list[Measurement]:
    """Measure every workload; returns the measurements (medians over ``rounds``)."""
    rng = random.Random(seed)
    results = []
    for game, spiel_name, target in (
        (Othello, "othello", 1.5),
        (ConnectFour, "connect_four", 1.0),
        (TicTacToe, "tic_tac_toe", 1.0),
    ):
        ours, theirs = side_by_side(
            _our_rollouts(game, rng), _spiel_rollouts(spiel_name, rng), rounds, min_seconds
        )
        results.append(
            Measurement(f"{game.NAME} rollouts", "games/s", ours, "OpenSpiel", theirs, target)
        )

    start = Othello()

    def batched() -> int:
        start.rollouts(BATCH, seed=rng.getrandbits(32))
        return BATCH

    ours, theirs = side_by_side(batched, _spiel_rollouts("othello", rng), rounds, min_seconds)
    results.append(
        Measurement("othello batched rollouts", "games/s", ours, "OpenSpiel", theirs, 10.0)
    )

    def teaching() -> int:
        ListOthello().rollout(rng)
        return 1

    ours, theirs = side_by_side(_our_rollouts(Othello, rng), teaching, rounds, min_seconds)
    results.append(
        Measurement("othello rollouts", "games/s", ours, "list-of-lists Othello", theirs, 20.0)
    )

    if mcts:
        try:
            ours_fn, theirs_fn = _mcts_iterations(200, seed)
        except ImportError:  # the agents are not there: nothing to measure
            ours_fn = None
        if ours_fn is not None:
            ours, theirs = side_by_side(ours_fn, theirs_fn, rounds, min_seconds)
            results.append(
                Measurement(
                    "othello MCTS (200 iterations)",
                    "iterations/s",
                    ours,
                    "OpenSpiel MCTSBot" if theirs else None,
                    theirs,
                    2.0,
                )
            )
    return results


def format_table(results: list[Measurement]) -> str:
    """A plain-text table of measurements, with ratios and targets."""
    header = f"{'workload':<30} {'ours':>12} {'peer':>12}  {'ratio':>7}  {'target':>7}  peer"
    lines = [header, "-" * len(header)]
    for m in results:
        peer = f"{m.peer:12,.0f}" if m.peer else f"{'-':>12}"
        ratio = f"{m.ratio:6.2f}x" if m.ratio else f"{'-':>7}"
        target = f"{m.target:6.1f}x" if m.target and m.peer else f"{'':>7}"
        met = "" if not m.ratio or not m.target else ("  ok" if m.ratio >= m.target else "  BELOW")
        name = m.peer_name or "(not installed)"
        lines.append(
            f"{m.workload:<30} {m.ours:12,.0f} {peer}  {ratio}  {target}  {name} ({m.unit}){met}"
        )
    return "\n".join(lines)
