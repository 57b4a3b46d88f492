"""AlphaZero made visible: the loop as a diagram, one PUCT selection by hand, the prior against
the visits, and the value head against the constant predictor.

Each function computes what the learning chapter shows with the package's own pieces: the
PUCT agent guided by a network (:func:`mcts_lab.learning.net_agent`), the board pictures of
:mod:`mcts_course.render`, and the textbook PUCT score (:mod:`mcts_lab.textbook.puct`), so that
the table worked by hand is the engine's selection, not a copy of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcts_course.games import GameState
from mcts_course.learn.network import NetGuide, Predictor
from mcts_lab.learning import Truth, net_agent
from mcts_lab.present import Table
from mcts_lab.textbook.puct import puct_score, puct_select

NETWORK_BOX = r"Network $f_\theta(s)$ = (p, v)" "\nprior over the moves,\nvalue for the mover"
# The loop's boxes: (gid, text, x, y) on a 10 x 6 canvas; the arrows go round in this order.
LOOP_BOXES = [
    ("self-play", "Self-play\nPUCT with the network's\nprior and value, root noise", 2.0, 4.6),
    ("buffer", "Replay buffer\n(position, visit shares π,\nresult z)", 8.0, 4.6),
    ("training", "Training\nloss −Σ π log p + (z − v)²\none Adam step per minibatch", 8.0, 1.4),
    ("network", NETWORK_BOX, 2.0, 1.4),
]
LOOP_ARROWS = ["games", "minibatches", "new weights", "guides the search"]


def loop_figure() -> Any:
    """The AlphaZero loop: self-play fills the buffer, training draws from it, the trained
    network guides the next self-play.  Boxes and arrows carry a ``gid`` (their name)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6)
    ax.set_axis_off()
    for gid, text, x, y in LOOP_BOXES:
        box = FancyBboxPatch(
            (x - 1.7, y - 0.8),
            3.4,
            1.6,
            boxstyle="round,pad=0.05",
            facecolor="#e8f0fa",
            edgecolor="#2b5d8c",
            gid=gid,
        )
        ax.add_patch(box)
        ax.text(x, y, text, ha="center", va="center", fontsize=9)
    ends = [
        ((3.8, 4.6), (6.2, 4.6)),
        ((8.0, 3.7), (8.0, 2.3)),
        ((6.2, 1.4), (3.8, 1.4)),
        ((2.0, 2.3), (2.0, 3.7)),
    ]
    for label, (start, end) in zip(LOOP_ARROWS, ends, strict=True):
        ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=16,
                color="#2b5d8c",
                gid=f"arrow-{label}",
            )
        )
        mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        ax.text(
            mid[0] + (0.15 if start[0] == end[0] else 0),
            mid[1] + 0.2,
            label,
            ha="left" if start[0] == end[0] else "center",
            fontsize=9,
            style="italic",
        )
    ax.set_title("One generation: self-play, then training; the new network plays the next")
    fig.tight_layout()
    plt.close(fig)
    return fig


@dataclass
class PuctStep:
    """A PUCT search stopped after ``iterations``: each root move's prior P, visits N, mean Q
    (``fpu`` if unvisited), bonus U and score, and the move the next iteration descends to."""

    state: GameState
    iterations: int
    c: float
    rows: list[tuple[str, float, int, float, float, float]]  # move, P, N, Q, U, score
    chosen: str  # by the textbook score
    engine_choice: str  # by the agent's own selection

    def table(self) -> Table:
        return Table(
            ["move", "P", "N", "Q", "U", "Q + U"],
            [list(r) for r in self.rows],
            {"P": ".3f", "Q": ".3f", "U": ".3f", "Q + U": ".3f"},
            right=["P", "N", "Q", "U", "Q + U"],
        )

    def row(self, move: str) -> tuple[str, float, int, float, float, float]:
        (found,) = [r for r in self.rows if r[0] == move]
        return found


def puct_step(predictor: Predictor, state: GameState, iterations: int, c: float = 1.0) -> PuctStep:
    """Search ``state`` with PUCT and the network for ``iterations``, then work the next
    selection at the root by hand (:func:`~mcts_lab.textbook.puct.puct_score`)."""
    agent = net_agent(predictor, iterations, c=c)
    root = agent.search(state)
    rows = []
    for action, child in sorted(root.children.items()):
        p = agent.priors[child]
        q = child.wins / child.visits if child.visits else agent.fpu
        u = puct_score(0.0, p, child.visits, root.visits, c)
        rows.append((state.action_to_string(action), p, child.visits, q, u, q + u))
    best = max(rows, key=lambda r: r[5])  # ties: the first, the smallest action
    engine = state.action_to_string(agent.select_child(root).action)
    return PuctStep(state, iterations, c, rows, best[0], engine)


def prior_and_visits(
    predictor: Predictor, state: GameState, iterations: int, c: float = 1.0
) -> tuple[dict[int, float], dict[int, float]]:
    """The network's prior at ``state`` and the root's visit shares after a PUCT search."""
    agent = net_agent(predictor, iterations, c=c)
    root = agent.search(state)
    total = sum(child.visits for child in root.children.values())
    visits = {a: child.visits / total for a, child in root.children.items()}
    return NetGuide(predictor).prior(state), visits


def prior_and_visits_figure(state: GameState, panels: list[tuple[dict[int, float], str]]) -> Any:
    """Shares over the moves of ``state`` (a prior, the visits of a search, ...) side by side on
    the board, each panel with its title (the package's pictures, :func:`draw_board`)."""
    import matplotlib.pyplot as plt

    from mcts_course.render import draw_board

    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.5), squeeze=False)
    for ax, (values, title) in zip(axes[0], panels, strict=True):
        draw_board(
            state,
            ax,
            overlay=values,
            title=title,
            fmt="{:.0%}",
            vmin=0,
            vmax=1,
            colorbar=False,
            show_legal=False,
        )
    fig.tight_layout()
    plt.close(fig)
    return fig


@dataclass
class ValueCheck:
    """A value head against the constant predictor on every position of a solved game (a
    census, not a sample: no sampling error): ``right`` the share read right (nearest result),
    ``squared`` the mean squared error to the exact value.  The constant predictor answers the
    commonest result (for ``right``) and the mean exact value (for ``squared``)."""

    right: float
    constant_right: float
    squared: float
    constant_squared: float


def value_check(truth: Truth, net: Any) -> ValueCheck:
    """The value head of ``net`` (a training network) against the constant predictor."""
    _, value, _ = net.forward(truth.inputs, truth.masks)
    exact = truth.values.astype(float)
    counts = [int((truth.values == v).sum()) for v in (1, 0, -1)]
    mean = float(exact.mean())
    return ValueCheck(
        float((truth.classes(net) == truth.values).mean()),
        max(counts) / len(exact),
        float(((value - exact) ** 2).mean()),
        float(((mean - exact) ** 2).mean()),
    )


# -- which node the network values: the package's order against AlphaZero's -----------------------
def alphazero_order_visits(
    predict: Any, state: GameState, iterations: int, c: float, fpu: float = 0.5
) -> dict[int, int]:
    """The root's visits after ``iterations`` simulations in AlphaZero's order (the order of
    exercise 8's ``puct_search``): a leaf reached by selection is valued by the network and gets
    all its children in the same simulation, the root included, so the first simulation values
    the root itself and the root's children share ``iterations - 1`` visits.  ``predict(state)``
    gives (priors, value for the player to move), as ``mcts_course.learn.load(game).predict``."""
    # A node is [state, visits, wins, children, priors]; wins are for the player who moved in.
    root: list[Any] = [state, 0, 0.0, {}, {}]
    for _ in range(iterations):
        node, path = root, [root]
        while node[3]:
            children = {a: (node[4][a], kid[1], kid[2]) for a, kid in node[3].items()}
            node = node[3][puct_select(children, node[1], c, fpu)]
            path.append(node)
        here: GameState = node[0]
        if here.is_terminal():
            returns = here.returns()
        else:
            node[4], value = predict(here)
            node[3] = {a: [here.play(a), 0, 0.0, {}, {}] for a in here.legal_actions()}
            returns = (value, -value) if here.current_player == 0 else (-value, value)
        for parent, visited in zip([None, *path], path, strict=False):
            visited[1] += 1
            mover = 1 - state.current_player if parent is None else parent[0].current_player
            visited[2] += (1 + returns[mover]) / 2
    return {a: kid[1] for a, kid in sorted(root[3].items())}


@dataclass
class OrderCheck:
    """The package's PUCT (``PUCTAgent`` with the network, N iterations) against AlphaZero's
    order (N + 1 simulations, one spent valuing the root), on the same positions and budgets:
    how many searches gave the root's children the same visit counts."""

    searches: int
    same: int
    moved: int  # the most visits that went to other children in any one search
    package_sum: int  # the root's children's visits in the package's search of N (= N)
    alphazero_sum: int  # and in AlphaZero's order with N simulations (= N - 1)
    budget: int  # the N of those two sums


def order_check(
    predictor: Predictor, positions: list[GameState], budgets: list[int], c: float = 1.0
) -> OrderCheck:
    """Search each position at each budget both ways (see :class:`OrderCheck`)."""
    guide = NetGuide(predictor)
    same = searches = moved = 0
    for state in positions:
        for n in budgets:
            root = net_agent(predictor, n, c=c).search(state)
            package = {a: kid.visits for a, kid in sorted(root.children.items())}
            theirs = alphazero_order_visits(guide.predict, state, n + 1, c)
            same += package == theirs
            moved = max(moved, sum(abs(package[a] - theirs[a]) for a in package) // 2)
            searches += 1
    n = budgets[-1]
    root = net_agent(predictor, n, c=c).search(positions[0])
    package_sum = sum(kid.visits for kid in root.children.values())
    alphazero_sum = sum(alphazero_order_visits(guide.predict, positions[0], n, c).values())
    return OrderCheck(searches, same, moved, package_sum, alphazero_sum, n)
