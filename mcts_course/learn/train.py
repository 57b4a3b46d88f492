"""The training loop: self-play, a replay buffer, and gradient steps on its examples.

One *generation* plays ``games`` self-play games with the current network (in parallel with
joblib), adds their examples to a replay buffer that keeps the most recent ``buffer_size``, and
takes ``steps`` gradient steps (Adam) on minibatches drawn from the buffer.  The loss is the
network's (:meth:`~mcts_course.learn.network.PolicyValueNet.loss`) plus an L2 penalty on the
weights.  Everything is seeded: the same configuration trains the same network.
"""

from __future__ import annotations

import csv
import json
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from mcts_course.errors import needs
from mcts_course.games.base import GameState
from mcts_course.learn.network import NetGuide, PolicyValueNet, Predictor
from mcts_course.learn.selfplay import Example, self_play_game


@dataclass(frozen=True)
class Config:
    """What a training run does; the defaults suit tic-tac-toe."""

    generations: int = 20
    games: int = 40  # self-play games per generation
    iterations: int = 50  # PUCT iterations per self-play move
    steps: int = 100  # gradient steps per generation
    batch: int = 64
    learning_rate: float = 0.003
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
    # The learning rate falls linearly to this by the last generation (None: it stays fixed).
    final_learning_rate: float | None = None
    # Add each position's mirror image too (left-right: tic-tac-toe's and Connect Four's
    # boards and rules look the same in a mirror, so a position and its image have the same
    # value and mirrored visit counts): twice the examples for the same games.
    mirror: bool = False


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

    def __init__(
        self,
        params: dict[str, Any],
        learning_rate: float,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ):
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


def mirror_actions(game: type[GameState]) -> list[int]:
    """Each action's image in a left-right mirror: a column for a game played by columns
    (Connect Four), a cell ``row * COLS + col`` for a game played on cells (tic-tac-toe)."""
    cols = game.COLS
    if game.NUM_ACTIONS == cols:
        return [cols - 1 - a for a in range(cols)]
    if game.NUM_ACTIONS == game.ROWS * cols:
        return [
            row * cols + cols - 1 - col
            for row, col in map(lambda a: divmod(a, cols), range(game.NUM_ACTIONS))
        ]
    raise ValueError(f"{game.NAME} has no left-right mirror of its actions (mirror=False)")


def mirrored(example: Example, game: type[GameState], flip: list[int]) -> Example:
    """The example's position seen in a mirror: each row of each input plane reversed, the
    actions' entries moved to their images; the same value."""
    cols, rows = game.COLS, game.ROWS
    planes = len(example.features) // (rows * cols)
    features = [
        example.features[(p * rows + r) * cols + cols - 1 - c]
        for p in range(planes)
        for r in range(rows)
        for c in range(cols)
    ]
    mask, policy = [0.0] * len(flip), [0.0] * len(flip)
    for a, image in enumerate(flip):
        mask[image], policy[image] = example.mask[a], example.policy[a]
    return Example(features, mask, policy, example.value)


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
                        perm.append(
                            (n - 1 - r if flip_rows else r) * n + (n - 1 - c if flip_cols else c)
                        )
                perms.append(perm)
    return perms


def _symmetry_indices(game: type[GameState]) -> tuple[Any, Any]:
    """For each symmetry of ``game``, the index arrays that transform an input (both planes)
    and an action vector; refused for a game whose actions are not the cells of a square."""
    import numpy as np

    cells = game.ROWS * game.COLS
    if game.ROWS != game.COLS or game.NUM_ACTIONS != cells:
        raise ValueError(
            f"symmetries=True needs a square board whose actions are its cells, "
            f"as tic-tac-toe's; {game.NAME} is not one"
        )
    perms = np.array(square_symmetries(game.ROWS))
    return np.concatenate([perms, perms + cells], axis=1), perms


def _games(
    game: type[GameState], weights: str, seeds: list[int], config: Config
) -> list[list[Example]]:
    guide = NetGuide(Predictor(weights))  # one cache for all the games of this network
    return [
        self_play_game(
            game,
            guide,
            config.iterations,
            seed,
            config.sample_moves,
            c=config.c,
            alpha=config.alpha,
            fraction=config.fraction,
            temperature=config.temperature,
        )
        for seed in seeds
    ]


def train(
    game: type[GameState],
    config: Config = Config(),
    n_jobs: int = 1,
    measure: Callable[[PolicyValueNet], dict[str, float]] | None = None,
    progress: bool = False,
) -> tuple[PolicyValueNet, list[Generation]]:
    """Train a network for ``game`` by self-play; return it and the log (``measure(net)``, if
    given, adds its numbers to each generation's row)."""
    import numpy as np

    needs("joblib", "parallel")  # the games of a generation are played in joblib's processes
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
    if config.mirror:
        flip = mirror_actions(game)
    for generation in range(1, config.generations + 1):
        if config.final_learning_rate is not None and config.generations > 1:
            done = (generation - 1) / (config.generations - 1)
            optimiser.lr = config.learning_rate + done * (
                config.final_learning_rate - config.learning_rate
            )
        seeds = [rng.randrange(2**31) for _ in range(config.games)]
        chunks = [list(range(k, len(seeds), workers)) for k in range(workers)]
        chunks = [chunk for chunk in chunks if chunk]
        weights = net.to_json()
        parts = Parallel(n_jobs=workers)(
            delayed(_games)(game, weights, [seeds[i] for i in chunk], config) for chunk in chunks
        )
        # The games back in the order of their seeds, whatever the number of workers.
        played: dict[int, list[Example]] = {}
        for chunk, part in zip(chunks, parts, strict=True):
            played.update(zip(chunk, part, strict=True))
        for index in range(len(seeds)):
            buffer.extend(played[index])
            if config.mirror:
                buffer.extend(mirrored(example, game, flip) for example in played[index])
        losses = []
        # The buffer as arrays once per generation; a minibatch is a set of their rows.
        features = np.array([e.features for e in buffer])
        masks = np.array([e.mask for e in buffer])
        policies = np.array([e.policy for e in buffer])
        values = np.array([e.value for e in buffer])
        for _ in range(config.steps):
            sample = rng.sample(range(len(buffer)), min(config.batch, len(buffer)))
            x, mask, target, z = (features[sample], masks[sample], policies[sample], values[sample])
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
        row = Generation(
            generation,
            generation * config.games,
            len(buffer),
            float(np.mean(losses)),
            time.perf_counter() - start,
        )
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


# -- the shipped networks' recipes ------------------------------------------------------------
# One source of truth: `mcts-course train GAME` trains with CONFIGS[GAME], and the file shipped
# in mcts_course/learn/data/GAME.json records this configuration (seed included) and was made by
# that command, which remakes it bit for bit with the same numpy on the same machine.
CONFIGS: dict[str, Config] = {
    # 40 generations of 100 games, 25 PUCT iterations a move, the first 5 moves drawn from the
    # visits; three hidden layers (two reach about 93% on the value measure of the book's
    # chapter 15, three 95-96% over three seeds); the board's 8 symmetries.
    "tictactoe": Config(
        generations=40,
        games=100,
        iterations=25,
        steps=1000,
        batch=128,
        learning_rate=0.003,
        final_learning_rate=0.0003,
        hidden=(128, 128, 128),
        sample_moves=5,
        symmetries=True,
    ),
    # 60 generations of 100 games, 100 PUCT iterations a move, mirror images added.
    "connect4": Config(
        generations=60,
        games=100,
        iterations=100,
        steps=300,
        batch=256,
        learning_rate=0.002,
        final_learning_rate=0.0005,
        buffer_size=100_000,
        hidden=(128, 64),
        sample_moves=8,
        mirror=True,
    ),
}

DIGITS = 7  # significant digits of a saved weight: a smaller file, the same play


def network_json(net: PolicyValueNet, game: type[GameState], config: Config) -> str:
    """The network as the package ships it: its game, the configuration that trained it, and
    its weights (rounded to :data:`DIGITS` significant digits), which
    :class:`~mcts_course.learn.network.Predictor` reads."""
    params = {name: _rounded(value.tolist()) for name, value in net.params.items()}
    return json.dumps(
        {"game": game.NAME, "config": asdict(config), "hidden": list(net.hidden), "params": params},
        separators=(",", ":"),
    )


def _rounded(values: Any) -> Any:
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return float(f"{values:.{DIGITS}g}")


def config_of(text: str) -> Config:
    """The training configuration recorded in a network file's JSON text."""
    recorded = json.loads(text)["config"]
    known = {f.name for f in fields(Config)}
    values = {k: v for k, v in recorded.items() if k in known}
    if "hidden" in values:
        values["hidden"] = tuple(values["hidden"])
    return Config(**values)


def write_log(log: list[Generation], path: str | Path) -> None:
    """The training log as CSV: one row per generation (:func:`log_rows`)."""
    rows = log_rows(log)
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["generation"])
        writer.writeheader()
        writer.writerows(rows)


def read_log(path: str | Path) -> list[dict[str, float]]:
    """A training log written by :func:`write_log`, its numbers as floats."""
    with open(path, newline="") as handle:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]
