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
``prior="net"`` takes the policy-value network shipped for the game (trained by self-play) as
the prior AND as the leaf's value, in place of the random playout, as AlphaZero does.  The
network lives in :mod:`mcts_course.learn`, above the agents: these modules never import it.  A
*guide* (a prior that also values leaves) is found by name in :data:`GUIDES`, which the learn
package fills (:func:`register_guide`), or else through the entry point group
``mcts_course.guides`` that the package declares (``net`` is
``mcts_course.learn.shipped:ShippedNet``).

Two hooks of the MCTS skeleton change and nothing else:

* ``grow`` (expansion) gives a node ALL its children at once, each with its prior (as AlphaZero
  does), and returns the one with the highest prior for the playout;
* ``score`` is the PUCT score; a child never visited counts Q = ``fpu`` (first play urgency,
  0.5 by default: a draw), so the prior alone decides which unvisited move comes first.

Simulation (the random playout) and backpropagation are UCT's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import partial
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from mcts_course.agents.evaluation import cell_weights
from mcts_course.agents.mcts import MCTSAgent, Node, argmax
from mcts_course.agents.rollout import Estimate
from mcts_course.games.base import GameState

PRIORS = ("cells", "uniform", "net")
GUIDE_ENTRY_POINTS = "mcts_course.guides"

Prior = Callable[[GameState], dict[int, float]]  # state -> {legal action: probability}


@runtime_checkable
class Guide(Protocol):
    """A prior that also values the leaves (a policy-value network): ``guide(state)`` is the
    prior, ``evaluate(state, rng)`` the returns (r0, r1) expected, as an evaluator's."""

    def __call__(self, state: GameState) -> dict[int, float]: ...

    def evaluate(self, state: GameState, rng: random.Random) -> Estimate: ...


# name -> a function making a fresh guide; "net" comes from mcts_course.learn (see above)
GUIDES: dict[str, Callable[[], Guide]] = {}


def register_guide(name: str, make: Callable[[], Guide]) -> None:
    """Make ``prior=name`` build its guide with ``make()`` (how a package above the agents,
    such as :mod:`mcts_course.learn`, offers one without the agents importing it)."""
    GUIDES[name] = make


def named_guide(name: str) -> Guide:
    """A fresh guide of that name: registered, or declared as an entry point."""
    if name not in GUIDES:
        for entry in entry_points(group=GUIDE_ENTRY_POINTS):
            if entry.name == name:
                register_guide(name, entry.load())
    if name not in GUIDES:
        raise ValueError(
            f"no guide named {name!r} is registered (prior={name} needs the package that "
            f"provides it, e.g. mcts_course.learn for net, installed or imported)"
        )
    return GUIDES[name]()


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
        *args: Any,
        c: float = 1.0,
        prior: str | Prior = "cells",
        prior_temperature: float = 0.25,
        fpu: float = 0.5,
        **kwargs: Any,
    ) -> None:
        if isinstance(prior, str) and prior not in PRIORS and prior not in GUIDES:
            names = ", ".join(dict.fromkeys([*PRIORS, *GUIDES]))
            raise ValueError(f"unknown prior {prior!r}; choose one of: {names}")
        if prior_temperature <= 0:
            raise ValueError(f"prior_temperature must be > 0, not {prior_temperature}")
        self.prior: Prior
        if prior == "cells":
            self.prior = partial(cell_prior, temperature=prior_temperature)
        elif prior == "uniform":
            self.prior = uniform_prior
        elif isinstance(prior, str):  # a guide: the prior, and the leaves' value
            if kwargs.get("evaluator") is not None or kwargs.get("playout_depth") is not None:
                raise ValueError(
                    f"prior={prior} values the leaves by the network: no evaluator or playout_depth"
                )
            self.prior = kwargs["evaluator"] = named_guide(prior)
        else:
            self.prior = prior
        super().__init__(*args, c=c, **kwargs)
        self.prior_name = prior if isinstance(prior, str) else getattr(prior, "__name__", "custom")
        self.fpu = fpu
        # node -> its prior probability (Node's slots are UCT's; the priors live beside them)
        self.priors: dict[Node, float] = {}
        self.name = self.name.replace("MCTS(", f"PUCT({self.prior_name},", 1)

    def forget_tree(self) -> None:
        self.priors.clear()

    # -- the hooks that change ----------------------------------------------------------------
    def score(self, parent: Node, child: Node) -> float:
        """The PUCT score of ``child``: Q + c * P * sqrt(N) / (1 + n)."""
        q = child.wins / child.visits if child.visits else self.fpu
        return q + self.c * self.priors[child] * math.sqrt(parent.visits) / (1 + child.visits)

    def grow(self, node: Node) -> Node:
        """All children at once, with their priors; return the most probable one (ties: the
        smallest action), or ``node`` itself if it has children already or the game is over."""
        if node.children:
            return node
        if node.state.is_terminal():
            node.untried = []
            return node
        priors = self.prior(node.state)
        for action in node.state.legal_actions():
            child = node.children[action] = self.make_child(node, action)
            self.priors[child] = priors[action]
        node.untried = []
        return node.children[argmax(node.children, self.priors.__getitem__)]
