"""PUCT: UCT's selection with a prior over the moves (Rosin, 2011; AlphaGo and AlphaZero).

AlphaGo (Silver et al., 2016), AlphaGo Zero (Silver et al., 2017) and AlphaZero (Silver et al.,
2018) replace UCB1's exploration term by one weighted by a *prior* probability P(a) of each
move, given by a policy network::

    score(a) = Q(a) + c * P(a) * sqrt(N) / (1 + n(a))

Q(a) is the mean reward of the move (the parent's mean ``wins / visits`` of UCT), N the parent's
visits, n(a) the move's.  A move the prior likes is tried early and often; a move it dislikes
must earn its visits by its results.  Here no network is trained: the prior is the hand-made
knowledge of chapter 3, the cell weights (Othello's square table, the number of winning lines
through a cell elsewhere, which makes Connect Four's prior centre-first), turned into
probabilities by a softmax; ``prior="uniform"`` gives every move the same probability.
``prior="net"`` takes the policy-value network shipped for the game
(:func:`mcts_course.learn.load`, trained by self-play) as the prior AND as the leaf's value, in
place of the random playout, as AlphaZero does.

Two phases of UCT change and nothing else:

* expansion gives a node ALL its children at once, each with its prior (as AlphaZero does),
  and returns the one with the highest prior for the playout;
* selection follows the best PUCT score; a child never visited counts Q = ``fpu`` (first play
  urgency, 0.5 by default: a draw), so the prior alone decides which unvisited move comes first.

Simulation (the random playout) and backpropagation are UCT's.
"""

from __future__ import annotations

import math

from mcts_course.agents.evaluation import cell_weights
from mcts_course.agents.mcts import MCTSAgent, Node
from mcts_course.games.base import GameState

PRIORS = ("cells", "uniform", "net")


def cell_prior(state: GameState, temperature: float = 0.25) -> dict[int, float]:
    """Probabilities over the legal moves from the cell weights: a softmax of each move's cell
    weight, scaled by the spread of the game's table so that one ``temperature`` suits every
    game.  A move without a cell (Othello's pass) gets the lowest weight."""
    actions = state.legal_actions()
    table = cell_weights(type(state))
    low = float(min(min(row) for row in table))
    spread = (float(max(max(row) for row in table)) - low) or 1.0
    weights = []
    for action in actions:
        cell = state.cell_of(action)
        weights.append(low if cell is None else float(table[cell[0]][cell[1]]))
    top = max(weights)  # subtracted so that exp() cannot overflow
    p = [math.exp((w - top) / (spread * temperature)) for w in weights]
    total = sum(p)
    return {a: q / total for a, q in zip(actions, p, strict=True)}


def uniform_prior(state: GameState) -> dict[int, float]:
    """The same probability for every legal move."""
    actions = state.legal_actions()
    return {a: 1.0 / len(actions) for a in actions}


class ShippedNet:
    """``prior="net"``: the network shipped for the game being played, as PUCT's prior
    (``net(state)``) and as its evaluator (``evaluate(state, rng)``, the value head, no playout).
    The game is known only when a position arrives, so the network is loaded then (one
    :class:`~mcts_course.learn.network.NetGuide`, with its cache of predictions, per game)."""

    __name__ = "net"

    def __init__(self) -> None:
        self.guides: dict[str, object] = {}

    def guide(self, state: GameState):
        from mcts_course.learn.network import NetGuide
        from mcts_course.learn.shipped import load

        name = state.NAME
        if name not in self.guides:
            self.guides[name] = NetGuide(load(name))
        return self.guides[name]

    def __call__(self, state: GameState) -> dict[int, float]:
        return self.guide(state).prior(state)

    def __deepcopy__(self, memo: dict) -> ShippedNet:
        # A copy for another game (the arena copies agents): the network is the same, shared by
        # load(); the cache of predictions starts empty instead of being copied state by state.
        return ShippedNet()

    def evaluate(self, state: GameState, rng) -> tuple[float, float]:
        return self.guide(state).evaluate(state, rng)


class PUCTAgent(MCTSAgent):
    """MCTS with the PUCT selection rule and a prior; UCT's other arguments are unchanged.

    ``c`` weighs the prior-driven exploration (default 1.0), ``prior`` is ``"cells"``,
    ``"uniform"`` or ``"net"`` (or any function ``state -> {action: probability}``),
    ``prior_temperature`` the softmax temperature of the cell prior, ``fpu`` the value of an
    unvisited child.  With ``prior="net"`` the network also values the leaves (no playout).

    Expansion returns the most probable child, which the evaluator then values.  With a network
    as the evaluator this is AlphaZero's order of work: a new node is valued on its first visit
    (a leaf), gets its children on its second, and that visit goes to the child AlphaZero's
    selection would pick there, the most probable one (all children unvisited score fpu plus
    their prior's term).
    """

    def __init__(
        self,
        *args,
        c: float = 1.0,
        prior: str | object = "cells",
        prior_temperature: float = 0.25,
        fpu: float = 0.5,
        **kwargs,
    ) -> None:
        if kwargs.get("policy", "ucb1") != "ucb1":  # the PUCT score is its selection rule
            raise ValueError("PUCT selects by its own score; policy= is for MCTSAgent")
        if isinstance(prior, str) and prior not in PRIORS:
            raise ValueError(f"unknown prior {prior!r}; choose one of: {', '.join(PRIORS)}")
        net = None
        if prior == "net":
            if kwargs.get("evaluator") is not None or kwargs.get("playout_depth") is not None:
                raise ValueError(
                    "prior=net values the leaves by the network: no evaluator or playout_depth"
                )
            net = ShippedNet()
            kwargs["evaluator"] = net
        super().__init__(*args, c=c, **kwargs)
        if prior_temperature <= 0:
            raise ValueError(f"prior_temperature must be > 0, not {prior_temperature}")
        self.prior_name = prior if isinstance(prior, str) else getattr(prior, "__name__", "custom")
        if prior == "cells":
            self.prior = lambda state: cell_prior(state, prior_temperature)
        elif prior == "uniform":
            self.prior = uniform_prior
        elif prior == "net":
            self.prior = net  # type: ignore[assignment]
        else:
            self.prior = prior  # type: ignore[assignment]
        self.fpu = fpu
        # node -> its prior probability (Node's slots are UCT's; the priors live beside them)
        self.priors: dict[Node, float] = {}
        self.name = self.name.replace("MCTS(", f"PUCT({self.prior_name},", 1)

    def reset(self) -> None:
        super().reset()
        self.priors.clear()

    def search(self, state: GameState) -> Node:
        if not self.tree_reuse:
            self.priors.clear()
        return super().search(state)

    def score(self, child: Node, parent_visits: int) -> float:
        """The PUCT score of ``child``: Q + c * P * sqrt(N) / (1 + n)."""
        q = child.wins / child.visits if child.visits else self.fpu
        return q + self.c * self.priors[child] * math.sqrt(parent_visits) / (1 + child.visits)

    def select(self, node: Node) -> list[Node]:
        """Follow the child with the best PUCT score (ties: the smallest action) to a leaf."""
        path = [node]
        while node.children:
            n = node.visits
            best, best_value = None, -math.inf
            for action in sorted(node.children):
                value = self.score(node.children[action], n)
                if value > best_value:
                    best, best_value = node.children[action], value
            node = best  # type: ignore[assignment]
            path.append(node)
        return path

    def expand(self, node: Node, is_root: bool = False) -> Node:
        """All children at once, with their priors; return the most probable one (ties: the
        smallest action), or ``node`` itself if it stays a leaf or the game is over."""
        if node.children or (node.visits < self.expand_threshold and not is_root):
            return node
        if node.state.is_terminal():
            node.untried = []
            return node
        priors = self.prior(node.state)
        mover = node.state.current_player
        for action in node.state.legal_actions():
            child = Node(node.state.play(action), action, mover)
            node.children[action] = child
            self.priors[child] = priors[action]
        node.untried = []
        best = max(sorted(node.children), key=lambda a: priors[a])
        return node.children[best]
