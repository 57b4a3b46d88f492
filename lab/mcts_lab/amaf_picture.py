"""The AMAF backup of one iteration, drawn from :func:`mcts_lab.textbook.rave.amaf_backup`.

A tiny real example: a tic-tac-toe position with four empty cells, its four children, the three
children of one of them, a path of two moves down this tree and a seeded random playout from
the leaf to the end of the game.  :func:`amaf_example` runs UCT's backup along the path and the
chapter's ``amaf_backup`` on the playout's moves; :func:`amaf_picture` draws the tree with what
each of the two backups changed, so the picture is the function's output, not a drawing of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from mcts_course.agents.mcts import Node
from mcts_course.games import TicTacToe
from mcts_lab.textbook.rave import AMAF, amaf_backup

# X b2, O a1, X c3, O c1, X b1: O to move, with a2, c2, a3 and b3 empty
ROOT_MOVES = (4, 0, 8, 2, 1)
PATH_MOVES = (7, 3)  # O b3 (the block), then X a2: the tree's part of the iteration


@dataclass
class AmafExample:
    """The tree of the example after one iteration: its ``root``, the ``path`` from the root to
    the leaf, the ``playout``'s moves as (player, action), the game's ``returns`` and the
    ``amaf`` statistics that :func:`amaf_backup` wrote."""

    root: Node
    path: list[Node]
    playout: list[tuple[int, int]]
    returns: tuple[float, ...]
    amaf: AMAF


def _expand(node: Node) -> None:
    for action in node.state.legal_actions():
        node.children[action] = Node(node.state.play(action), action, node.state.current_player)


def amaf_example(seed: int = 1) -> AmafExample:
    """One iteration on the example's tree: selection down ``PATH_MOVES``, a random playout
    (``Random(seed)``) to the end, UCT's backup on the path, then ``amaf_backup``."""
    root = Node(TicTacToe.from_moves(list(ROOT_MOVES)))
    _expand(root)  # the root and the path's first node have all their children
    _expand(root.children[PATH_MOVES[0]])
    path = [root, root.children[PATH_MOVES[0]]]
    path.append(path[1].children[PATH_MOVES[1]])
    state, playout, rng = path[-1].state, [], Random(seed)
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        playout.append((state.current_player, action))
        state = state.play(action)
    returns = tuple(float(r) for r in state.returns())
    for node in path:  # UCT's backup: every node on the path counts the result
        node.visits += 1
        node.wins += (1 + returns[node.player]) / 2
    amaf: AMAF = {}
    amaf_backup(path, playout, returns, amaf)
    return AmafExample(root, path, playout, returns, amaf)


def _label(example: AmafExample, node: Node) -> str:
    if node is example.root:
        return f"root: N={node.visits}"
    plain = f"N={node.visits}, W={node.wins:g}" if node in example.path else "N=0"
    wins, count = example.amaf.get(node, (0.0, 0))
    return f"{plain}\nÑ={count}, W̃={wins:g}"


def amaf_picture(seed: int = 1) -> Any:
    """The tree of :func:`amaf_example`: each board is a node (its last move shaded), titled with
    its N, W and AMAF Ñ, W̃ after the iteration; blue frames mark the path (UCT's backup), orange
    frames the nodes only the AMAF backup reached; the playout's final board is on the right."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import ConnectionPatch, Rectangle

    from mcts_course.render import draw_board

    example = amaf_example(seed)
    root, path = example.root, example.path
    fig = plt.figure(figsize=(11, 8.6))
    width, height = 0.12, 0.17

    def board(node: Node, x: float, y: float) -> Any:
        ax = fig.add_axes((x, y, width, height))
        draw_board(node.state, ax=ax, last_action=node.action, show_legal=False, title="")
        fig.text(x + width / 2, y - 0.015, _label(example, node), ha="center", va="top", fontsize=9)
        colour = "tab:blue" if node in path else "tab:orange" if node in example.amaf else None
        if colour is not None:
            frame = Rectangle((x - 0.005, y - 0.005), width + 0.01, height + 0.01)
            frame.set(transform=fig.transFigure, fill=False, edgecolor=colour, linewidth=3)
            fig.add_artist(frame)
        return ax

    def arrow(a: Any, b: Any, text: str) -> None:
        link = ConnectionPatch(
            (0.5, -0.42), (0.5, 1.04), "axes fraction", "axes fraction", axesA=a, axesB=b
        )
        link.set_arrowstyle("->")
        fig.add_artist(link)
        pa, pb = a.get_position(), b.get_position()
        x = (pa.x0 + pb.x0) / 2 + width / 2
        y = (pa.y0 - 0.42 * height + pb.y1) / 2
        fig.text(
            x,
            y,
            text,
            fontsize=9,
            ha="center",
            va="center",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )

    def move(node: Node) -> str:
        return f"{'XO'[node.player]} {root.state.action_to_string(node.action or 0)}"

    def path_last(node: Node) -> bool:
        return node in path

    top = board(root, 0.5 - width / 2, 0.75)
    axes = {}
    for i, child in enumerate(sorted(root.children.values(), key=path_last)):
        axes[child] = board(child, 0.1 + 0.2 * i, 0.42)
        arrow(top, axes[child], move(child))
    for i, child in enumerate(sorted(path[1].children.values(), key=path_last)):
        axes[child] = board(child, 0.2 + 0.19 * i, 0.09)
        arrow(axes[path[1]], axes[child], move(child))
    final = path[-1].state
    for _, action in example.playout:
        final = final.play(action)
    end = fig.add_axes((0.86, 0.09, width, height))
    draw_board(final, ax=end, show_legal=False, title="")
    fig.text(0.86 + width / 2, 0.075, "end of the playout", ha="center", va="top", fontsize=9)
    words = ", ".join(f"{'XO'[p]} {final.action_to_string(a)}" for p, a in example.playout)
    link = ConnectionPatch(
        (1.06, 0.5),
        (-0.06, 0.5),
        "axes fraction",
        "axes fraction",
        axesA=axes[path[-1]],
        axesB=end,
        linestyle="--",
    )
    link.set_arrowstyle("->")
    fig.add_artist(link)
    fig.text(
        0.765, 0.09 + height / 2 + 0.02, f"playout:\n{words}", fontsize=9, ha="center", va="bottom"
    )
    handles = [
        Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, linewidth=3)
        for c in ("tab:blue", "tab:orange")
    ]
    fig.legend(
        handles,
        ["on the path: UCT's backup (and AMAF below the root)", "off the path: AMAF backup only"],
        loc="upper left",
        fontsize=9,
        frameon=False,
    )
    return fig
