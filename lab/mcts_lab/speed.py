"""The appendix's speed table and figure, from :func:`mcts_course.bench.run`'s measurements.

:func:`mcts_course.bench.run` measures each workload against one peer at a time, so the same
workload can come twice (single-game Othello playouts against OpenSpiel, then against the
list-of-lists board).  :func:`speed_table` merges them into one row per workload, with a column
per peer; each ratio is the one measured side by side with that peer (alternating slices, so
that other load on the machine slows both alike), and "ours" is the median of our rates.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

PEERS = ("OpenSpiel", "list-of-lists Othello")
WORDS = (
    ("othello", "Othello"),
    ("connect4", "Connect Four"),
    ("tictactoe", "tic-tac-toe"),
    ("rollouts", "playouts"),
)


def label(workload: str) -> str:
    """A workload's name for a reader: ``"connect4 rollouts"`` -> ``"Connect Four playouts"``."""
    for word, name in WORDS:
        workload = workload.replace(word, name)
    return workload[0].upper() + workload[1:]


@dataclass
class Row:
    """One workload: our rates and, per peer, its rate and the ratio ours / peer."""

    workload: str
    unit: str
    ours: list[float] = field(default_factory=list)
    peers: dict[str, tuple[float, float]] = field(default_factory=dict)  # name -> (rate, ratio)

    @property
    def rate(self) -> float:
        return float(statistics.median(self.ours))

    def ratio(self, peer: str) -> float | None:
        return self.peers[peer][1] if peer in self.peers else None


@dataclass
class Speeds:
    """The merged measurements, one :class:`Row` per workload in the order first measured."""

    rows: dict[str, Row]

    def __getitem__(self, workload: str) -> Row:
        return self.rows[workload]

    def table(self) -> object:
        """A Markdown table: per workload our rate, then each peer's rate and our ratio to it
        (a dash where the peer was not measured on that workload; a peer measured on none, such
        as OpenSpiel where it is not installed, gets no columns)."""
        from IPython.display import Markdown

        peers = [p for p in PEERS if any(p in row.peers for row in self.rows.values())]
        head = "".join(f" {p} | ours / {p} |" for p in peers)
        lines = [
            f"| workload | ours |{head} unit |",
            "|---|--:|" + "--:|" * 2 * len(peers) + "---|",
        ]
        for row in self.rows.values():
            cells = []
            for peer in peers:
                if peer in row.peers:
                    rate, ratio = row.peers[peer]
                    cells += [f"{rate:,.0f}", f"{ratio:.1f}×"]
                else:
                    cells += ["–", "–"]
            middle = "".join(f"{c} | " for c in cells)
            lines.append(f"| {label(row.workload)} | {row.rate:,.0f} | {middle}{row.unit} |")
        return Markdown("\n".join(lines))

    def figure(self) -> object:
        """Random games per second, ours and each measured peer, on a log scale."""
        import matplotlib.pyplot as plt
        import numpy as np

        games = [row for row in self.rows.values() if row.unit == "games/s"]
        bars = []
        for row in games:  # each workload, then its peers beside it
            bars.append((row.workload, "mcts_course", row.rate))
            bars += [
                (row.workload, peer, row.peers[peer][0]) for peer in PEERS if peer in row.peers
            ]
        colours = {
            "mcts_course": "#4c72b0",
            "OpenSpiel": "#dd8452",
            "list-of-lists Othello": "#999999",
        }
        fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(bars) + 1.2))
        y = np.arange(len(bars))
        ax.barh(y, [rate for *_, rate in bars], color=[colours[who] for _, who, _ in bars])
        ax.set_yticks(y, [f"{label(workload)} ({who})" for workload, who, _ in bars])
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("random games per second (log scale)")
        ax.set_title("Random playouts per second, one core")
        fig.tight_layout()
        return fig


def speed_table(measurements) -> Speeds:
    """One row per workload from :func:`mcts_course.bench.run`'s measurements."""
    rows: dict[str, Row] = {}
    for m in measurements:
        row = rows.setdefault(m.workload, Row(m.workload, m.unit))
        row.ours.append(m.ours)
        if m.peer:
            row.peers[m.peer_name] = (m.peer, m.ratio)
    return Speeds(rows)
