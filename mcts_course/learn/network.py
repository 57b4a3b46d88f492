"""A policy-value network small enough to write out by hand: a multilayer perceptron.

A position is encoded from the point of view of the player to move (:func:`encode`): one input
per cell for the mover's discs, one per cell for the opponent's.  Hidden layers of rectified
linear units feed two heads:

* the **policy head**, one logit per action, turned into probabilities by a softmax over the
  legal actions only (an illegal action gets probability 0);
* the **value head**, one number squashed by ``tanh`` into [-1, 1]: the expected result for the
  player to move.

Training (:meth:`PolicyValueNet.gradients`) minimises, over a batch, the cross-entropy between
the policy and a target distribution (the visit counts of a search) plus the squared error
between the value and the game's outcome, as AlphaZero does.  The forward and backward passes
are written out, layer by layer, so that a reader can follow them; ``tests/test_learn_network``
checks the backward pass against finite differences.

Play needs only the forward pass of one position: :class:`Predictor` runs it in plain Python
from the same weights (lists of floats), for the browser's Python, which has no numpy.
"""

from __future__ import annotations

import json
import math
import random
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported inside the functions that use it (see Predictor)
    import numpy as np
    from numpy.typing import NDArray

    Array = NDArray[np.float64]

from mcts_course.games.base import GameState


def encode(state: GameState) -> list[float]:
    """The network's input: the mover's cells (1.0 where the mover has a disc), then the
    opponent's, row by row."""
    me = state.current_player
    cells = [owner for row in state.board() for owner in row]
    return [1.0 if owner == me else 0.0 for owner in cells] + [
        1.0 if owner == 1 - me else 0.0 for owner in cells
    ]


def legal_mask(state: GameState) -> list[float]:
    """1.0 for every legal action of ``state``, 0.0 for the others."""
    mask = [0.0] * state.NUM_ACTIONS
    for action in state.legal_actions():
        mask[action] = 1.0
    return mask


class PolicyValueNet:
    """The network for training: numpy arrays ``W1, b1, ..., Wp, bp, Wv, bv``."""

    def __init__(self, n_inputs: int, n_actions: int, hidden: Sequence[int] = (64,), seed: int = 0):
        import numpy as np

        rng = np.random.default_rng(seed)
        self.hidden = tuple(hidden)
        self.params: dict[str, Array] = {}
        sizes = [n_inputs, *self.hidden]
        for k in range(len(self.hidden)):
            # He initialisation keeps the ReLU activations' scale from layer to layer.
            self.params[f"W{k + 1}"] = rng.normal(
                0, math.sqrt(2 / sizes[k]), (sizes[k], sizes[k + 1])
            )
            # A small positive bias: the empty board (all inputs 0) starts every unit active,
            # off the rectifier's kink at 0.
            self.params[f"b{k + 1}"] = np.full(sizes[k + 1], 0.01)
        last = sizes[-1]
        self.params["Wp"] = rng.normal(0, math.sqrt(1 / last), (last, n_actions))
        self.params["bp"] = np.zeros(n_actions)
        self.params["Wv"] = rng.normal(0, math.sqrt(1 / last), (last, 1))
        self.params["bv"] = np.zeros(1)

    @classmethod
    def for_game(
        cls, game: type[GameState], hidden: Sequence[int] = (64,), seed: int = 0
    ) -> PolicyValueNet:
        return cls(2 * game.ROWS * game.COLS, game.NUM_ACTIONS, hidden, seed)

    def parameter_count(self) -> int:
        """The number of weights and biases."""
        return sum(int(value.size) for value in self.params.values())

    # -- forward ------------------------------------------------------------------------------
    def forward(self, x: Array, mask: Array) -> tuple[Array, Array, dict[str, Array]]:
        """Policies (batch x actions), values (batch) and what the backward pass needs."""
        import numpy as np

        cache: dict[str, Array] = {"x": x, "mask": mask}
        h = x
        for k in range(1, len(self.hidden) + 1):
            a = h @ self.params[f"W{k}"] + self.params[f"b{k}"]
            h = np.maximum(a, 0.0)
            cache[f"a{k}"], cache[f"h{k}"] = a, h
        logits = h @ self.params["Wp"] + self.params["bp"]
        # Softmax over the legal actions: illegal logits are pushed to -inf before it.
        logits = np.where(mask > 0, logits, -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        policy = e / e.sum(axis=1, keepdims=True)
        value = np.tanh(h @ self.params["Wv"] + self.params["bv"])[:, 0]
        cache["policy"], cache["value"], cache["h"] = policy, value, h
        return policy, value, cache

    def loss(self, x: Array, mask: Array, pi: Array, z: Array, value_weight: float = 1.0) -> float:
        """Cross-entropy to the target policy ``pi`` plus ``value_weight`` times the squared
        error to the target value ``z`` (AlphaZero's names), each averaged over the batch."""
        policy, value, _ = self.forward(x, mask)
        return _loss(policy, value, pi, z, value_weight)

    # -- backward -----------------------------------------------------------------------------
    def gradients(
        self, x: Array, mask: Array, pi: Array, z: Array, value_weight: float = 1.0
    ) -> tuple[float, dict[str, Array]]:
        """The loss and its gradient with respect to every parameter (backpropagation)."""
        policy, value, cache = self.forward(x, mask)
        n = x.shape[0]
        loss = _loss(policy, value, pi, z, value_weight)
        grads: dict[str, Array] = {}
        # Softmax with cross-entropy: d loss / d logit = p - target (0 for illegal actions).
        d_logits = (policy - pi) / n
        # tanh with squared error: d loss / d u = 2 w (v - z) (1 - v^2), w the value's weight.
        d_u = (2 * value_weight * (value - z) * (1 - value**2) / n)[:, None]
        h = cache["h"]
        grads["Wp"], grads["bp"] = h.T @ d_logits, d_logits.sum(axis=0)
        grads["Wv"], grads["bv"] = h.T @ d_u, d_u.sum(axis=0)
        d_h = d_logits @ self.params["Wp"].T + d_u @ self.params["Wv"].T
        for k in range(len(self.hidden), 0, -1):
            d_a = d_h * (cache[f"a{k}"] > 0)  # ReLU passes the gradient where it was active
            below = cache[f"h{k - 1}"] if k > 1 else cache["x"]
            grads[f"W{k}"], grads[f"b{k}"] = below.T @ d_a, d_a.sum(axis=0)
            d_h = d_a @ self.params[f"W{k}"].T
        return loss, grads

    def step(self, grads: dict[str, Array], learning_rate: float) -> None:
        """One step of gradient descent on every parameter."""
        for name, grad in grads.items():
            self.params[name] -= learning_rate * grad

    # -- saving -------------------------------------------------------------------------------
    def to_json(self) -> str:
        """The weights as JSON (lists of floats), which :class:`Predictor` reads."""
        return json.dumps(
            {"hidden": list(self.hidden), "params": {k: v.tolist() for k, v in self.params.items()}}
        )

    @classmethod
    def from_json(cls, text: str) -> PolicyValueNet:
        import numpy as np

        data = json.loads(text)
        params = {k: np.array(v, dtype=float) for k, v in data["params"].items()}
        net = cls.__new__(cls)
        net.hidden = tuple(data["hidden"])
        net.params = params
        return net


def _loss(
    policy: Array,
    value: Array,
    target_policy: Array,
    target_value: Array,
    value_weight: float = 1.0,
) -> float:
    import numpy as np

    safe = np.where(target_policy > 0, np.log(np.where(policy > 0, policy, 1.0)), 0.0)
    cross_entropy = -(target_policy * safe).sum(axis=1).mean()
    return float(cross_entropy + value_weight * ((value - target_value) ** 2).mean())


class Predictor:
    """The forward pass of one position, from :meth:`PolicyValueNet.to_json`'s weights:
    ``predict(state) -> (priors, value)``.

    ``backend="python"`` runs it in plain Python (lists of floats: the browser's Python has no
    numpy); ``"numpy"`` runs the same arithmetic with numpy's matrix products (tens of times
    faster for Connect Four's layers); ``"auto"`` (the default) takes numpy when it can be
    imported.  The two give the same numbers up to the rounding of a sum's order (about 1e-15).
    """

    def __init__(self, text: str, backend: str = "auto"):
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
        data = json.loads(text)
        self.hidden = tuple(data["hidden"])
        self.info = {k: v for k, v in data.items() if k != "params"}  # game, config, ...
        p = data["params"]
        if backend == "auto":
            try:
                import numpy  # noqa: F401
            except ImportError:
                backend = "python"
            else:
                backend = "numpy"
        self.backend = backend
        self.parameters = sum(
            len(b) * (1 + len(w))
            for w, b in (
                [(p[f"W{k}"], p[f"b{k}"]) for k in range(1, len(self.hidden) + 1)]
                + [(p["Wp"], p["bp"]), (p["Wv"], p["bv"])]
            )
        )
        if backend == "numpy":
            import numpy as np

            self._arrays = [
                (np.array(p[f"W{k}"]), np.array(p[f"b{k}"])) for k in range(1, len(self.hidden) + 1)
            ]
            self._heads = np.hstack([np.array(p["Wp"]), np.array(p["Wv"])])
            self._head_bias = np.concatenate([np.array(p["bp"]), np.array(p["bv"])])
            return
        # Columns of each weight matrix, so a layer is one dot product per output unit.
        self.layers = [(_columns(p[f"W{k}"]), p[f"b{k}"]) for k in range(1, len(self.hidden) + 1)]
        self.policy = (_columns(p["Wp"]), p["bp"])
        self.value = (_columns(p["Wv"]), p["bv"])

    def predict(self, state: GameState) -> tuple[dict[int, float], float]:
        """``priors``: {legal action: probability}; ``value``: in [-1, 1] for the mover."""
        legal = state.legal_actions()
        if self.backend == "numpy":
            logits, value = self._numpy_heads(state, legal)
        else:
            h = encode(state)
            for columns, bias in self.layers:
                h = [max(0.0, _dot(h, column) + b) for column, b in zip(columns, bias, strict=True)]
            columns, bias = self.policy
            logits = {a: _dot(h, columns[a]) + bias[a] for a in legal}
            columns, bias = self.value
            value = _dot(h, columns[0]) + bias[0]
        # The softmax over the legal actions (the largest logit subtracted: exp cannot overflow).
        top = max(logits.values())
        weights = {a: math.exp(v - top) for a, v in logits.items()}
        total = sum(weights.values())
        priors = {a: w / total for a, w in weights.items()}
        return priors, math.tanh(value)

    def _numpy_heads(self, state: GameState, legal: list[int]) -> tuple[dict[int, float], float]:
        import numpy as np

        h = np.array(encode(state))
        for weights, bias in self._arrays:
            h = np.maximum(h @ weights + bias, 0.0)
        out = (h @ self._heads + self._head_bias).tolist()
        return {a: out[a] for a in legal}, out[-1]


BACKENDS = ("auto", "numpy", "python")


class NetGuide:
    """The network as PUCT's prior and as its evaluator (no playout): ``prior(state)`` gives the
    policy head's probabilities, ``evaluate(state, rng)`` the value head's result as returns
    (r0, r1).  Predictions are cached, since a node's value and, later, its prior come from the
    same forward pass."""

    def __init__(self, predictor: Predictor, cache_size: int = 50_000):
        self.predictor = predictor
        self.cache: OrderedDict[GameState, tuple[dict[int, float], float]] = OrderedDict()
        self.cache_size = cache_size

    def predict(self, state: GameState) -> tuple[dict[int, float], float]:
        found = self.cache.get(state)
        if found is None:
            found = self.predictor.predict(state)
            self.cache[state] = found
            if len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        return found

    def prior(self, state: GameState) -> dict[int, float]:
        return self.predict(state)[0]

    def evaluate(self, state: GameState, rng: random.Random) -> tuple[float, float]:
        if state.is_terminal():
            return state.returns()
        value = self.predict(state)[1]
        me = state.current_player
        return (value, -value) if me == 0 else (-value, value)


def _columns(matrix: list[list[float]]) -> list[list[float]]:
    return [list(column) for column in zip(*matrix, strict=True)]


def _dot(xs: list[float], ys: list[float]) -> float:
    return sum(x * y for x, y in zip(xs, ys, strict=True))
