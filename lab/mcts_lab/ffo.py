"""Othello endgames solved by others: the FFO test positions #1-19, and how often a search
finds their best move.

The French Othello Federation (FFO) published endgame problems for programs in its newsletter
*FForum*; the first nineteen, with 14 to 16 empty squares, are distributed with the Edax program
(Richard Delorme) together with the exact final disc margin of **every** legal move, computed
by Edax's perfect endgame search.  The file format (``.obf``), one position a line::

    <64 squares a1 b1 .. h1 a2 .. h8: X black, O white, - empty> <side to move>; G8:+18; H1:+12; ...

A margin counts the empty squares for the winner, as tournament rules do; only its sign (win,
draw, loss) and its maximum (the best moves) are used here.

:func:`solved_shares` asks agents for a move in every position, with several seeds, and counts
the moves of the best margin and the moves that keep the exact outcome (a move whose margin has
the sign of the best margin: a won position stays won, a drawn one drawn).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from joblib import Parallel, delayed

from mcts_course.games import Othello
from mcts_course.stats import CONFIDENCE, bootstrap_interval, wilson_interval
from mcts_lab import N_JOBS
from mcts_lab.exact_paired import ExactDifference, exact_difference
from mcts_lab.paired import PairedDifference, corrected, paired_difference
from mcts_lab.present import Table

FFO_FILE = "fforum-1-19.obf"


@dataclass(frozen=True)
class SolvedPosition:
    """A position and the exact final disc margin of each legal move, for the player to move."""

    number: int  # the FFO number (1..19)
    state: Othello
    margins: dict[int, int]  # action -> exact final margin for the mover

    @property
    def best(self) -> int:
        return max(self.margins.values())

    @property
    def best_moves(self) -> set[int]:
        return {a for a, m in self.margins.items() if m == self.best}

    def keeps_outcome(self, action: int) -> bool:
        """Does ``action`` keep the position's exact outcome (win, draw or loss)?"""
        return sign(self.margins[action]) == sign(self.best)

    @property
    def empties(self) -> int:
        return 64 - (self.state.black | self.state.white).bit_count()


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def parse_obf_line(line: str, number: int) -> SolvedPosition:
    """One ``.obf`` line: the board, the side to move, every move's exact margin."""
    fields = line.strip().rstrip(";").split(";")
    board, side = fields[0].split()
    if len(board) != 64 or set(board) - set("XO-") or side not in ("X", "O"):
        raise ValueError(f"position {number}: not an .obf board and side: {fields[0]!r}")
    black = sum(1 << i for i, ch in enumerate(board) if ch == "X")
    white = sum(1 << i for i, ch in enumerate(board) if ch == "O")
    state = Othello(black, white, player=0 if side == "X" else 1)
    margins = {}
    for field in fields[1:]:
        move, margin = field.strip().split(":")
        margins[state.parse_action(move)] = int(margin)
    return SolvedPosition(number, state, margins)


def load_ffo(text: str | None = None) -> list[SolvedPosition]:
    """The FFO positions #1-19 (from the package's copy of the file, or from ``text``)."""
    if text is None:
        text = resources.files("mcts_lab").joinpath("data", FFO_FILE).read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    return [parse_obf_line(line, k + 1) for k, line in enumerate(lines)]


@dataclass(frozen=True)
class Share:
    """How one agent did over positions x seeds: best moves and outcome-keeping moves."""

    label: str
    best: int
    kept: int
    trials: int  # positions x seeds
    positions_best: int  # positions where every seed found a best move
    seconds: float  # mean seconds per decision
    # per position, the share of its seeds that found a best move / kept the outcome (the
    # position is the unit; empty when each position was decided once)
    best_by_position: tuple[float, ...] = ()
    kept_by_position: tuple[float, ...] = ()

    @property
    def positions(self) -> int:
        """The independent units: positions (the seeds on one position are not independent)."""
        return len(self.best_by_position) or self.trials

    @property
    def best_share(self) -> float:
        return self.best / self.trials

    @property
    def kept_share(self) -> float:
        return self.kept / self.trials

    @property
    def best_interval(self) -> tuple[float, float]:
        """Wilson's interval with n = the positions, not the decisions: several seeds on one
        position count as one unit (conservative: as if the seeds added nothing)."""
        return wilson_interval(self.best_share, self.positions)

    @property
    def kept_interval(self) -> tuple[float, float]:
        return wilson_interval(self.kept_share, self.positions)

    def position_interval(
        self, kept: bool = False, confidence: float = CONFIDENCE
    ) -> tuple[float, float]:
        """The percentile bootstrap over positions of the per-position shares (the book's rule
        for a rate per position, appendix "How the book measures").  Where every position gave
        the same share, resampling positions cannot move the mean and the bootstrap collapses
        to a point; Wilson's interval with n = the positions is given instead, as if each
        position were one trial."""
        by = self.kept_by_position if kept else self.best_by_position
        share = self.kept_share if kept else self.best_share
        if len(by) < 2 or len(set(by)) == 1:
            return wilson_interval(share, self.positions, confidence)
        return bootstrap_interval(by, confidence)


def paired(
    first: Share, second: Share, kept: bool = False, comparisons: int = 1
) -> PairedDifference:
    """``first``'s share minus ``second``'s on the same positions, paired by position, with a
    bootstrap interval over positions (Bonferroni-corrected for ``comparisons``)."""
    a, b = ((s.kept_by_position if kept else s.best_by_position) for s in (first, second))
    return paired_difference(a, b, corrected(comparisons))


def exact_paired(
    first: Share, second: Share, kept: bool = False, comparisons: int = 1
) -> ExactDifference:
    """``first``'s share minus ``second``'s, paired by position, with the exact sign-flip test
    over the positions and the interval that inverts it (Bonferroni for ``comparisons``)."""
    a, b = ((s.kept_by_position if kept else s.best_by_position) for s in (first, second))
    return exact_difference(a, b, corrected(comparisons))


def _decide(make: Callable[[int], object], position: SolvedPosition, seed: int):
    import time

    agent = make(seed)
    started = time.process_time()
    action = agent.select_action(position.state)  # type: ignore[attr-defined]
    return action, time.process_time() - started


def solved_shares(
    positions: Sequence[SolvedPosition],
    agents: Mapping[str, Callable[[int], object]],
    seeds: Mapping[str, int] | int = 1,
    n_jobs: int | None = N_JOBS,
) -> list[Share]:
    """Ask every agent (``make(seed)``) for a move in every position, with ``seeds`` seeds (one
    number for all agents, or one per label: a deterministic agent needs one), and count best
    and outcome-keeping moves."""
    out = []
    for label, make in agents.items():
        n = seeds if isinstance(seeds, int) else seeds[label]
        jobs = [(p, s) for p in positions for s in range(n)]
        done = Parallel(n_jobs=n_jobs)(delayed(_decide)(make, p, s) for p, s in jobs)
        best = kept = 0
        hit: dict[int, int] = {}
        held: dict[int, int] = {}
        for (p, _), (action, _) in zip(jobs, done, strict=True):
            best += action in p.best_moves
            kept += p.keeps_outcome(action)
            hit[p.number] = hit.get(p.number, 0) + (action in p.best_moves)
            held[p.number] = held.get(p.number, 0) + p.keeps_outcome(action)
        seconds = sum(t for _, t in done) / len(done)
        all_best = sum(h == n for h in hit.values())
        by_best = tuple(hit[p.number] / n for p in positions)
        by_kept = tuple(held[p.number] / n for p in positions)
        out.append(Share(label, best, kept, len(jobs), all_best, seconds, by_best, by_kept))
    return out


def share_table(shares: Sequence[Share], kept: bool = True, by_position: bool = False) -> Table:
    """One row per player: decisions, shares of best and of outcome-keeping moves with their
    95% intervals, and the mean milliseconds per decision on this machine.  ``kept=False``
    leaves out the outcome columns (where the best move and the outcome coincide).  The
    intervals are Wilson's with n = the positions, or (``by_position``) the bootstrap over
    positions of :meth:`Share.position_interval`."""
    rows = []
    for s in shares:
        if by_position:
            (b0, b1), (k0, k1) = s.position_interval(), s.position_interval(kept=True)
        else:
            (b0, b1), (k0, k1) = s.best_interval, s.kept_interval
        ms = s.seconds * 1000
        row = [s.label, s.trials, s.best_share, f"{b0:.0%} to {b1:.0%}"]
        if kept:
            row += [s.kept_share, f"{k0:.0%} to {k1:.0%}"]
        rows.append([*row, f"{ms:,.0f}" if ms >= 10 else f"{ms:.1f}"])
    columns = ["player", "decisions", "best move", "95% interval"]
    if kept:
        columns += ["outcome kept", "95% interval "]
    return Table(
        [*columns, "ms per move"],
        rows,
        {"best move": ".0%", "outcome kept": ".0%"},
        right=["decisions", "best move", "outcome kept", "ms per move"],
    )


def positions_table(positions: Sequence[SolvedPosition]) -> Table:
    """The positions: number, empty squares, side to move, best moves and their margin."""
    rows = []
    for p in positions:
        best = " ".join(p.state.action_to_string(a) for a in sorted(p.best_moves))
        rows.append(
            [
                p.number,
                p.empties,
                p.state.PLAYER_NAMES[p.state.current_player],
                len(p.margins),
                best,
                f"{p.best:+d}",
            ]
        )
    return Table(
        ["#", "empty squares", "to move", "legal moves", "best moves", "best margin (discs)"],
        rows,
        right=["#", "empty squares", "legal moves", "best margin (discs)"],
    )
