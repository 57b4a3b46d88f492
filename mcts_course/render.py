"""Pictures of positions and games: :func:`draw_board`, :func:`animate_game`, :func:`state_png`.

::

    draw_board(state)                                   # the position, legal moves as dots
    draw_board(state, last_action=19)                   # ... with the last move marked
    draw_board(state, overlay={19: 0.61, 26: 0.40})     # numbers per move as a heat map
    draw_board(state, overlay=search_overlay(agent.last_root, "visits"))   # MCTS visit counts
    HTML(animate_game(record).to_jshtml())              # replay a game (no ffmpeg needed)

An overlay is a dict ``{action: value}``, an array of shape ``(ROWS, COLS)``, or a flat array
with one value per action.  In Connect Four an action is a column, so a dict or a flat array of
7 values is drawn as a strip of coloured boxes above the columns.

Every artist that stands for something carries a ``gid`` so tests (and curious readers) can find
it: ``"disc-0"`` / ``"disc-1"`` (a disc or mark of player 0 / 1), ``"legal"``, ``"last-move"``,
``"overlay"``, ``"win-line"``.

A game is drawn in the style its class names in ``DRAWING`` (``"discs"``, ``"marks"``,
``"columns"``; :data:`LOOKS`), so a new game needs no change here; a new style is added with
:func:`register_look`.  Importing this module also lets notebooks show a state as its picture
(it registers :func:`state_png` with the games, which never import the pictures).

matplotlib is imported only when a picture is drawn, so ``import mcts_course`` stays fast.
"""

from __future__ import annotations

import base64
import io
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

import numpy as np

from mcts_course.errors import needs
from mcts_course.games.base import GameState

if TYPE_CHECKING:
    from types import ModuleType

    from IPython.display import HTML
    from matplotlib.animation import FuncAnimation
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle


class GameRecord(Protocol):
    """What the animations need from a game record (:class:`mcts_course.arena.GameRecord`)."""

    moves: list[int]
    states: Sequence[GameState]
    players: tuple[str, str]

    @property
    def start(self) -> GameState: ...

    @property
    def final(self) -> GameState: ...


Overlay = Mapping[int, float] | np.ndarray | None


class _Colours(TypedDict, total=False):
    board: str
    frame: str
    line: str
    hole: str
    last: str
    face: tuple[str, str]
    edge: tuple[str, str]


# Colours (RGB hex).  Per drawing style: the board, and the face/edge of each player's pieces.
_OTHELLO: _Colours = {
    "board": "#2e8b57",
    "frame": "#1b5e3a",
    "line": "#123d27",
    "face": ("#151515", "#f7f7f2"),
    "edge": ("#000000", "#5b5b5b"),
}
_TICTACTOE: _Colours = {
    "board": "#fbf8ef",
    "line": "#3a3a3a",
    "face": ("#1f4e9c", "#d1495b"),
    "last": "#ffe9a8",
}
_CONNECT4: _Colours = {
    "face": ("#e63946", "#ffd23f"),
    "edge": ("#a4161a", "#d9a400"),
    "board": "#1f5fbf",
    "frame": "#17479a",
    "hole": "#ffffff",
}
_LAST_MOVE = "#e53935"
_TEXT = "#333333"


# -- matplotlib, lazily --------------------------------------------------------------------------
def _pyplot() -> ModuleType:
    """matplotlib.pyplot, with the Agg backend when there is no display to draw on."""
    matplotlib = needs("matplotlib", "pictures")  # an extra: the library needs numpy alone

    headless = sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    if headless and "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _figure_size(state: GameState, overlay: bool) -> tuple[float, float]:
    size = look_of(state).size
    return (size[0] + (0.9 if overlay else 0.0), size[1])


# -- overlays ------------------------------------------------------------------------------------
def _overlay_arrays(state: GameState, overlay: Overlay) -> tuple[Any, Any]:
    """The overlay as (cells, columns): a (ROWS, COLS) grid or, for Connect Four, a row of COLS
    values, with NaN where there is no value.  At most one of the two is not None."""
    if overlay is None:
        return None, None
    rows, cols = state.ROWS, state.COLS
    per_column = look_of(state).per_column  # actions are columns (Connect Four)
    if isinstance(overlay, Mapping):
        if per_column:
            columns = np.full(cols, np.nan)
            for action, value in overlay.items():
                columns[int(action)] = value
            return None, columns
        cells = np.full((rows, cols), np.nan)
        for action, value in overlay.items():
            cell = state.cell_of(int(action))
            if cell is not None:  # Othello's pass has no square
                cells[cell] = value
        return cells, None
    values = np.asarray(overlay, dtype=float)
    if values.shape == (rows, cols):
        return values, None
    if values.ndim == 1 and per_column and values.size == cols:
        return None, values
    if values.ndim == 1 and values.size in (state.NUM_ACTIONS, rows * cols):
        return values[: rows * cols].reshape(rows, cols), None
    raise ValueError(
        f"an overlay for {state.NAME} is a dict {{action: value}}, a ({rows}, {cols}) array or "
        f"a flat array of {state.NUM_ACTIONS} values, not an array of shape {values.shape}"
    )


def _format(values: np.ndarray, fmt: str | None) -> str:
    """A format for the numbers of an overlay: integers as such, small values with decimals."""
    if fmt is not None:
        return fmt
    finite = values[np.isfinite(values)]
    if finite.size and np.all(finite == np.round(finite)):
        return "{:.0f}"
    return "{:.2f}" if finite.size and np.max(np.abs(finite)) < 10 else "{:.1f}"


def _text_colour(rgba: tuple[float, ...]) -> str:
    luminance = 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]
    return "#111111" if luminance > 0.55 else "#ffffff"


def search_overlay(root: Any, value: str = "visits") -> dict[int, float]:
    """Numbers per move from an MCTS root node, for ``draw_board(..., overlay=...)``.

    ``value`` is ``"visits"`` (the visit counts) or ``"mean"`` (each child's mean reward, the
    win rate of the player to move at the root, draws counted half).
    """
    if value == "visits":
        return {a: child.visits for a, child in root.children.items()}
    if value == "mean":
        return {a: child.wins / child.visits for a, child in root.children.items() if child.visits}
    raise ValueError(f"value must be 'visits' or 'mean', not {value!r}")


# -- drawing helpers -----------------------------------------------------------------------------
def _points_per_unit(ax: Axes) -> float:
    """How many typographic points one board cell spans (to scale lines and fonts)."""
    fig = ax.figure  # a Figure, or a SubFigure of one: the position is relative to it
    box = ax.get_position().transformed(fig.transSubfigure)  # in pixels
    width = box.width / fig.dpi * 72
    height = box.height / fig.dpi * 72
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    return min(width / abs(x1 - x0), height / abs(y1 - y0))


def _circle(ax: Axes, row: float, col: float, radius: float, gid: str, **style: Any) -> Circle:
    from matplotlib.patches import Circle

    patch = Circle((col + 0.5, row + 0.5), radius, gid=gid, **style)
    # add_artist, not add_patch: the limits are set once by draw_board, and add_patch's update
    # of the data limits per disc was a third of the time of drawing a full Othello board.
    ax.add_artist(patch)
    return patch


Cell = tuple[int, int]


def _disc(
    ax: Axes, row: int, col: int, owner: int, style: _Colours, radius: float, lw: float
) -> None:
    """``owner``'s disc on (row, col), in the colours of the game's ``style``."""
    face, edge = style["face"][owner], style["edge"][owner]
    _circle(ax, row, col, radius, f"disc-{owner}", facecolor=face, edgecolor=edge, lw=lw, zorder=3)


def _legal_dots(
    ax: Axes,
    state: GameState,
    style: _Colours,
    cells: np.ndarray | None,
    radius: float,
    alpha: float,
) -> None:
    """A faint dot in the mover's colour on each legal move's cell that shows no overlay value."""
    if state.is_terminal():
        return
    face = style["face"][state.current_player]
    for action in state.legal_actions():
        cell = state.cell_of(action)
        if cell is not None and (cells is None or not np.isfinite(cells[cell])):
            _circle(ax, *cell, radius, "legal", facecolor=face, alpha=alpha, lw=0, zorder=3)


def _winning_line(board: np.ndarray, player: int, length: int) -> tuple[Cell, Cell] | None:
    """The end cells ((r0, c0), (r1, c1)) of a line of ``length`` of ``player``'s pieces."""
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end = (r + dr * (length - 1), c + dc * (length - 1))
                if not (0 <= end[0] < rows and 0 <= end[1] < cols):
                    continue
                if all(board[r + dr * k, c + dc * k] == player for k in range(length)):
                    return (r, c), end
    return None


def _draw_win_line(ax: Axes, state: GameState, unit: float) -> None:
    winner, length = state.winner(), state.LINE_LENGTH
    if winner is None or length is None:
        return
    line = _winning_line(np.asarray(state.board()), winner, length)
    if line is not None:
        (r0, c0), (r1, c1) = line
        ax.plot(
            [c0 + 0.5, c1 + 0.5],
            [r0 + 0.5, r1 + 0.5],
            color="#222222",
            alpha=0.6,
            lw=0.07 * unit,
            solid_capstyle="round",
            zorder=6,
            gid="win-line",
        )


def _coordinates(ax: Axes, state: GameState, files: str, top: float, unit: float) -> None:
    """File letters above the board and rank numbers (1 on top) to its left."""
    size = max(6.0, min(11.0, 0.28 * unit))
    for col in range(state.COLS):
        ax.text(col + 0.5, top, files[col], ha="center", va="center", fontsize=size, color=_TEXT)
    for row in range(state.ROWS):
        ax.text(-0.3, row + 0.5, str(row + 1), ha="center", va="center", fontsize=size, color=_TEXT)


def _overlay_cells(
    ax: Axes,
    cells: np.ndarray,
    mappable: Any,
    fmt: str,
    unit: float,
    alpha: float = 0.9,
    board: np.ndarray | None = None,
    faces: tuple[str, str] | None = None,
) -> None:
    """Colour the cells that have a value and write the value in them (in a colour that stands
    out from the disc in the cell, if ``board`` and the discs' ``faces`` are given)."""
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle

    for (row, col), value in np.ndenumerate(cells):
        if not np.isfinite(value):
            continue
        rgba = mappable.to_rgba(value)
        ax.add_patch(
            Rectangle((col, row), 1, 1, facecolor=rgba, alpha=alpha, lw=0, zorder=1, gid="overlay")
        )
        under = rgba
        if board is not None and faces is not None and board[row, col] >= 0:
            under = to_rgba(faces[board[row, col]])
        _value_text(ax, row, col, fmt.format(value), _text_colour(under), unit)


def _value_text(ax: Axes, row: float, col: float, text: str, colour: str, unit: float) -> None:
    import matplotlib.patheffects as effects

    size = max(5.0, min(14.0, 0.3 * unit, 1.15 * unit / max(len(text), 1)))
    halo = "#000000" if colour == "#ffffff" else "#ffffff"  # keeps numbers readable on discs
    ax.text(
        col + 0.5,
        row + 0.5,
        text,
        ha="center",
        va="center",
        fontsize=size,
        color=colour,
        zorder=8,
        fontweight="bold",
        path_effects=[effects.withStroke(linewidth=size / 8, foreground=halo, alpha=0.35)],
    )


def _status(state: GameState, last_action: int | None) -> str:
    """The default title: who is to move, or how the game ended (and the disc count, in games
    that the count decides)."""
    names = state.PLAYER_NAMES
    discs = state.disc_counts()
    counts = "" if discs is None else f"  ({names[0]} {discs[0]}, {names[1]} {discs[1]})"
    if state.is_terminal():
        winner = state.winner()
        result = "draw" if winner is None else f"{names[winner]} wins"
        return result + counts
    verb = "must pass" if state.must_pass() else "to move"
    text = f"{names[state.current_player]} {verb}" + counts
    if state.is_pass(last_action):
        text += ", after a pass"
    return text


@dataclass(frozen=True)
class Marks:
    """What a drawing style puts on the board beside the pieces: the last move, the legal moves,
    an overlay's values (per cell, or per column for a column game) with their colour map and
    number format, and the size of a board unit in points (for line widths and text)."""

    last_action: int | None
    show_legal: bool
    cells: np.ndarray | None
    mappable: Any
    fmt: str
    unit: float
    columns: np.ndarray | None = None

    def unpacked(self) -> tuple[int | None, bool, np.ndarray | None, Any, str, float]:
        return self.last_action, self.show_legal, self.cells, self.mappable, self.fmt, self.unit


# -- the three drawing styles --------------------------------------------------------------------
def _draw_grid_game(ax: Axes, state: GameState, marks: Marks) -> None:
    """Discs on a grid of squares: Othello, and the default for any game on a grid."""
    last_action, show_legal, cells, mappable, fmt, unit = marks.unpacked()
    from matplotlib.patches import Rectangle

    style = _OTHELLO
    rows, cols = state.ROWS, state.COLS
    ax.add_patch(
        Rectangle(
            (-0.12, -0.12), cols + 0.24, rows + 0.24, facecolor=style["frame"], lw=0, zorder=0
        )
    )
    ax.add_patch(Rectangle((0, 0), cols, rows, facecolor=style["board"], lw=0, zorder=0))
    if cells is not None:
        _overlay_cells(
            ax, cells, mappable, fmt, unit, board=np.asarray(state.board()), faces=style["face"]
        )
    for k in range(rows + 1):
        ax.plot([0, cols], [k, k], color=style["line"], lw=max(0.6, 0.03 * unit), zorder=2)
    for k in range(cols + 1):
        ax.plot([k, k], [0, rows], color=style["line"], lw=max(0.6, 0.03 * unit), zorder=2)
    if (rows, cols) == (8, 8):  # the four small dots that mark the centre 4x4 of the board
        for r, c in ((2, 2), (2, 6), (6, 2), (6, 6)):
            ax.add_patch(_dot(c, r, 0.07, style["line"]))
    board = np.asarray(state.board())
    for (row, col), owner in np.ndenumerate(board):
        if owner >= 0:
            _disc(ax, row, col, owner, style, 0.41, max(0.5, 0.025 * unit))
    if show_legal:
        _legal_dots(ax, state, style, cells, 0.13, 0.35)
    cell = None if last_action is None else state.cell_of(last_action)
    if cell is not None:
        _circle(ax, *cell, 0.1, "last-move", facecolor=_LAST_MOVE, lw=0, zorder=7)
    _coordinates(ax, state, "abcdefghijklmnopqrstuvwxyz", -0.32, unit)


def _dot(x: float, y: float, radius: float, colour: str) -> Circle:
    from matplotlib.patches import Circle

    return Circle((x, y), radius, facecolor=colour, lw=0, zorder=2)


def _draw_tictactoe(ax: Axes, state: GameState, marks: Marks) -> None:
    last_action, show_legal, cells, mappable, fmt, unit = marks.unpacked()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    style = _TICTACTOE
    n = state.ROWS
    ax.add_patch(Rectangle((0, 0), n, n, facecolor=style["board"], lw=0, zorder=0))
    cell = None if last_action is None else state.cell_of(last_action)
    if cell is not None:
        ax.add_patch(
            Rectangle(
                (cell[1], cell[0]), 1, 1, facecolor=style["last"], lw=0, zorder=0.5, gid="last-move"
            )
        )
    if cells is not None:
        _overlay_cells(ax, cells, mappable, fmt, unit, alpha=0.85)
    for k in range(1, n):
        for xs, ys in (([k, k], [0.06, n - 0.06]), ([0.06, n - 0.06], [k, k])):
            ax.plot(xs, ys, color=style["line"], lw=0.06 * unit, solid_capstyle="round", zorder=2)
    width = 0.1 * unit
    for (row, col), owner in np.ndenumerate(np.asarray(state.board())):
        if owner == 0:  # X: one artist, the two strokes separated by a NaN
            x, y, d = col + 0.5, row + 0.5, 0.28
            xs = [x - d, x + d, np.nan, x - d, x + d]
            ys = [y - d, y + d, np.nan, y + d, y - d]
            ax.add_line(
                Line2D(
                    xs,
                    ys,
                    color=style["face"][0],
                    lw=width,
                    solid_capstyle="round",
                    zorder=4,
                    gid="disc-0",
                )
            )
        elif owner == 1:
            _circle(
                ax,
                row,
                col,
                0.29,
                "disc-1",
                fill=False,
                edgecolor=style["face"][1],
                lw=width,
                zorder=4,
            )
    if show_legal:
        _legal_dots(ax, state, style, cells, 0.08, 0.3)
    _draw_win_line(ax, state, unit)
    _coordinates(ax, state, "abcdefghijklmnopqrstuvwxyz", -0.25, unit)


def _draw_connect4(ax: Axes, state: GameState, marks: Marks) -> None:
    last_action, show_legal, cells, mappable, fmt, unit = marks.unpacked()
    columns = marks.columns
    from matplotlib.patches import FancyBboxPatch, Rectangle

    style = _CONNECT4
    rows, cols = state.ROWS, state.COLS
    ax.add_patch(
        FancyBboxPatch(
            (0, 0),
            cols,
            rows,
            boxstyle="round,pad=0.08,rounding_size=0.25",
            facecolor=style["board"],
            edgecolor=style["frame"],
            lw=0.04 * unit,
            zorder=1,
        )
    )
    board = np.asarray(state.board())
    for (row, col), owner in np.ndenumerate(board):
        if owner >= 0:
            _disc(ax, row, col, owner, style, 0.4, 0.04 * unit)
        else:
            value = np.nan if cells is None else cells[row, col]
            rgba = mappable.to_rgba(value) if np.isfinite(value) else None
            face = style["hole"] if rgba is None else rgba
            _circle(
                ax,
                row,
                col,
                0.4,
                "hole",
                facecolor=face,
                edgecolor=style["frame"],
                lw=0.02 * unit,
                zorder=2,
            )
            if rgba is not None:
                _value_text(ax, row, col, fmt.format(value), _text_colour(rgba), unit)
    if columns is not None:  # one value per column, in boxes above the board
        for col, value in enumerate(columns):
            if np.isfinite(value):
                rgba = mappable.to_rgba(value)
                ax.add_patch(
                    Rectangle(
                        (col + 0.06, -1.1),
                        0.88,
                        0.88,
                        facecolor=rgba,
                        lw=0,
                        zorder=2,
                        gid="overlay",
                    )
                )
                _value_text(ax, -1.16, col, fmt.format(value), _text_colour(rgba), unit)
    elif show_legal and not state.is_terminal():
        face = style["face"][state.current_player]
        for col in state.legal_actions():
            _circle(ax, -1.16, col, 0.3, "legal", facecolor=face, alpha=0.45, lw=0, zorder=2)
    if last_action is not None and 0 <= last_action < cols:
        filled = np.flatnonzero(board[:, last_action] >= 0)
        if filled.size:
            _circle(
                ax,
                filled[0],
                last_action,
                0.1,
                "last-move",
                facecolor="#1b1b1b",
                alpha=0.8,
                lw=0,
                zorder=7,
            )
    _draw_win_line(ax, state, unit)
    size = max(6.0, min(11.0, 0.3 * unit))
    for col in range(cols):
        ax.text(
            col + 0.5,
            rows + 0.42,
            str(col + 1),
            ha="center",
            va="center",
            fontsize=size,
            color=_TEXT,
        )


@dataclass(frozen=True)
class Look:
    """How a drawing style draws a board: the drawing function, the picture's limits in board
    cells ``(x0, x1, y_top, y_bottom)`` for ``(rows, cols)``, the figure size in inches, whether
    an overlay dict gives one value per column (actions are columns), and for the play widget
    the button size and (text, text colour, background) of an empty cell and of each player's."""

    draw: Callable[[Axes, GameState, Marks], None]
    limits: Callable[[int, int], tuple[float, float, float, float]]
    size: tuple[float, float]
    per_column: bool = False
    button: str = "40px"
    buttons: tuple[tuple[str, str, str], ...] = (
        ("", "black", "#2e7d32"),
        ("●", "black", "#2e7d32"),
        ("●", "white", "#2e7d32"),
    )


# The drawing styles, by the name a game class gives as its DRAWING.  A game with a new look
# registers it here with register_look(); an unknown style is drawn as discs on a grid.
LOOKS: dict[str, Look] = {
    "discs": Look(
        _draw_grid_game, lambda r, c: (-0.62, c + 0.14, -0.64, r + 0.14), (4.3, 4.3), button="38px"
    ),
    "marks": Look(
        _draw_tictactoe,
        lambda r, c: (-0.55, c + 0.06, -0.5, r + 0.06),
        (3.0, 3.0),
        button="60px",
        buttons=(
            ("", "black", "#fafafa"),
            ("X", "#1f4e9c", "#fafafa"),  # the colours of the drawn boards (_TICTACTOE)
            ("O", "#d1495b", "#fafafa"),
        ),
    ),
    "columns": Look(
        _draw_connect4,
        lambda r, c: (-0.15, c + 0.15, -1.75, r + 0.75),
        (4.4, 4.3),
        per_column=True,
        button="44px",
        buttons=(
            ("", "white", "#1e40af"),
            ("●", "#ef4444", "#1e40af"),
            ("●", "#facc15", "#1e40af"),
        ),
    ),
}


def register_look(style: str, look: Look) -> None:
    """Make ``look`` the drawing of every game whose class sets ``DRAWING = style``."""
    LOOKS[style] = look


def look_of(state: GameState | type[GameState]) -> Look:
    """The :class:`Look` of a game (state or class), by its ``DRAWING`` style."""
    return LOOKS.get(state.DRAWING, LOOKS["discs"])


def draw_board(
    state: GameState,
    ax: Axes | None = None,
    last_action: int | None = None,
    show_legal: bool = True,
    overlay: Overlay = None,
    title: str | None = None,
    *,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str | None = None,
    colorbar: bool = True,
    label: str | None = None,
) -> Axes:
    """Draw ``state`` on ``ax`` (a new figure if None) and return the axes.

    ``last_action`` is marked (a red dot in Othello, a shaded cell in tic-tac-toe, a dark dot on
    the disc in Connect Four); ``show_legal`` marks the legal moves with faint dots.  ``overlay``
    (``{action: value}`` or an array) colours the cells by value with ``cmap`` and writes the
    numbers (format ``fmt``, e.g. ``"{:.0%}"``), with a colour bar titled ``label``.
    ``title=None`` writes whose move it is or how the game ended; ``title=""`` writes nothing.
    """
    cells, columns = _overlay_arrays(state, overlay)
    values = cells if cells is not None else columns
    has_values = values is not None and bool(np.isfinite(values).any())
    if ax is None:
        _, ax = _pyplot().subplots(figsize=_figure_size(state, has_values and colorbar))
    look = look_of(state)
    limits = look.limits(state.ROWS, state.COLS)
    ax.set_xlim(limits[0], limits[1])
    ax.set_ylim(limits[3], limits[2])  # y grows downwards: row 0 on top
    ax.set_aspect("equal")
    ax.set_axis_off()
    mappable, number_format = None, "{}"
    if has_values:
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        finite = values[np.isfinite(values)]
        low = float(finite.min()) if vmin is None else vmin
        high = float(finite.max()) if vmax is None else vmax
        mappable = ScalarMappable(Normalize(low, high if high > low else low + 1), cmap)
        number_format = _format(values, fmt)
        if colorbar:
            bar = ax.figure.colorbar(mappable, ax=ax, fraction=0.045, pad=0.03, shrink=0.8)
            bar.outline.set_visible(False)
            bar.ax.tick_params(labelsize=8)
            if np.all(finite == np.round(finite)):  # integer values: no fractional ticks
                from matplotlib.ticker import MaxNLocator

                bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            if label:
                bar.set_label(label, fontsize=9)
    unit = _points_per_unit(ax)
    marks = Marks(last_action, show_legal, cells, mappable, number_format, unit, columns)
    look.draw(ax, state, marks)
    text = _status(state, last_action) if title is None else title
    if text:
        width = unit * abs(limits[1] - limits[0])  # of the picture, in points
        ax.set_title(text, fontsize=max(8.0, min(12.0, width / 24)), color=_TEXT, pad=4)
    return ax


# -- pictures as bytes, animations ---------------------------------------------------------------
def _figure(state: GameState, overlay: bool = False, dpi: float = 100) -> Figure:
    """A figure outside pyplot: it is never shown twice in a notebook, and never leaks."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=_figure_size(state, overlay), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def state_png(state: GameState, dpi: float = 80, **kwargs: Any) -> bytes:
    """The position as PNG bytes (``draw_board`` keyword arguments allowed)."""
    fig = _figure(state, kwargs.get("overlay") is not None, dpi)
    draw_board(state, fig.add_subplot(), **kwargs)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", pad_inches=0.05, facecolor="white")
    return buffer.getvalue()


def _frame_title(record: GameRecord, i: int) -> str:
    if i == 0:
        p0, p1 = record.start.PLAYER_NAMES
        return f"{p0}: {record.players[0]}   {p1}: {record.players[1]}"
    state, action = record.states[i - 1], record.moves[i - 1]
    who = state.PLAYER_NAMES[state.current_player]
    text = f"{i}. {who} {state.action_to_string(action)}"
    if i == len(record.states) - 1 and record.final.is_terminal():
        text += ": " + _status(record.final, None)
    return text


def animate_game(
    record: GameRecord, interval: int = 700, dpi: float = 72, show_legal: bool = False
) -> FuncAnimation:
    """An animation of a game, one frame per state (``.to_jshtml()`` shows it without ffmpeg).

    See :func:`game_html` for a compact HTML player made from it.
    """
    from matplotlib.animation import FuncAnimation

    fig = _figure(record.start, dpi=dpi)
    fig.set_size_inches(*(0.85 * x for x in fig.get_size_inches()))
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.93)
    ax = fig.add_subplot()

    def draw(i: int) -> list[Artist]:
        ax.clear()
        last = record.moves[i - 1] if i > 0 else None
        draw_board(
            record.states[i],
            ax,
            last_action=last,
            show_legal=show_legal,
            title=_frame_title(record, i),
        )
        return []

    draw(0)
    return FuncAnimation(
        fig, draw, frames=len(record.states), interval=interval, blit=False, repeat=False
    )


_FRAME = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\\\n]+)")


def _shrink_frames(page: str, colours: int = 64) -> str:
    """Re-encode the PNG frames of a jshtml page with a palette of ``colours`` colours.

    Board pictures use few colours, so this makes pages about five times smaller with no
    visible change (the frames are stored as base64 lines ending in a backslash).
    """
    from PIL import Image

    def shrink(found: re.Match[str]) -> str:
        data = base64.b64decode(found.group(1).replace("\\\n", ""))
        # method 2, fast octree: unlike median cut it keeps small spots such as the red dot
        image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colours, method=2)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")

    return _FRAME.sub(shrink, page)


# matplotlib's player draws its buttons with Font Awesome icons from a CDN stylesheet: offline, or
# in a book that loads nothing from another host, the buttons would be blank.  Plain characters
# instead (U+FE0E asks for text, not emoji, glyphs); each button keeps its title and aria-label.
_PLAYER_ICONS = {
    "fa fa-minus": "\u2212",
    "fa fa-fast-backward": "\u23ee\ufe0e",
    "fa fa-step-backward": "\u25c1",
    "fa fa-play fa-flip-horizontal": "\u25c0\ufe0e",
    "fa fa-pause": "\u23f8\ufe0e",
    "fa fa-play": "\u25b6\ufe0e",
    "fa fa-step-forward": "\u25b7",
    "fa fa-fast-forward": "\u23ed\ufe0e",
    "fa fa-plus": "+",
}
_ICON = re.compile(r'<i class="(fa [^"]*)"></i>')
_FONT_AWESOME_LINK = re.compile(r'<link rel="stylesheet"\s+href="https?://[^"]*font-awesome[^"]*">')


def _local_player(page: str) -> str:
    """``page`` (matplotlib's jshtml) with its CDN stylesheet gone and its icons as characters."""
    page = _FONT_AWESOME_LINK.sub("", page)
    return _ICON.sub(lambda m: f"<span>{_PLAYER_ICONS.get(m.group(1), '?')}</span>", page)


def game_html(record: GameRecord, shrink: bool = True, **kwargs: Any) -> HTML | str:
    """The game as an HTML player (IPython's ``HTML`` object in a notebook, else a string).

    ``shrink`` re-encodes the frames with 64 colours, so a book page stays light.  The player
    loads nothing from another host.
    """
    page = _local_player(animate_game(record, **kwargs).to_jshtml(default_mode="once"))
    if shrink:
        page = _shrink_frames(page)
    try:
        from IPython.display import HTML
    except ImportError:  # plain Python: the HTML text itself
        return page
    return HTML(page)  # type: ignore[no-untyped-call]  # IPython's HTML() has no hints


def draw_boards(
    states: list[GameState], titles: list[str] | None = None, ncols: int = 4, **kwargs: Any
) -> Figure:
    """Several positions side by side (a new figure); returns the figure."""
    n = len(states)
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    width, height = _figure_size(states[0], False)
    size = (width * ncols * 0.75, height * nrows * 0.75)
    fig: Figure
    fig, axes = _pyplot().subplots(nrows, ncols, figsize=size, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i < n:
            draw_board(states[i], ax, title=None if titles is None else titles[i], **kwargs)
        else:
            ax.set_axis_off()
    return fig


# Notebooks show a state as its picture (GameState._repr_png_) once this module is imported.
GameState.png_renderer = state_png
