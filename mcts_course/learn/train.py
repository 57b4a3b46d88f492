"""The training loop: self-play, a replay buffer, and gradient steps on its examples.

One *generation* plays ``games`` self-play games with the current network (in parallel with
joblib), adds their examples to a replay buffer that keeps the most recent ``buffer_size``, and
takes ``steps`` gradient steps (Adam) on minibatches drawn from the buffer.  The loss is the
network's (:meth:`~mcts_course.learn.network.PolicyValueNet.loss`) plus an L2 penalty on the
weights.  Everything is seeded: the same configuration trains the same network.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from mcts_course.games.base import GameState
from mcts_course.learn.network import NumpyPredictor, PolicyValueNet
from mcts_course.learn.selfplay import Example, NetGuide, self_play_game


@dataclass(frozen=True)
class Config:
    """What a training run does; the defaults suit tic-tac-toe."""

    generations: int = 20
    games: int = 40  # self-play games per generation
    iterations: int = 50  # PUCT iterations per self-play move
    steps: int = 100  # gradient steps per generation
    batch: int = 64
    learning_rate: float = 0.003
    cosine: bool = False  # lower the learning rate to 0 along a half cosine over the run
    value_weight: float = 1.0  # the squared error's weight in the loss
    weight_decay: float = 1e-4
    buffer_size: int = 20_000
    hidden: tuple[int, ...] = (64,)
    sample_moves: int = 4  # plies whose move is drawn from the visits, not the most visited
    temperature: float = 1.0  # of that draw: visits ** (1 / temperature)
    c: float = 1.5  # PUCT's exploration constant in self-play
    alpha: float = 0.5  # Dirichlet noise on the root's prior: its concentration
    fraction: float = 0.25  # and its weight
    symmetries: bool = False  # train on a random rotation or reflection of each example
    seed: int = 0


@dataclass
class Generation:
    """One generation of the training log."""

    generation: int
    games: int  # self-play games played so far
    examples: int  # examples in the buffer
    loss: float  # mean training loss over the generation's steps
    seconds: float  # time since the start
    measures: dict[str, float] = field(default_factory=dict)


class Adam:
    """Adam (Kingma and Ba, 2015): gradient steps scaled by running moments of the gradient."""

    def __init__(self, params: dict[str, Any], learning_rate: float, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8):
        import numpy as np

        self.lr, self.beta1, self.beta2, self.eps = learning_rate, beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, Any], grads: dict[str, Any]) -> None:
        import numpy as np

        self.t += 1
        for k, g in grads.items():
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g * g
            m_hat = self.m[k] / (1 - self.beta1**self.t)
            v_hat = self.v[k] / (1 - self.beta2**self.t)
            params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def square_symmetries(n: int) -> list[list[int]]:
    """The 8 rotations and reflections of an n x n board, each as a permutation of its cells
    (numbered row by row): the transformed board's cell ``i`` holds the original's
    ``perm[i]``.  Tic-tac-toe's rules do not change under them, nor do its game values."""
    perms = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                perm = []
                for row in range(n):
                    for col in range(n):
                        r, c = (col, row) if transpose else (row, col)
                        perm.append((n - 1 - r if flip_rows else r) * n
                                    + (n - 1 - c if flip_cols else c))
                perms.append(perm)
    return perms


def _symmetry_indices(game: type[GameState]) -> tuple[Any, Any]:
    """For each symmetry of ``game``, the index arrays that transform an input (both planes)
    and an action vector; refused for a game whose actions are not the cells of a square."""
    import numpy as np

    cells = game.ROWS * game.COLS
    if game.ROWS != game.COLS or game.NUM_ACTIONS != cells:
        raise ValueError(f"symmetries=True needs a square board whose actions are its cells, "
                         f"as tic-tac-toe's; {game.NAME} is not one")
    perms = np.array(square_symmetries(game.ROWS))
    return np.concatenate([perms, perms + cells], axis=1), perms


def _games(game: type[GameState], weights: str, seeds: list[int], config: Config
           ) -> list[Example]:
    guide = NetGuide(NumpyPredictor(weights))  # one cache for all the games of this network
    out: list[Example] = []
    for seed in seeds:
        out.extend(self_play_game(game, guide, config.iterations, seed, config.sample_moves,
                                  c=config.c, alpha=config.alpha, fraction=config.fraction,
                                  temperature=config.temperature))
    return out


def train(game: type[GameState], config: Config = Config(), n_jobs: int = 1,
          measure: Callable[[PolicyValueNet], dict[str, float]] | None = None,
          progress: bool = False) -> tuple[PolicyValueNet, list[Generation]]:
    """Train a network for ``game`` by self-play; return it and the log (``measure(net)``, if
    given, adds its numbers to each generation's row)."""
    import numpy as np
    from joblib import Parallel, delayed

    net = PolicyValueNet.for_game(game, config.hidden, seed=config.seed)
    optimiser = Adam(net.params, config.learning_rate)
    buffer: deque[Example] = deque(maxlen=config.buffer_size)
    rng = random.Random(config.seed)
    log: list[Generation] = []
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.generations, desc=f"training on {game.NAME}", unit="generation")
    workers = max(1, n_jobs)
    if config.symmetries:
        input_perms, action_perms = _symmetry_indices(game)
        np_rng = np.random.default_rng(config.seed)
    for generation in range(1, config.generations + 1):
        seeds = [rng.randrange(2**31) for _ in range(config.games)]
        chunks = [seeds[k::workers] for k in range(workers)]
        weights = net.to_json()
        parts = Parallel(n_jobs=workers)(
            delayed(_games)(game, weights, chunk, config)
            for chunk in chunks if chunk)
        for part in parts:
            buffer.extend(part)
        inputs, masks, policies, values = (np.array([getattr(e, name) for e in buffer])
                                           for name in ("features", "mask", "policy", "value"))
        losses = []
        for step in range(config.steps):
            if config.cosine:
                done = ((generation - 1) * config.steps + step) / (config.generations * config.steps)
                optimiser.lr = config.learning_rate * 0.5 * (1 + math.cos(math.pi * done))
            sample = rng.sample(range(len(buffer)), min(config.batch, len(buffer)))
            x, mask, target, z = inputs[sample], masks[sample], policies[sample], values[sample]
            if config.symmetries:  # each example seen through one of the board's symmetries
                which = np_rng.integers(0, len(action_perms), len(sample))
                rows = np.arange(len(sample))[:, None]
                x = x[rows, input_perms[which]]
                mask, target = mask[rows, action_perms[which]], target[rows, action_perms[which]]
            loss, grads = net.gradients(x, mask, target, z, config.value_weight)
            for name in grads:
                if name.startswith("W"):  # L2 on the weights, not on the biases
                    grads[name] = grads[name] + 2 * config.weight_decay * net.params[name]
            optimiser.step(net.params, grads)
            losses.append(loss)
        row = Generation(generation, generation * config.games, len(buffer),
                         float(np.mean(losses)), time.perf_counter() - start)
        if measure is not None:
            row.measures = measure(net)
        log.append(row)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{row.loss:.3f}")
    if bar is not None:
        bar.close()
    return net, log


def log_rows(log: list[Generation]) -> list[dict[str, Any]]:
    """The log as flat rows (for a CSV file or a table)."""
    rows = []
    for entry in log:
        row = asdict(entry)
        row.update(row.pop("measures"))
        rows.append(row)
    return rows
