"""Helpers the book's chapters share: code listings from the package, sentences about matches.

Listings come from the package itself (:func:`show_source`), so the book and the code cannot
disagree.  A chapter that says "MCTS wins clearly" must still be right when the experiment is
rerun with other seeds or more games, so the words that depend on a result come from the result.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Sequence
from typing import Any

from mcts_course.arena import MatchResult
from mcts_course.stats import CONFIDENCE, difference_interval

GAME_TITLES = {"othello": "Othello", "connect4": "Connect Four", "tictactoe": "Tic-tac-toe"}


def percent_axis(axis: Any) -> None:
    """Label ``axis`` (a matplotlib axis holding shares) in percent, with as many decimals as
    each tick needs: 2.5% stays 2.5%, where a formatter with fixed decimals could print 2% or
    3% beside a gridline at 2.5%."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda y, _: f"{100 * y:g}%"))


def game_title(name: str) -> str:
    """A game's name for a reader (``"connect4"`` -> ``"Connect Four"``)."""
    return GAME_TITLES.get(name, name)


def show_source(*objs: Any, docstrings: bool = True) -> Any:
    """The source code of functions or classes of the package, as one highlighted Markdown
    block (several objects: one after the other, a blank line apart); ``docstrings=False``
    leaves out each function's docstring, for a page whose text already says what it does."""
    from IPython.display import Markdown

    sources = [textwrap.dedent(inspect.getsource(obj)).rstrip() for obj in objs]
    if not docstrings:
        sources = [_without_docstring(source) for source in sources]
    code = "\n\n".join(sources)
    return Markdown(f"```python\n{code}\n```")


def _without_docstring(source: str) -> str:
    """``source`` (one function or class) without the docstring at the top of its body."""
    import ast

    body = ast.parse(source).body[0]
    lines = source.splitlines()
    first = getattr(body, "body", [None])[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        del lines[first.lineno - 1 : first.end_lineno]
    return "\n".join(lines)


def summary(result: MatchResult) -> str:
    """One line of Markdown: who played, wins-losses, draws, score and its 95% interval."""
    lo, hi = result.interval
    draws = f"{result.draws} draw{'' if result.draws == 1 else 's'}"
    return (
        f"{result.names[0]} vs {result.names[1]}: **{result.wins}-{result.losses}** ({draws}) "
        f"in {result.games} games, score {result.score:.1%} (95% interval {span(lo, hi)})"
    )


def verdict(result: MatchResult) -> str:
    """What the interval lets us say: who is stronger, or that the match cannot tell."""
    first, second = result.names
    side = told_apart(result)
    if side > 0:
        return f"{first} is stronger than {second} (the whole interval lies above 50%)"
    if side < 0:
        return f"{first} is weaker than {second} (the whole interval lies below 50%)"
    return f"{first} and {second} cannot be told apart in {result.games} games"


def reported_score(wins: int, losses: int | None, games: int = 100) -> float:
    """The score of a result reported as wins-losses in ``games`` (a draw counts half); with
    ``losses`` unknown, the lowest score the wins allow."""
    draws = 0 if losses is None else games - wins - losses
    return (wins + draws / 2) / games


def compare(result: MatchResult, wins: int, losses: int | None, games: int = 100) -> str:
    """Our result next to one reported by earlier course material, and whether the reported
    score lies in our 95% interval."""
    earlier = reported_score(wins, losses, games)
    where = "inside" if inside(result, wins, losses, games) else "**outside**"
    then = f"{wins}-{losses}" if losses is not None else f"{wins} won"
    at_least = "" if losses is not None else "at least "
    return (
        f"{summary(result)}.  Earlier course: {then} in {games} games (score {at_least}"
        f"{earlier:.0%}), {where} our interval."
    )


def inside(result: MatchResult, wins: int, losses: int | None, games: int = 100) -> bool:
    """Does the reported score lie in our interval?"""
    lo, hi = result.interval
    return lo <= reported_score(wins, losses, games) <= hi


def p_text(p: float) -> str:
    """A p-value as the book prints it: three decimals, and "< 0.001" below that (a resampled
    p-value has no meaningful fourth decimal: its resolution is one over the resamples)."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def side_to_move(state: Any) -> str:
    """The name of the player to move in ``state`` (Black, White, X, O, Red, Yellow)."""
    return state.PLAYER_NAMES[state.current_player]


def span(low: float, high: float, signed: bool = False) -> str:
    """An interval of shares as the book prints it: one decimal, "to" between (signs kept
    with ``signed``, for a difference)."""
    return f"{low:+.1%} to {high:+.1%}" if signed else f"{low:.1%} to {high:.1%}"


def interval_text(result: MatchResult) -> str:
    """The 95% interval with one decimal, so that "inside" never looks like a rounding error."""
    return span(*result.interval)


def versus_reported(
    result: MatchResult,
    wins: int,
    losses: int | None,
    confidence: float = CONFIDENCE,
    games: int = 100,
) -> tuple[float, float]:
    """The interval of our score minus a reported one: two independent samples (our games,
    their ``games``), each score treated as a binomial proportion (``stats.difference_interval``),
    at ``confidence`` (the section's Bonferroni level when it reads several comparisons)."""
    theirs = reported_score(wins, losses, games)
    return difference_interval(result.score, result.games, theirs, games, confidence)


def earlier_table(
    rows: list[tuple[str, MatchResult, int, int | None]],
    confidence: float = CONFIDENCE,
    games: int = 100,
) -> str:
    """A Markdown table: each earlier experiment (label, our result, their wins and losses in
    ``games``), their score, ours with its 95% interval, and the difference ours minus theirs
    with its two-sample interval at ``confidence``."""
    lines = [
        "| experiment | their result | their score | our result | our score | our 95% interval "
        f"| ours − theirs ({confidence:.1%} interval) |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for label, result, wins, losses in rows:
        then = f"{wins}-{losses}" if losses is not None else f"{wins} won"
        theirs = reported_score(wins, losses, games)
        at_least = "" if losses is not None else "≥ "
        lo, hi = versus_reported(result, wins, losses, confidence, games)
        lines.append(
            f"| {label} | {then} | {at_least}{theirs:.1%} | {result.wins}-{result.losses} "
            f"({result.games} games) | {result.score:.1%} | {interval_text(result)} "
            f"| {result.score - theirs:+.1%} ({span(lo, hi, signed=True)}) |"
        )
    return "\n".join(lines)


def told_apart(result: MatchResult) -> int:
    """+1 if the whole 95% interval lies above one half, -1 if below, 0 if it holds one half."""
    lo, hi = result.interval
    return 1 if lo > 0.5 else -1 if hi < 0.5 else 0


def error_bars(
    scores: Sequence[float], intervals: Sequence[tuple[float, float]]
) -> list[list[float]]:
    """matplotlib's ``yerr`` for points with asymmetric intervals: how far each interval reaches
    below and above its score (never negative, where float rounding puts a score at 100% a hair
    above its interval's top)."""
    pairs = list(zip(scores, intervals, strict=True))
    return [[max(0.0, s - lo) for s, (lo, _) in pairs], [max(0.0, hi - s) for s, (_, hi) in pairs]]


def score_bars(
    scores: dict[str, float],
    games: int,
    ax: Any = None,
    title: str = "",
    ylabel: str = "score",
    confidence: float = 0.95,
) -> Any:
    """A bar per entry of ``scores`` (a score in [0, 1] over ``games`` games) with its Wilson
    interval at ``confidence``, and a line at one half: a bar whose interval does not cross the
    line is told apart from an equal opponent.  Draws on ``ax`` (a new figure if None)."""
    import matplotlib.pyplot as plt

    from mcts_course.stats import wilson_interval

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    values = list(scores.values())
    err = error_bars(values, [wilson_interval(s, games, confidence) for s in values])
    ax.bar(list(scores), values, yerr=err, capsize=4, color="#4c72b0", gid="score")
    ax.axhline(0.5, color="gray", lw=1, gid="even")
    ax.set_ylim(0, 1)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


class Table:
    """A table for the book: named columns and rows of values, shown as Markdown (myst-nb
    renders it as a table).  ``formats`` maps a column to a format spec such as ``".3f"``."""

    def __init__(
        self,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        formats: dict[str, str] | None = None,
        right: Sequence[str] = (),
    ):
        self.columns = list(columns)
        self.rows = [list(row) for row in rows]
        self.formats = formats or {}
        self.right = set(right)

    def cell(self, column: str, value: Any) -> str:
        spec = self.formats.get(column)
        return format(value, spec) if spec is not None else str(value)

    @property
    def data(self) -> str:
        """The Markdown text, under the name IPython's ``Markdown`` objects give it."""
        return self._repr_markdown_()

    def _repr_markdown_(self) -> str:
        align = ["--:" if c in self.right else "---" for c in self.columns]
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "|".join(align) + "|"]
        for row in self.rows:
            cells = (self.cell(c, v) for c, v in zip(self.columns, row, strict=True))
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)


def root_table(agent: Any) -> Table:
    """An MCTS agent's root after its last search: every move's visits, wins and mean."""
    rows = [[r["move"], r["visits"], r["wins"], r["mean"]] for r in agent.root_table()]
    return Table(
        ["move", "visits", "wins", "mean"],
        rows,
        {"wins": "g", "mean": ".3f"},
        right=["visits", "wins", "mean"],
    )
