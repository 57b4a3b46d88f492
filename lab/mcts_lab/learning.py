"""AlphaZero in miniature on tic-tac-toe: a network trained by self-play, checked against the truth.

Tic-tac-toe is small enough to be solved, so what the network learned can be checked position
by position: :class:`Truth` holds every reachable position where the game is not over, with its
exact value and its optimal moves (:mod:`mcts_course.agents.exact`), and measures a network's
two heads against them:

* the **value head**: the share of all these positions whose value it classifies right as a
  win, a draw or a loss for the player to move, reading the number in [-1, 1] as its nearest
  result (above 1/2 a win, below -1/2 a loss, a draw between);
* the **policy head**: the share of the positions where the choice matters (the moves do not
  all have the same exact value) in which its most probable move is optimal.

:func:`train_tictactoe` runs the book's training (the recipe ``CONFIGS["tictactoe"]`` of
:mod:`mcts_course.learn.train`) with that measure after every generation, so the run comes with
its learning curves; :func:`versus` plays the trained network, inside PUCT, against a perfect
player and against UCT at the same number of iterations per move.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from mcts_course.agents.base import Agent
from mcts_course.agents.exact import PerfectAgent, exact_value, move_values
from mcts_course.agents.mcts import MCTSAgent
from mcts_course.agents.puct import PUCTAgent
from mcts_course.arena import MatchResult, match
from mcts_course.games import GameState, TicTacToe
from mcts_course.learn.network import NetGuide, PolicyValueNet, Predictor, encode, legal_mask
from mcts_course.learn.train import CONFIGS, Config, Generation, train
from mcts_lab import N_JOBS
from mcts_lab.experiments import reachable_states
from mcts_lab.present import Table, percent_axis

WIN_ABOVE = 0.5  # the value head's number read as its nearest result: a win above 1/2, ...
LOSS_BELOW = -0.5  # ... a loss below -1/2, a draw in between


def outcome_of(value: float) -> int:
    """The result a value in [-1, 1] stands for, the nearest of +1 (win), 0 (draw), -1 (loss)."""
    return 1 if value > WIN_ABOVE else -1 if value < LOSS_BELOW else 0


class Truth:
    """Every reachable non-terminal position of ``game``, with its exact value and the optimal
    moves there; ``measure(net)`` scores a network's two heads against them."""

    def __init__(self, game: type[GameState] = TicTacToe):
        import numpy as np

        self.game = game
        self.states = reachable_states(game())
        self.values = np.array([exact_value(s) for s in self.states])
        self.optimal = np.zeros((len(self.states), game.NUM_ACTIONS), dtype=bool)
        for k, state in enumerate(self.states):
            values = move_values(state)
            best = max(values.values())
            for action, value in values.items():
                self.optimal[k, action] = value == best
        # The choice matters where some legal move is not optimal.
        legal = np.array([legal_mask(s) for s in self.states]) > 0
        self.matters = (legal & ~self.optimal).any(axis=1)
        self.inputs = np.array([encode(s) for s in self.states])
        self.masks = legal.astype(float)

    @property
    def positions(self) -> int:
        return len(self.states)

    @property
    def choices(self) -> int:
        """The positions where the choice matters (the policy's measure is over these)."""
        return int(self.matters.sum())

    def classes(self, net: PolicyValueNet):
        """The value head's result (+1, 0, -1) for every position."""
        import numpy as np

        _, value, _ = net.forward(self.inputs, self.masks)
        return np.where(value > WIN_ABOVE, 1, np.where(value < LOSS_BELOW, -1, 0))

    def measure(self, net: PolicyValueNet) -> dict[str, float]:
        """``value``: the share of the positions whose result the value head gets right;
        ``policy``: the share of those where the choice matters in which the policy's most
        probable move is optimal."""
        import numpy as np

        policy, _, _ = net.forward(self.inputs, self.masks)
        top = policy.argmax(axis=1)  # ties: the smallest action, as the agents break them
        right_move = self.optimal[np.arange(len(top)), top]
        return {
            "value": float((self.classes(net) == self.values).mean()),
            "policy": float(right_move[self.matters].mean()),
        }

    def confusion(self, net: PolicyValueNet) -> dict[tuple[int, int], int]:
        """{(exact result, the value head's result): positions}."""
        classes = self.classes(net)
        return {
            (int(e), int(c)): int(((self.values == e) & (classes == c)).sum())
            for e in (1, 0, -1)
            for c in (1, 0, -1)
        }


# -- the training run ---------------------------------------------------------------------------
@dataclass
class LearningRun:
    """A training run with its learning curves: ``log`` has, per generation, the measures of
    :meth:`Truth.measure` (``value``, ``policy``)."""

    config: Config
    net: PolicyValueNet
    log: list[Generation]
    seconds: float  # the whole run, self-play, gradient steps and measures
    snapshots: dict[int, str] = field(default_factory=dict, repr=False)  # generation: weights

    @property
    def steps(self) -> list[int]:
        """The gradient steps taken by the end of each generation."""
        return [g.generation * self.config.steps for g in self.log]

    def curve(self, measure: str) -> list[float]:
        return [g.measures[measure] for g in self.log]

    @property
    def final(self) -> dict[str, float]:
        return self.log[-1].measures

    @property
    def games(self) -> int:
        """Self-play games played in all."""
        return self.log[-1].games

    @property
    def gradient_steps(self) -> int:
        return self.steps[-1]

    @property
    def parameters(self) -> int:
        return self.net.parameter_count()

    def first_reaching(self, measure: str, level: float) -> int | None:
        """The gradient steps by which ``measure`` first reached ``level`` (None: never)."""
        for steps, value in zip(self.steps, self.curve(measure), strict=True):
            if value >= level:
                return steps
        return None

    def predictor(self, generation: int | None = None) -> Predictor:
        """The final network (or a snapshot's) for play."""
        text = self.net.to_json() if generation is None else self.snapshots[generation]
        return Predictor(text)


class _Recorder:
    """The measure callback: the truth's measures, and the weights at chosen generations."""

    def __init__(self, truth: Truth, keep: tuple[int, ...]):
        self.truth, self.keep, self.generation = truth, set(keep), 0
        self.snapshots: dict[int, str] = {}

    def __call__(self, net: PolicyValueNet) -> dict[str, float]:
        self.generation += 1
        if self.generation in self.keep:
            self.snapshots[self.generation] = net.to_json()
        return self.truth.measure(net)


def train_tictactoe(
    config: Config | None = None,
    truth: Truth | None = None,
    keep: tuple[int, ...] = (),
    n_jobs: int = 2,
    progress: bool = False,
) -> LearningRun:
    """Train tic-tac-toe's network by self-play (``config``: default the book's recipe,
    ``CONFIGS["tictactoe"]``), measured against ``truth`` after every generation; ``keep``:
    generations whose weights are kept (:attr:`LearningRun.snapshots`)."""
    config = config or CONFIGS["tictactoe"]
    truth = truth or Truth(TicTacToe)
    recorder = _Recorder(truth, keep)
    started = time.perf_counter()
    net, log = train(TicTacToe, config, n_jobs=n_jobs, measure=recorder, progress=progress)
    return LearningRun(config, net, log, time.perf_counter() - started, recorder.snapshots)


def curves_figure(run: LearningRun, goal: float = 0.95):
    """The two measures against the gradient steps, with the goal as a dashed line."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(run.steps, run.curve("policy"), marker=".", label="policy: top move optimal")
    ax.plot(run.steps, run.curve("value"), marker=".", label="value: result (W/D/L) right")
    ax.axhline(goal, color="grey", linestyle="--", linewidth=1, label=f"goal, {goal:.0%}")
    ax.set_xlabel("gradient steps")
    ax.set_ylabel("share of the positions")
    lowest = min(run.curve("value") + run.curve("policy"))
    ax.set_ylim(min(0.7, math.floor((lowest - 0.02) * 20) / 20), 1.0)  # the curves, not 0 to 1
    percent_axis(ax.yaxis)
    ax.set_title("Tic-tac-toe: the network against the exact values")
    ax.legend(loc="lower right")
    fig.tight_layout()
    plt.close(fig)
    return fig


def recipe_table(recipe: Config) -> Table:
    """A training recipe (:data:`~mcts_course.learn.train.CONFIGS`) as the chapter shows it:
    one row per setting."""
    if recipe.symmetries:
        seen = "a random one of the board's 8 symmetries, per example"
    elif recipe.mirror:
        seen = "each position and its mirror image"
    else:
        seen = "none"
    falling = (
        f"{recipe.learning_rate} to {recipe.final_learning_rate}"
        if recipe.final_learning_rate is not None
        else f"{recipe.learning_rate} (constant)"
    )
    return Table(
        ["setting", "value"],
        [
            ["generations × self-play games", f"{recipe.generations} × {recipe.games}"],
            [
                "PUCT iterations per move (self-play), its constant c",
                f"{recipe.iterations}, {recipe.c}",
            ],
            [
                "moves drawn from the visits (at temperature τ)",
                f"first {recipe.sample_moves} (τ = {recipe.temperature})",
            ],
            ["root noise: weight ε, concentration α", f"{recipe.fraction}, {recipe.alpha}"],
            ["gradient steps per generation × minibatch", f"{recipe.steps:,} × {recipe.batch}"],
            ["hidden layers", " + ".join(str(units) for units in recipe.hidden)],
            ["learning rate (Adam), falling linearly", falling],
            ["loss: value weight w, L2 penalty λ", f"{recipe.value_weight}, {recipe.weight_decay}"],
            ["replay buffer (examples)", f"{recipe.buffer_size:,}"],
            ["symmetries", seen],
        ],
    )


def cost_table(run: LearningRun) -> Table:
    """What the run cost, in counts: games, iterations, gradient steps, parameters (no clock
    time: on a shared machine it measures the load as much as the work)."""
    c = run.config
    rows = [
        ["generations", c.generations],
        ["self-play games", run.games],
        ["PUCT iterations per self-play move", c.iterations],
        [f"gradient steps (minibatches of {c.batch})", run.gradient_steps],
        ["network parameters", run.parameters],
    ]
    return Table(["", "count"], rows, right=["count"], formats={"count": ",.0f"})


# -- playing with the network ---------------------------------------------------------------------
def net_agent(predictor: Predictor, iterations: int, seed: int = 0, c: float = 1.0) -> PUCTAgent:
    """PUCT with the network as its prior and its leaf value (no playout), as ``puct:prior=net``
    plays with the shipped network; no noise, so it plays its best."""
    guide = NetGuide(predictor)
    agent = PUCTAgent(iterations, c=c, prior=guide.prior, evaluator=guide, seed=seed)
    agent.name = f"PUCT(net,{iterations})"
    return agent


class PolicyAgent(Agent):
    """The policy head alone, no search: the most probable move (ties: the smallest action)."""

    def __init__(self, predictor: Predictor, seed: int | None = None):
        super().__init__(seed)
        self.predictor = predictor
        self.name = "network's policy"

    def select_action(self, state: GameState) -> int:
        self._legal(state)
        priors, _ = self.predictor.predict(state)
        return max(sorted(priors), key=priors.__getitem__)


@dataclass
class Versus:
    """The matches of :func:`versus`, by label."""

    iterations: int
    results: dict[str, MatchResult]

    def table(self) -> Table:
        """One row a match.  Against the perfect player no one can score above one half, so
        those rows give the share of games lost, with its 95% Wilson interval; the match against
        UCT gives the score (a draw counts one half) with the match's interval."""
        from mcts_course.stats import wilson_interval

        rows = []
        for label, r in self.results.items():
            if label.endswith("vs perfect"):
                share = r.losses / r.games
                lo, hi = wilson_interval(share, r.games)
                measure = "share lost"
            else:
                share, (lo, hi), measure = r.score, r.interval, "score"
            rows.append([label, r.games, f"{r.wins}-{r.draws}-{r.losses}", measure, share, lo, hi])
        return Table(
            ["match", "games", "wins-draws-losses", "measure", "share", "95% low", "95% high"],
            rows,
            {"share": ".1%", "95% low": ".1%", "95% high": ".1%"},
            right=["games", "wins-draws-losses", "share", "95% low", "95% high"],
        )


def versus(
    predictor: Predictor, iterations: int, games: int, seed: int, n_jobs: int | None = N_JOBS
) -> Versus:
    """PUCT with the network, ``iterations`` per move, against a perfect player and against UCT
    with the same iterations; the policy head alone and UCT against the perfect player, as the
    controls.  Colours alternate; the perfect player draws among its optimal moves at random."""
    net = net_agent(predictor, iterations)
    uct = MCTSAgent(iterations, seed=seed)
    uct.name = f"UCT({iterations})"
    perfect = PerfectAgent(seed=seed)
    pairs = {
        "PUCT+net vs perfect": (net, perfect),
        "PUCT+net vs UCT": (net, uct),
        "network's policy alone vs perfect": (PolicyAgent(predictor), perfect),
        "UCT vs perfect": (uct, perfect),
    }
    results = {
        label: match(TicTacToe, a, b, games=games, seed=seed + k, n_jobs=n_jobs, keep_moves=False)
        for k, (label, (a, b)) in enumerate(pairs.items())
    }
    return Versus(iterations, results)


def iteration_costs(
    predictor: Predictor, state: GameState | None = None, n: int = 2000, rounds: int = 3
) -> dict[str, float]:
    """Processor seconds per iteration of UCT and of PUCT with the network on ``state``
    (default: the empty board), the least of ``rounds`` turns each; the two agents take their
    turns alternately, so both meet the same load.  Each PUCT search starts with an empty cache
    of predictions, so every position it meets costs a forward pass once."""
    state = state or TicTacToe()
    makers = {
        "UCT": lambda: MCTSAgent(n, seed=1),
        "PUCT+net": lambda: net_agent(predictor, n, seed=1),
    }
    costs = {label: float("inf") for label in makers}
    for _ in range(rounds):
        for label, make in makers.items():
            agent: Any = make()
            started = time.process_time()
            agent.search(state)
            costs[label] = min(costs[label], max(time.process_time() - started, 1e-9) / n)
    return costs
