"""Self-play: games of PUCT guided by the network, recorded as training examples.

Each move of a self-play game is chosen by a PUCT search whose prior and leaf values come from
the current network (:class:`NetGuide`).  Two things keep the games varied enough to learn from,
as in AlphaZero: Dirichlet noise mixed into the root's prior (every move gets some chance to be
searched), and, for the first moves, a move drawn in proportion to the root's visit counts
instead of the most visited one.  Every position of the game becomes one example: the input
(:func:`~mcts_course.learn.network.encode`), the legal moves, the search's visit distribution
(the policy target) and, once the game is over, its result for the player who was to move (the
value target).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mcts_course.agents.mcts import Node
from mcts_course.agents.puct import PUCTAgent
from mcts_course.games.base import GameState
from mcts_course.learn.network import NetGuide, Predictor, encode, legal_mask

__all__ = ["Example", "NetGuide", "SelfPlayPUCT", "self_play_game", "visit_distribution"]


class SelfPlayPUCT(PUCTAgent):
    """PUCT guided by a network, with Dirichlet noise on the root's prior (AlphaZero's
    exploration for self-play): P(a) <- (1 - fraction) P(a) + fraction * Dir(alpha)."""

    def __init__(
        self,
        guide: NetGuide,
        iterations: int,
        *,
        c: float = 1.5,
        alpha: float = 0.5,
        fraction: float = 0.25,
        seed: int | None = None,
    ):
        super().__init__(iterations, c=c, prior=guide.prior, evaluator=guide, seed=seed)
        self.alpha, self.fraction = alpha, fraction

    def expand(self, node: Node, is_root: bool = False) -> Node:
        fresh = not node.children
        child = super().expand(node, is_root)
        if is_root and fresh and node.children and self.fraction > 0:
            noise = [self.rng.gammavariate(self.alpha, 1.0) for _ in node.children]
            total = sum(noise) or 1.0
            for (_, kid), eta in zip(sorted(node.children.items()), noise, strict=True):
                self.priors[kid] = (1 - self.fraction) * self.priors[kid] + (
                    self.fraction * eta / total
                )
        return child


@dataclass
class Example:
    """One position of a self-play game, as the network learns from it."""

    features: list[float]
    mask: list[float]
    policy: list[float]  # the root's visit distribution over all actions
    value: float  # the game's result for the player to move here: +1, 0 or -1


def visit_distribution(root: Node, n_actions: int) -> list[float]:
    """The share of the root's visits that went to each action."""
    total = sum(child.visits for child in root.children.values())
    policy = [0.0] * n_actions
    for action, child in root.children.items():
        policy[action] = child.visits / total if total else 0.0
    return policy


def self_play_game(
    game: type[GameState],
    predictor: Predictor | NetGuide,
    iterations: int,
    seed: int,
    sample_moves: int = 4,
    c: float = 1.5,
    alpha: float = 0.5,
    fraction: float = 0.25,
    temperature: float = 1.0,
) -> list[Example]:
    """One game of the network against itself; its positions as examples.  For the first
    ``sample_moves`` plies the move is drawn with probability proportional to
    visits ** (1 / ``temperature``) (in proportion to the visits at temperature 1, more often
    the most visited move below 1), then the most visited move is played.  ``predictor`` may
    be a :class:`NetGuide`, whose cache then serves several games of the same network."""
    rng = random.Random(seed)
    guide = predictor if isinstance(predictor, NetGuide) else NetGuide(predictor)
    agent = SelfPlayPUCT(
        guide, iterations, c=c, alpha=alpha, fraction=fraction, seed=rng.randrange(2**31)
    )
    state, record = game(), []
    while not state.is_terminal():
        root = agent.search(state)
        policy = visit_distribution(root, state.NUM_ACTIONS)
        record.append((state, policy))
        if len(record) <= sample_moves:
            action = rng.choices(
                range(len(policy)), weights=[p ** (1 / temperature) for p in policy]
            )[0]
        else:
            action = max(sorted(root.children), key=lambda a: root.children[a].visits)
        state = state.play(action)
    returns = state.returns()
    return [
        Example(encode(s), legal_mask(s), p, float(returns[s.current_player])) for s, p in record
    ]
