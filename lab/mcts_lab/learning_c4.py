"""Connect Four learned: the self-play network against UCT, on solved positions, and beside a
network of the same size trained on the exact solver's labels.

* :func:`net_vs_uct` plays PUCT guided by the shipped network (``puct:prior=net``, the network as
  prior and as leaf value, no playout) against UCT with random playouts, at equal iterations per
  move or at equal time per move, colours alternated (the arena).
* :func:`optimal_shares` counts, on positions the package's own exact search
  (:mod:`mcts_course.agents.exact`) labelled, how often a search's move keeps the position's
  exact value, PUCT with the network beside UCT at the same budget.
* The **supervised bound**: the same architecture trained on solver labels (the policy target
  spread over the optimal moves, the value target the exact value), what a network of this
  size can learn when told the truth; :func:`network_accuracy` measures both networks' heads
  on held-out solved positions (the policy's top move optimal, the value's nearest result right).

The labelled positions are late (24 to 32 plies played, where the exact search takes a second
or less), drawn from random play; they are computed once (:func:`make_labelled`, ``python -m
mcts_lab.learning_c4``, half an hour): 8,000 to train the supervised network, 2,000
others held out, which ship in ``lab/mcts_lab/data/connect4_held_out.json`` with the
supervised network (``connect4_supervised.json``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources

from mcts_course.agents.exact import forget, move_values
from mcts_course.games import ConnectFour, GameState
from mcts_lab import N_JOBS
from mcts_lab.learning import outcome_of


@dataclass(frozen=True)
class Labelled:
    """A position (the moves from the start) and the exact value of every legal move for the
    player to move: +1 win, 0 draw, -1 loss."""

    moves: tuple[int, ...]
    values: dict[int, int]

    @property
    def state(self) -> GameState:
        return ConnectFour.from_moves(list(self.moves))

    @property
    def value(self) -> int:
        """The position's exact value for the player to move."""
        return max(self.values.values())

    @property
    def best(self) -> set[int]:
        return {a for a, v in self.values.items() if v == self.value}

    @property
    def has_choice(self) -> bool:
        """Some legal move gives the value away (else any move is optimal)."""
        return len(self.best) < len(self.values)

    @property
    def wins_at_once(self) -> bool:
        """The mover has a move that wins on the spot (any search finds it at its first look)."""
        state = self.state
        me = state.current_player
        return any(state.play(a).winner() == me for a in state.legal_actions())

    @property
    def is_test(self) -> bool:
        """A position that tests a move choice: some move gives the value away, and the mover
        cannot simply win on the spot."""
        return self.has_choice and not self.wins_at_once


def label_positions(
    count: int, plies: tuple[int, int], seed: int, exclude: set[tuple[int, ...]] = frozenset()
) -> list[Labelled]:
    """``count`` distinct positions of random play, after a number of plies drawn uniformly in
    ``plies`` (inclusive), not over, each with its exact move values."""
    rng = random.Random(seed)
    found: list[Labelled] = []
    seen = set(exclude)
    while len(found) < count:
        state, moves = ConnectFour(), []
        for _ in range(rng.randint(*plies)):
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            moves.append(action)
            state = state.play(action)
        if state.is_terminal() or tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        forget()  # random positions share little: keep the table (and memory) small
        found.append(Labelled(tuple(moves), move_values(state)))
    return found


def make_labelled(
    count: int, plies: tuple[int, int], seed: int, exclude: set[tuple[int, ...]] = frozenset()
) -> list[Labelled]:
    """:func:`label_positions` by hundreds (seeds ``seed``, ``seed + 100``, ...), as the shipped
    sets were made: ``make_labelled(**TRAIN_SET)``, then ``make_labelled(**HELD_OUT,
    exclude=...)`` without the training positions."""
    found: list[Labelled] = []
    for k in range(0, count, 100):
        taken = set(exclude) | {p.moves for p in found}
        found += label_positions(min(100, count - k), plies, seed + k, taken)
    return found


_SIGNS = {1: "+", 0: "0", -1: "-"}


def save_labelled(positions: list[Labelled]) -> str:
    """Labelled positions as JSON, one string each: the columns played, ``/``, and the value of
    each column's move (``+`` win, ``0`` draw, ``-`` loss, ``.`` a full column)."""
    rows = [
        "".join(map(str, p.moves))
        + "/"
        + "".join(
            _SIGNS[p.values[a]] if a in p.values else "." for a in range(ConnectFour.NUM_ACTIONS)
        )
        for p in positions
    ]
    return json.dumps(rows, indent=0)


def load_labelled(text: str) -> list[Labelled]:
    """The positions :func:`save_labelled` wrote."""
    values = {sign: v for v, sign in _SIGNS.items()}
    found = []
    for row in json.loads(text):
        moves, _, signs = row.partition("/")
        found.append(
            Labelled(
                tuple(int(c) for c in moves),
                {a: values[c] for a, c in enumerate(signs) if c != "."},
            )
        )
    return found


def held_out() -> list[Labelled]:
    """The shipped held-out positions (``lab/mcts_lab/data/connect4_held_out.json``): made
    by ``make_labelled(**HELD_OUT, exclude=<the training positions>)``."""
    path = resources.files("mcts_lab") / "data" / "connect4_held_out.json"
    return load_labelled(path.read_text())


def mirrored(position: Labelled) -> Labelled:
    """The same position seen in a mirror (column c becomes column 6 - c): Connect Four's one
    symmetry, so the same values."""
    last = ConnectFour.COLS - 1
    return Labelled(
        tuple(last - m for m in position.moves), {last - a: v for a, v in position.values.items()}
    )


def supervised_examples(positions: list[Labelled]):
    """Inputs, masks, policy targets (spread evenly over the optimal moves) and value targets
    (the exact value) of ``positions`` and their mirror images, as numpy arrays."""
    import numpy as np

    from mcts_course.learn.network import encode, legal_mask

    rows = [q for p in positions for q in (p, mirrored(p))]
    x = np.array([encode(p.state) for p in rows])
    mask = np.array([legal_mask(p.state) for p in rows])
    target = np.zeros(mask.shape)
    for k, p in enumerate(rows):
        for a in p.best:
            target[k, a] = 1.0 / len(p.best)
    z = np.array([float(p.value) for p in rows])
    return x, mask, target, z


def train_supervised(
    positions: list[Labelled],
    hidden: tuple[int, ...],
    steps: int,
    batch: int = 256,
    learning_rate: float = 0.002,
    weight_decay: float = 1e-4,
    seed: int = 0,
):
    """The network of the self-play run's architecture trained on the solver's labels: Adam
    on minibatches with the same loss (cross-entropy to the policy target plus squared error
    to the value) and L2 penalty as :func:`mcts_course.learn.train.train`."""
    import numpy as np

    from mcts_course.learn.network import PolicyValueNet
    from mcts_course.learn.train import Adam

    x, mask, target, z = supervised_examples(positions)
    net = PolicyValueNet.for_game(ConnectFour, hidden, seed=seed)
    optimiser = Adam(net.params, learning_rate)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        sample = rng.choice(len(x), size=min(batch, len(x)), replace=False)
        _, grads = net.gradients(x[sample], mask[sample], target[sample], z[sample])
        for name in grads:
            if name.startswith("W"):
                grads[name] = grads[name] + 2 * weight_decay * net.params[name]
        optimiser.step(net.params, grads)
    return net


@dataclass
class Accuracy:
    """A network's heads on labelled positions: ``top_move`` the share of the test positions
    (:attr:`Labelled.is_test`) where the policy's most probable move is optimal, ``outcome``
    the share of all positions where the value's nearest result (win above 1/2, loss below
    -1/2, else draw: :func:`mcts_lab.learning.outcome_of`, as for tic-tac-toe) is the
    exact one."""

    name: str
    top_move: float
    outcome: float
    choices: int  # test positions (the top-move share's denominator)
    positions: int
    chance: bool = False  # top_move is a random move's expected share, not a count


def network_accuracy(name: str, predictor, positions: list[Labelled]) -> Accuracy:
    """``predictor`` (anything with ``predict(state) -> (priors, value)``) on ``positions``."""
    right_moves = right_outcomes = choices = 0
    for position in positions:
        priors, value = predictor.predict(position.state)
        right_outcomes += outcome_of(value) == position.value
        if position.is_test:
            choices += 1
            top = max(sorted(priors), key=priors.__getitem__)
            right_moves += top in position.best
    return Accuracy(
        name, right_moves / choices, right_outcomes / len(positions), choices, len(positions)
    )


# -- searches: PUCT with a network against UCT ------------------------------------------------
def net_agent(
    predictor=None, iterations: int | None = None, time_limit: float | None = None, seed: int = 0
):
    """PUCT guided by a network, as prior and leaf value: the shipped one (``puct:prior=net``)
    when ``predictor`` is None, else ``predictor`` (e.g. the supervised network)."""
    from mcts_course.agents import make_agent
    from mcts_course.agents.puct import PUCTAgent
    from mcts_course.learn.network import NetGuide

    if predictor is None:
        _one_budget(iterations, time_limit)
        return make_agent("puct:prior=net", iterations=iterations, time_limit=time_limit, seed=seed)
    guide = NetGuide(predictor)
    return PUCTAgent(
        iterations, time_limit=time_limit, prior=guide.prior, evaluator=guide, seed=seed
    )


def uct_agent(iterations: int | None = None, time_limit: float | None = None, seed: int = 0):
    """UCT with random playouts (``mcts:``) at the budget given."""
    from mcts_course.agents import make_agent

    _one_budget(iterations, time_limit)
    return make_agent("mcts", iterations=iterations, time_limit=time_limit, seed=seed)


def _one_budget(iterations: int | None, time_limit: float | None) -> None:
    if (iterations is None) == (time_limit is None):
        raise ValueError("give iterations or time_limit (one of them)")


def net_vs_uct(
    games: int,
    seed: int,
    iterations: int | None = None,
    time_limit: float | None = None,
    n_jobs: int | None = N_JOBS,
):
    """PUCT with the shipped network against UCT, both with ``iterations`` per move (equal
    iterations) or ``time_limit`` seconds per move (equal time), colours alternated."""
    from mcts_course.arena import match

    return match(
        ConnectFour,
        net_agent(iterations=iterations, time_limit=time_limit),
        uct_agent(iterations=iterations, time_limit=time_limit),
        games=games,
        seed=seed,
        n_jobs=n_jobs,
        keep_moves=False,
    )


@dataclass
class Shares:
    """Searches' moves on labelled test positions: per search and position (in the positions'
    order), 1 if its move kept the exact value (``kept``)."""

    iterations: int
    kept: dict[str, list[int]]

    @property
    def positions(self) -> int:
        return len(next(iter(self.kept.values())))

    @property
    def right(self) -> dict[str, int]:
        return {name: sum(k) for name, k in self.kept.items()}

    def share(self, name: str) -> float:
        return self.right[name] / self.positions

    def interval(self, name: str) -> tuple[float, float]:
        from mcts_course.stats import wilson_interval

        return wilson_interval(self.share(name), self.positions)

    def paired(self, a: str, b: str) -> PairedMeasure:
        """Search ``a``'s share minus ``b``'s, paired over the positions (both searched each
        position with the same seed)."""
        return paired_measure(self.kept[a], self.kept[b])


def _right_moves(
    makers: dict, numbered: list[tuple[int, Labelled]]
) -> dict[str, list[tuple[int, int]]]:
    right: dict[str, list[tuple[int, int]]] = {name: [] for name in makers}
    for k, position in numbered:  # each search seeded by the position's number
        for name, make in makers.items():
            right[name].append((k, int(make(k).select_action(position.state) in position.best)))
    return right


def optimal_shares(
    positions: list[Labelled], iterations: int, supervised=None, n_jobs: int = 2
) -> Shares:
    """On the test positions (:attr:`Labelled.is_test`), the share where each search's move
    keeps the exact value: PUCT with the shipped network and UCT, ``iterations`` per move
    each (and PUCT with the ``supervised`` network if given)."""
    from joblib import Parallel, delayed

    makers = {
        "PUCT + self-play net": lambda s: net_agent(iterations=iterations, seed=s),
        "UCT": lambda s: uct_agent(iterations=iterations, seed=s),
    }
    if supervised is not None:
        makers["PUCT + supervised net"] = lambda s: net_agent(supervised, iterations, seed=s)
    chosen = [p for p in positions if p.is_test]
    chunks = [list(range(k, len(chosen), n_jobs)) for k in range(n_jobs)]
    parts = Parallel(n_jobs=n_jobs)(
        delayed(_right_moves)(makers, [(i, chosen[i]) for i in chunk]) for chunk in chunks if chunk
    )
    kept = {
        name: [v for _, v in sorted(pair for part in parts for pair in part[name])]
        for name in makers
    }
    return Shares(iterations, kept)


# -- the shipped pieces, tables and the learning curve ----------------------------------------
def supervised_network():
    """The supervised network shipped in ``lab/mcts_lab/data/connect4_supervised.json``
    (:func:`make_supervised`), as a predictor."""
    from mcts_course.learn.network import Predictor

    path = resources.files("mcts_lab") / "data" / "connect4_supervised.json"
    return Predictor(path.read_text())


def training_log() -> list[dict[str, float]]:
    """The shipped network's training log (``mcts_course/learn/data/connect4.csv``)."""
    import csv

    path = resources.files("mcts_course.learn") / "data" / "connect4.csv"
    with path.open(newline="") as handle:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]


def learning_curve(log: list[dict[str, float]]):
    """The training loss (policy cross-entropy plus value squared error) per generation, against
    the self-play games played so far.  (The log's elapsed seconds are a clock reading on a
    shared machine, not a cost, so they are not drawn.)"""
    import matplotlib.pyplot as plt

    fig, left = plt.subplots(figsize=(5.5, 3.2))
    games = [row["games"] for row in log]
    left.plot(games, [row["loss"] for row in log], marker=".")
    left.set_xlabel("self-play games")
    left.set_ylabel("training loss")
    left.set_title("Loss on the replay buffer")
    fig.tight_layout()
    plt.close(fig)
    return fig


def baseline_accuracy(positions: list[Labelled]) -> Accuracy:
    """What knowing nothing scores: a uniformly random legal move's chance of being optimal on
    the test positions, and always answering the most common exact result (random play's late
    positions are mostly won for the player to move)."""
    tests = [p for p in positions if p.is_test]
    chance = sum(len(p.best) / len(p.values) for p in tests) / len(tests)
    counts = [sum(p.value == v for p in positions) for v in (1, 0, -1)]
    return Accuracy(
        "random move / most common result",
        chance,
        max(counts) / len(positions),
        len(tests),
        len(positions),
        chance=True,
    )


def accuracy_table(accuracies: list[Accuracy]):
    """One row per network: the policy's top move optimal, the value's result right, each with
    its 95% Wilson interval.  A baseline (:func:`baseline_accuracy`) is two rows, as it is two
    rules: a random move (its expected share, no interval) and the most common result."""
    from mcts_course.stats import wilson_interval
    from mcts_lab.present import Table, span

    def share(value: float, n: int) -> tuple[str, str]:
        low, high = wilson_interval(value, n)
        return f"{value:.1%}", span(low, high)

    rows = []
    for a in accuracies:
        if a.chance:
            rows.append(
                ("a random move", f"{a.top_move:.1%}", "(expected)", "", "", f"{a.choices}")
            )
            rows.append(
                ("the most common result", "", "", *share(a.outcome, a.positions), f"{a.positions}")
            )
        else:
            rows.append(
                (
                    a.name,
                    *share(a.top_move, a.choices),
                    *share(a.outcome, a.positions),
                    f"{a.choices} / {a.positions}",
                )
            )
    return Table(
        [
            "network or rule",
            "top move optimal",
            "95% interval",
            "result (W/D/L) right",
            "95% interval",
            "positions",
        ],
        rows,
        right=["top move optimal", "result (W/D/L) right", "positions"],
    )


def shares_table(shares: Shares | Sequence[Shares]):
    """One row per search (and budget, given several): its move kept the exact value, with the
    95% Wilson interval."""
    from mcts_lab.present import Table, span

    rows = []
    for budget in [shares] if isinstance(shares, Shares) else shares:
        for name in budget.right:
            lo, hi = budget.interval(name)
            rows.append((name, budget.iterations, budget.share(name), span(lo, hi)))
    return Table(
        ["search", "iterations", "optimal moves", "95% interval"],
        rows,
        formats={"optimal moves": ".1%"},
        right=["iterations", "optimal moves"],
    )


def match_p_value(result) -> float:
    """Two-sided p-value of "the two agents are even": the exact sign test over the games
    (each game a unit: +1, 0 or -1 for the first agent; draws leave out), as the book's other
    matches use."""
    from mcts_lab.exact_paired import sign_test_p

    return sign_test_p(result.wins, result.losses)


def match_table(results: dict[str, object], holm: bool = False):
    """One row per match (label -> :class:`~mcts_course.arena.MatchResult`): wins, draws,
    losses of the first agent, its score and 95% interval; with ``holm``, the p-value of
    "even" and whether Holm's correction over the rows rejects it (the matches read
    together)."""
    from mcts_course.stats import holm as holm_test
    from mcts_lab.present import Table, p_text, span

    p_values = [match_p_value(r) for r in results.values()]
    rejected = holm_test(p_values)
    rows = []
    for (label, r), p, reject in zip(results.items(), p_values, rejected, strict=True):
        lo, hi = r.interval  # type: ignore[attr-defined]
        row = [
            label,
            r.games,  # type: ignore[attr-defined]
            r.wins,  # type: ignore[attr-defined]
            r.draws,  # type: ignore[attr-defined]
            r.losses,  # type: ignore[attr-defined]
            r.score,  # type: ignore[attr-defined]
            span(lo, hi),
        ]
        if holm:
            row += [p_text(p), "yes" if reject else "no"]
        rows.append(row)
    columns = ["match", "games", "wins", "draws", "losses", "score", "95% interval"]
    if holm:
        columns += ["p (even)", "not even, Holm"]
    return Table(
        columns,
        rows,
        formats={"score": ".1%"},
        right=["games", "wins", "draws", "losses", "score", *(["p (even)"] if holm else [])],
    )


# -- making the shipped data (offline, minutes) ----------------------------------------------
SUPERVISED_STEPS = 4000
# A stronger L2 penalty than self-play's 1e-4: 8,000 positions are few for 20,000 weights (on
# a validation split of the training positions, 1e-3 kept more of the fit than 1e-4).
SUPERVISED_WEIGHT_DECAY = 1e-3
TRAIN_SET = dict(count=4000, plies=(24, 32), seed=1000)
HELD_OUT = dict(count=2000, plies=(24, 32), seed=2000)  # without the TRAIN_SET positions
MORE_TRAINING = dict(count=4000, plies=(24, 32), seed=5000)  # without both sets' positions


def make_supervised(train: list[Labelled], steps: int = SUPERVISED_STEPS) -> str:
    """The supervised network's JSON: the shipped self-play network's architecture, trained on
    ``train`` (:func:`train_supervised`, ``steps`` steps, the self-play run's seed)."""
    from mcts_course.learn.train import CONFIGS, network_json

    config = CONFIGS["connect4"]
    net = train_supervised(
        train, config.hidden, steps, weight_decay=SUPERVISED_WEIGHT_DECAY, seed=config.seed
    )
    data = json.loads(network_json(net, ConnectFour, config))
    del data["config"]
    data["trained_on"] = (
        f"{len(train)} solved positions and their mirror images, {steps} "
        f"steps, weight decay {SUPERVISED_WEIGHT_DECAY}"
    )
    return json.dumps(data, separators=(",", ":"))


def iterations_in(time_limit: float, states: list[GameState]) -> dict[str, float]:
    """The mean iterations each search completes in ``time_limit`` seconds on ``states``
    (measured here, so it depends on the machine and its load): what equal time gives each."""
    makers = {
        "PUCT + self-play net": lambda s: net_agent(time_limit=time_limit, seed=s),
        "UCT": lambda s: uct_agent(time_limit=time_limit, seed=s),
    }
    done: dict[str, list[int]] = {name: [] for name in makers}
    net_agent(iterations=1).search(states[0])  # the network loaded before the clock runs
    for k, state in enumerate(states):
        for name, make in makers.items():  # the two take turns on each position
            agent = make(k)
            agent.search(state)
            done[name].append(agent.last_iterations)
    return {name: sum(counts) / len(counts) for name, counts in done.items()}


def game_positions(count: int, seed: int, plies: tuple[int, int] = (0, 20)) -> list[GameState]:
    """``count`` positions of random play after a number of plies drawn in ``plies``: the
    phases a match goes through (for :func:`iterations_in`)."""
    from mcts_course.games.base import random_position

    rng, found = random.Random(seed), []
    while len(found) < count:
        state = random_position(ConnectFour, rng.randint(*plies), rng)
        if state is not None:
            found.append(state)
    return found


def main() -> None:  # pragma: no cover - a quarter of an hour of exact search
    """Remake the shipped held-out positions and the supervised network (the training
    positions are not shipped: the package is also the play page's download)."""
    folder = resources.files("mcts_lab") / "data"
    train = make_labelled(**TRAIN_SET)  # type: ignore[arg-type]
    test = make_labelled(**HELD_OUT, exclude={p.moves for p in train})  # type: ignore
    train += make_labelled(
        **MORE_TRAINING,  # type: ignore[arg-type]
        exclude={p.moves for p in train + test},
    )
    (folder / "connect4_held_out.json").write_text(save_labelled(test))  # type: ignore
    (folder / "connect4_supervised.json").write_text(make_supervised(train))  # type: ignore


if __name__ == "__main__":
    main()


@dataclass
class SquaredErrors:
    """A value head's mean squared error to the exact values (+1, 0, -1) of ``positions``,
    beside the best constant's (the positions' own mean value, chosen in hindsight), with a
    bootstrap interval over the positions of the paired difference (head minus constant)."""

    name: str
    squared: float
    constant: float
    difference: tuple[float, float]  # 95% bootstrap interval of squared - constant


def squared_errors(
    name: str, predictor, positions: list[Labelled], resamples: int = 2000, seed: int = 0
) -> SquaredErrors:
    """The loss the value head was trained on, on ``positions``: a head that hedges between a
    win and a loss answers near 0, which the nearest-result reading calls a draw, but squared
    error scores it for what it is, an estimate of the expected result."""
    import numpy as np

    exact = np.array([float(p.value) for p in positions])
    value = np.array([predictor.predict(p.state)[1] for p in positions])
    paired = (value - exact) ** 2 - (exact.mean() - exact) ** 2
    rng = np.random.default_rng(seed)
    means = np.sort(
        [paired[rng.integers(0, len(paired), len(paired))].mean() for _ in range(resamples)]
    )
    low, high = means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]
    return SquaredErrors(
        name,
        float(((value - exact) ** 2).mean()),
        float(((exact.mean() - exact) ** 2).mean()),
        (float(low), float(high)),
    )


def squared_table(rows: list[SquaredErrors]):
    """One row per value head: its squared error, the constant's, and the paired difference."""
    from mcts_lab.present import Table

    return Table(
        ["value head", "squared error", "constant's", "difference", "95% low", "95% high"],
        [[r.name, r.squared, r.constant, r.squared - r.constant, *r.difference] for r in rows],
        {k: ".3f" for k in ("squared error", "constant's", "difference", "95% low", "95% high")},
        right=["squared error", "constant's", "difference", "95% low", "95% high"],
    )


# -- two networks on the same positions, and mirror pairs in a sample --------------------------
@dataclass(frozen=True)
class PairedMeasure:
    """Network ``a``'s mean minus network ``b``'s on one measure, paired over the same
    positions: the difference, its 95% bootstrap interval over the positions and the sign-flip
    p-value of "no difference"."""

    difference: float
    interval: tuple[float, float]
    p: float


def per_position(predictor, positions: list[Labelled]) -> dict[str, list[float]]:
    """``predictor``'s heads position by position: ``top`` (the test positions only) 1 where the
    policy's most probable move is optimal; ``outcome`` 1 where the value's nearest result is
    the exact one; ``squared`` the value's squared error to the exact value (all positions)."""
    top: list[float] = []
    outcome: list[float] = []
    squared: list[float] = []
    for position in positions:
        priors, value = predictor.predict(position.state)
        outcome.append(float(outcome_of(value) == position.value))
        squared.append((value - position.value) ** 2)
        if position.is_test:
            best = max(sorted(priors), key=priors.__getitem__)
            top.append(float(best in position.best))
    return {"top": top, "outcome": outcome, "squared": squared}


def paired_measure(xs: Sequence[float], ys: Sequence[float]) -> PairedMeasure:
    """``xs`` minus ``ys``, measured on the same units (``xs[i]`` and ``ys[i]`` on one
    position): the mean difference, its bootstrap interval and the sign-flip p-value."""
    from mcts_course.stats import paired_interval, sign_flip_p_value

    differences = [float(x - y) for x, y in zip(xs, ys, strict=True)]
    return PairedMeasure(
        sum(differences) / len(differences),
        paired_interval(xs, ys),
        sign_flip_p_value(differences) if any(differences) else 1.0,  # no difference, no test
    )


def compare_networks(a, b, positions: list[Labelled]) -> dict[str, PairedMeasure]:
    """Network ``a`` against network ``b`` on the same ``positions``, measure by measure
    (:func:`per_position`), paired over the positions."""
    mine, theirs = per_position(a, positions), per_position(b, positions)
    return {measure: paired_measure(xs, theirs[measure]) for measure, xs in mine.items()}


def paired_table(rows: Iterable[tuple[object, PairedMeasure]], first: str = "comparison"):
    """One row per paired comparison of two shares: its label (under the heading ``first``),
    the difference, its 95% bootstrap interval over the positions and the sign-flip p-value
    (10,000 sign patterns: :func:`~mcts_lab.present.p_text`)."""
    from mcts_lab.present import Table, p_text, span

    return Table(
        [first, "difference", "95% interval", "p (no difference)"],
        [
            (
                name,
                f"{m.difference:+.1%}",
                span(m.interval[0], m.interval[1], signed=True),
                p_text(m.p),
            )
            for name, m in rows
        ],
        right=["difference", "p (no difference)"],
    )


def mirror_pairs(move_lists: list[list[int]]) -> tuple[int, int]:
    """Among positions given by their moves (columns 0 to 6), the number of pairs of two
    different positions that are each other's left-right mirror image, and the number of
    positions that are their own mirror image."""
    last = ConnectFour.COLS - 1
    states = [ConnectFour.from_moves(list(moves)) for moves in move_lists]
    present = set(states)
    pairs = own = 0
    for moves, state in zip(move_lists, states, strict=True):
        image = ConnectFour.from_moves([last - c for c in moves])
        if image == state:
            own += 1
        elif image in present:
            pairs += 1
    return pairs // 2, own
