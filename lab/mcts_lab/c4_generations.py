"""Connect Four's network generation by generation, measured against exact values.

The shipped network is the last of a seeded training run (``mcts-course train connect4``);
the package keeps only that last one.  ``python -m mcts_lab.c4_generations`` runs the same
training again, one process, with the shipped recipe (:data:`mcts_course.learn.train.CONFIGS`)
and its seed, keeps the weights every :data:`EVERY` generations, checks that the last
generation is the shipped network, and scores each kept network on the held-out solved
positions of chapter 15 (:func:`mcts_lab.learning_c4.held_out`): per position, whether the
policy's top move is optimal (on the positions where the choice matters) and the value head's
squared error to the exact value.  Per-position scores are stored, so the chapter can draw
intervals over positions and pair generations on the same positions; the file is
``data/connect4_generations.json``.  Rescoring a network is a forward pass per position, so
the chapter re-checks the first and last generations at build time
(:func:`recheck`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_course.arena import MatchResult
from mcts_course.games import ConnectFour

EVERY = 5  # generations between two kept networks (and generation 0, the initial one)
DATA = "connect4_generations.json"
# The comparisons the chapter tests, fixed before the run: does the policy's top move keep
# improving after the first kept generation, and after the first half of the run?  Paired
# over the test positions, read together with Holm's correction.
COMPARISONS = ((5, 60), (30, 60))
SEARCH_ITERATIONS = 200  # PUCT's iterations on the solved positions and in the matches
MATCH_GAMES = 100  # games of each kept generation against UCT
MATCH_SEED = 1


@dataclass(frozen=True)
class Scores:
    """One network on the held-out positions: ``top`` 1/0 per test position (its policy's top
    move optimal), ``squared`` the value head's squared error per position."""

    generation: int
    top: list[int]
    squared: list[float]


def score(generation: int, predictor: Any, positions: list[Any]) -> Scores:
    """``predictor`` (``predict(state) -> (priors, value)``) on the labelled ``positions``."""
    top, squared = [], []
    for position in positions:
        priors, value = predictor.predict(position.state)
        squared.append(round((value - position.value) ** 2, 12))
        if position.is_test:
            best = max(sorted(priors), key=priors.__getitem__)
            top.append(int(best in position.best))
    return Scores(generation, top, squared)


def train_generations() -> dict[int, str]:  # pragma: no cover - ten minutes of training
    """Retrain the shipped network's recipe (one process) and return every :data:`EVERY`-th
    generation's network as the package writes it (generation 0: the initial one)."""
    from mcts_course.learn.train import CONFIGS, network_json, train

    config = CONFIGS["connect4"]
    kept: dict[int, str] = {0: initial_network_json()}
    count = 0

    def keep(net: Any) -> dict[str, float]:
        nonlocal count
        count += 1
        if count % EVERY == 0:
            kept[count] = network_json(net, ConnectFour, config)
        return {}

    train(ConnectFour, config, n_jobs=1, measure=keep, progress=True)
    return kept


def searched(predictor: Any, positions: list[Any]) -> list[int]:
    """Per test position, 1 if PUCT guided by ``predictor`` at :data:`SEARCH_ITERATIONS`
    iterations (seeded by the position's number among the test positions) keeps the exact
    value, as chapter 15's table of searches does."""
    from mcts_lab.learning_c4 import net_agent

    tests = [p for p in positions if p.is_test]
    return [
        int(net_agent(predictor, SEARCH_ITERATIONS, seed=k).select_action(p.state) in p.best)
        for k, p in enumerate(tests)
    ]


def against_uct(predictor: Any, games: int = MATCH_GAMES) -> Any:
    """PUCT guided by ``predictor`` against UCT, :data:`SEARCH_ITERATIONS` iterations a move
    each, colours alternating, seed :data:`MATCH_SEED`: a fixed opponent for every generation."""
    from mcts_course.arena import match
    from mcts_lab.learning_c4 import net_agent, uct_agent

    return match(
        ConnectFour,
        net_agent(predictor, SEARCH_ITERATIONS),
        uct_agent(SEARCH_ITERATIONS),
        games=games,
        seed=MATCH_SEED,
        n_jobs=1,
        keep_moves=False,
    )


def measure(kept: dict[int, str]) -> dict[str, Any]:  # pragma: no cover - minutes of games
    """Score every kept network (:func:`score`, :func:`searched`, :func:`against_uct`)."""
    from mcts_course.learn.network import Predictor
    from mcts_lab import learning_c4

    shipped = resources.files("mcts_course.learn") / "data" / "connect4.json"
    last = max(kept)
    same = json.loads(kept[last])["params"] == json.loads(shipped.read_text())["params"]
    held = learning_c4.held_out()
    rows = []
    for generation, text in sorted(kept.items()):
        predictor = Predictor(text)
        s = score(generation, predictor, held)
        result = against_uct(predictor)
        rows.append(
            {
                "generation": generation,
                "top": s.top,
                "squared": s.squared,
                "searched": searched(predictor, held),
                "match": result.to_json(),
            }
        )
        print(generation, sum(s.top), sum(rows[-1]["searched"]), result.score, flush=True)
    return {
        "every": EVERY,
        "search_iterations": SEARCH_ITERATIONS,
        "match_games": MATCH_GAMES,
        "match_seed": MATCH_SEED,
        "last_is_shipped": same,
        "scores": rows,
    }


def initial_network_json() -> str:
    from mcts_course.learn.network import PolicyValueNet
    from mcts_course.learn.train import CONFIGS, network_json

    config = CONFIGS["connect4"]
    net = PolicyValueNet.for_game(ConnectFour, config.hidden, seed=config.seed)
    return network_json(net, ConnectFour, config)


def load() -> dict[str, Any]:
    """The shipped file written by :func:`run`."""
    data: dict[str, Any] = json.loads((resources.files("mcts_lab") / "data" / DATA).read_text())
    return data


def scores_of(data: dict[str, Any]) -> list[Scores]:
    return [Scores(s["generation"], s["top"], s["squared"]) for s in data["scores"]]


def recheck(data: dict[str, Any], positions: list[Any], count: int = 40, games: int = 1) -> bool:
    """A sample of the file recomputed: the first generation (the seeded initial network) and
    the last (the shipped network) rescored on the first ``count`` held-out ``positions``,
    their searches on the first test positions among them, and their first ``games`` games
    against UCT.  True if all give the stored numbers."""
    from mcts_course.learn import load as load_net

    first, last = data["scores"][0], data["scores"][-1]
    sample = positions[:count]
    for row, predictor in (
        (first, Predictor_of(initial_network_json())),
        (last, load_net("connect4")),
    ):
        s = score(row["generation"], predictor, sample)
        if s.squared != row["squared"][:count] or s.top != row["top"][: len(s.top)]:
            return False
        if searched(predictor, sample) != row["searched"][: len(s.top)]:
            return False
        stored = MatchResult.from_json(row["match"])
        again = against_uct(predictor, games=games)
        if again.a_player != stored.a_player[:games] or [tuple(r) for r in again.returns] != [
            tuple(r) for r in stored.returns[:games]
        ]:
            return False
    return True


def Predictor_of(text: str) -> Any:  # noqa: N802 - reads as the class it builds
    from mcts_course.learn.network import Predictor

    return Predictor(text)


@dataclass(frozen=True)
class Point:
    """One generation's measures with 95% bootstrap intervals over the positions."""

    generation: int
    top: float
    top_interval: tuple[float, float]
    squared: float
    squared_interval: tuple[float, float]


def curve(data: dict[str, Any]) -> list[Point]:
    """Each kept generation's top-move share (test positions) and value squared error (all
    positions), each with its percentile bootstrap interval over the positions."""
    from mcts_course.stats import bootstrap_interval

    return [
        Point(
            s.generation,
            sum(s.top) / len(s.top),
            bootstrap_interval(s.top),
            sum(s.squared) / len(s.squared),
            bootstrap_interval(s.squared),
        )
        for s in scores_of(data)
    ]


def constant_squared(positions: list[Any]) -> float:
    """The squared error of the best constant in hindsight (the positions' mean exact value)."""
    mean = sum(p.value for p in positions) / len(positions)
    return float(sum((p.value - mean) ** 2 for p in positions) / len(positions))


def matches(data: dict[str, Any]) -> list[tuple[int, MatchResult]]:
    """Each kept generation's match against UCT."""
    return [(row["generation"], MatchResult.from_json(row["match"])) for row in data["scores"]]


def search_shares(data: dict[str, Any]) -> list[tuple[int, float, tuple[float, float]]]:
    """Each kept generation's share of test positions where its search kept the exact value,
    with the percentile bootstrap interval over the positions."""
    from mcts_course.stats import bootstrap_interval

    return [
        (
            row["generation"],
            sum(row["searched"]) / len(row["searched"]),
            bootstrap_interval(row["searched"]),
        )
        for row in data["scores"]
    ]


@dataclass(frozen=True)
class Comparison:
    """Generation ``later``'s top-move share minus generation ``earlier``'s, paired over the
    test positions: the difference, its 95% bootstrap interval and the sign-flip p-value."""

    earlier: int
    later: int
    difference: float
    interval: tuple[float, float]
    p: float


def compare(data: dict[str, Any], earlier: int, later: int, confidence: float = 0.95) -> Comparison:
    """Generation ``later``'s policy against ``earlier``'s on the test positions, paired: the
    difference of their shares of optimal top moves, its bootstrap interval at ``confidence``
    (Bonferroni's level when several comparisons are read together) and the sign-flip p."""
    from mcts_course.stats import paired_interval, sign_flip_p_value

    by_generation = {s.generation: s.top for s in scores_of(data)}
    a, b = by_generation[later], by_generation[earlier]
    return Comparison(
        earlier,
        later,
        (sum(a) - sum(b)) / len(a),
        paired_interval(a, b, confidence),
        sign_flip_p_value([x - y for x, y in zip(a, b, strict=True)]),
    )


def figure(
    data: dict[str, Any],
    chance: float,
    supervised: float | None,
    constant: float,
    uct_share: float,
    uct_interval: tuple[float, float] | None = None,
) -> Any:
    """Four measures of each kept generation, each with its 95% interval: the policy's top move
    on the solved test positions (beside a random move and, unless ``supervised`` is None, the
    supervised network), the value
    head's squared error (beside the best constant), PUCT's move at 200 iterations on the same
    positions (beside UCT's, with ``uct_interval`` as a grey band if given), and the score
    against UCT (beside an even match)."""
    import matplotlib.pyplot as plt

    points = curve(data)
    x = [p.generation for p in points]
    searches = search_shares(data)
    games = [r for _, r in matches(data)]
    panels = (
        (
            [p.top for p in points],
            [p.top_interval for p in points],
            "top move optimal",
            "Policy alone, solved positions",
            ((chance, "a random move"),)
            + (() if supervised is None else ((supervised, "supervised net"),)),
        ),
        (
            [p.squared for p in points],
            [p.squared_interval for p in points],
            "mean squared error",
            "Value head, solved positions",
            ((constant, "best constant"),),
        ),
        (
            [s for _, s, _ in searches],
            [i for _, _, i in searches],
            "move keeps the value",
            "PUCT search, solved positions",
            ((uct_share, "UCT"),),
        ),
        (
            [r.score for r in games],
            [r.interval for r in games],
            "score",
            "Games against UCT",
            ((0.5, "even"),),
        ),
    )
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.2), sharex=True)
    for axis, (mean, interval, label, title, lines) in zip(axes.flat, panels, strict=True):
        low = [m - i[0] for m, i in zip(mean, interval, strict=True)]
        high = [i[1] - m for m, i in zip(mean, interval, strict=True)]
        axis.errorbar(x, mean, yerr=[low, high], marker="o", capsize=3, label="self-play net")
        for (level, name), style in zip(lines, (":", "--"), strict=False):
            axis.axhline(
                level, color="grey" if style == ":" else "tab:green", linestyle=style, label=name
            )
        if uct_interval is not None and title.startswith("PUCT search"):
            axis.axhspan(*uct_interval, color="grey", alpha=0.2, label="UCT, 95% interval")
        axis.set_ylabel(label)
        axis.set_title(title)
        axis.legend(fontsize="small")
    for axis in axes[1]:
        axis.set_xlabel("generation (100 self-play games each)")
    fig.tight_layout()
    plt.close(fig)
    return fig


def main() -> None:  # pragma: no cover - a quarter of an hour of training and games
    """Train (or read the networks a previous run kept in the cache file given as the first
    argument, if it exists), measure, and write the data file."""
    import sys

    cache = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    if cache is not None and cache.is_file():
        kept = {int(k): v for k, v in json.loads(cache.read_text()).items()}
    else:
        kept = train_generations()
        if cache is not None:
            cache.write_text(json.dumps(kept))
    data = measure(kept)
    path = Path(__file__).parent / "data" / DATA
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {path}: last generation is the shipped network: {data['last_is_shipped']}")


if __name__ == "__main__":  # pragma: no cover
    main()
