"""Tic-tac-toe's training run repeated over several seeds, and strength over generations, offline.

Chapter 15 trains the tic-tac-toe network once, while the page is built.  What one run shows,
for instance that the policy reaches a level before the value does, may belong to that seed.
``python -m mcts_lab.learning_seeds`` (seeded, a few minutes a seed) repeats the book's recipe
(``CONFIGS["tictactoe"]``) with each seed of :data:`SEEDS`, the chapter's own seed first, and
writes ``data/learning_seeds.json``:

* each generation's two measures against the truth (:meth:`mcts_lab.learning.Truth.measure`);
* for the untrained network (generation 0) and the networks of :data:`KEEP`, the score of PUCT
  with that network (:data:`ITERATIONS` iterations a move, no noise, ``c = 1``) in
  :data:`GAMES` games against one fixed opponent, the perfect player (it draws among its optimal
  moves at random), colours alternating.

The design of the strength panel was fixed before the run: the perfect player, the strongest
opponent there is, so that a generation can only lose or draw and its score, at most 1/2, falls
with every game it loses; the first networks are included so that the panel starts where the
learning starts.  Against the perfect player no game can be won, so the chapter plots the share
of games lost (:func:`lost`), the score's complement.  The chapter loads the file (:func:`load`)
and, at build time, retrains the chapter's seed (which it does anyway), checks that its curves
are the file's (:func:`same_curves`), and replays that seed's matches of generations 0 and 1.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_course.agents.exact import PerfectAgent
from mcts_course.arena import match
from mcts_course.games import TicTacToe
from mcts_course.learn.network import PolicyValueNet, Predictor
from mcts_course.learn.train import CONFIGS
from mcts_course.stats import wilson_interval

SEEDS = (CONFIGS["tictactoe"].seed, 1, 2, 3)  # the chapter's seed first; the others fixed here
KEEP = (1, 2, 3, 5, 8, 12, 20, 30, 40)  # generations whose networks play (0: untrained)
ITERATIONS = 25  # PUCT's iterations a move in the strength matches: the chapter's budget
GAMES = 200  # games per generation, colours alternating
MATCH_SEED = 41
FILE = "learning_seeds.json"


def untrained(seed: int) -> str:
    """The weights the training run with ``seed`` starts from (generation 0)."""
    recipe = CONFIGS["tictactoe"]
    return PolicyValueNet.for_game(TicTacToe, recipe.hidden, seed=seed).to_json()


def strength(weights: str, iterations: int = ITERATIONS, games: int = GAMES) -> dict[str, int]:
    """PUCT with the network (``weights``) against the perfect player: wins, draws, losses."""
    from mcts_lab.learning import net_agent

    net = net_agent(Predictor(weights), iterations)
    result = match(
        TicTacToe,
        net,
        PerfectAgent(seed=MATCH_SEED),
        games=games,
        seed=MATCH_SEED,
        n_jobs=1,
        keep_moves=False,
    )
    return {"wins": result.wins, "draws": result.draws, "losses": result.losses}


def one_seed(seed: int) -> dict[str, Any]:
    """The recipe trained with ``seed``: its curves and its generations' strength."""
    from mcts_lab.learning import Truth, train_tictactoe

    config = dataclasses.replace(CONFIGS["tictactoe"], seed=seed)
    run = train_tictactoe(config, Truth(TicTacToe), keep=KEEP, n_jobs=1)
    snapshots = {0: untrained(seed), **run.snapshots}
    return {
        "seed": seed,
        "steps": run.steps,
        "value": run.curve("value"),
        "policy": run.curve("policy"),
        "strength": {str(g): strength(w) for g, w in sorted(snapshots.items())},
    }


def main() -> None:  # pragma: no cover - minutes of training and games per seed
    out = Path(__file__).parent / "data" / FILE
    data: dict[str, Any] = {
        "recipe": "tictactoe",
        "iterations": ITERATIONS,
        "games": GAMES,
        "match_seed": MATCH_SEED,
        "runs": [],
    }
    for seed in SEEDS:
        start = time.process_time()
        data["runs"].append(one_seed(seed))
        print(seed, f"{time.process_time() - start:.0f} s", flush=True, file=sys.stderr)
        out.write_text(json.dumps(data, indent=1) + "\n")


# -- what the chapter computes from the file ---------------------------------------------------
def load() -> dict[str, Any]:
    """The shipped results (``data/learning_seeds.json``)."""
    return dict(json.loads((resources.files("mcts_lab") / "data" / FILE).read_text()))


def first_reaching(run: dict[str, Any], measure: str, level: float) -> int | None:
    """The gradient steps by which ``measure`` first reached ``level`` in ``run`` (None: never)."""
    for steps, value in zip(run["steps"], run[measure], strict=True):
        if value >= level:
            return int(steps)
    return None


def same_curves(run: dict[str, Any], steps: list[int], curves: dict[str, list[float]]) -> bool:
    """Do a run's steps and curves (retrained at build time) equal the file's ``run``?"""
    return run["steps"] == steps and all(
        max(abs(a - b) for a, b in zip(run[m], curves[m], strict=True)) < 1e-9
        for m in ("value", "policy")
    )


def lost(counts: dict[str, int]) -> tuple[float, tuple[float, float]]:
    """The share of a match's games lost, with its 95% Wilson interval.  Against the perfect
    player no game is won, so each game is a loss or not, and the score is 1/2 minus half of
    this share: the loss share carries the same information, with the interval of a proportion
    (a Wilson interval of the score would treat a draw as half a win, a wider and wrong model
    here)."""
    games = counts["wins"] + counts["draws"] + counts["losses"]
    share = counts["losses"] / games
    return share, wilson_interval(share, games)


def curves_figure(data: dict[str, Any], goal: float = 0.95) -> Any:
    """Every seed's two curves against the gradient steps, the chapter's seed drawn bold; each
    seed has its own line style, so that its policy curve can be matched with its value curve."""
    import matplotlib.pyplot as plt

    styles = ["-", (0, (6, 2)), (0, (1, 1.5)), (0, (4, 1.5, 1, 1.5))]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for k, run in enumerate(data["runs"]):
        width, alpha = (2.0, 1.0) if k == 0 else (1.2, 0.7)
        style = styles[k % len(styles)]
        for measure, colour in (("policy", "C0"), ("value", "C1")):
            ax.plot(
                run["steps"],
                run[measure],
                color=colour,
                linestyle=style,
                linewidth=width,
                alpha=alpha,
                label=f"{measure}, seed {run['seed']}",
            )
    ax.axhline(goal, color="grey", linewidth=1, label=f"goal, {goal:.0%}")
    ax.set_xlabel("gradient steps")
    ax.set_ylabel("share right")
    ax.set_ylim(0.6, 1.0)
    ax.legend(loc="lower right", fontsize="x-small", ncol=2)
    ax.set_title("Policy (top move optimal) and value (W/D/L right), every seed")
    fig.tight_layout()
    plt.close(fig)
    return fig


def strength_figure(data: dict[str, Any], ax: Any) -> None:
    """Each seed's share of games lost to the perfect player by generation, with 95% Wilson
    intervals (generation 0: the untrained network)."""
    for k, run in enumerate(data["runs"]):
        generations = sorted(int(g) for g in run["strength"])
        shares = [lost(run["strength"][str(g)]) for g in generations]
        shift = 0.06 * (k - (len(data["runs"]) - 1) / 2)  # side by side, not on top
        ax.errorbar(
            [(g + 1) * (1 + shift) for g in generations],
            [s for s, _ in shares],
            yerr=[[s - i[0] for s, i in shares], [i[1] - s for s, i in shares]],
            marker="o",
            markersize=3,
            capsize=2,
            linewidth=1,
            label=f"seed {run['seed']}",
        )
    ticks = sorted({int(g) for run in data["runs"] for g in run["strength"]})
    ax.set_xscale("log")
    ax.set_xticks([g + 1 for g in ticks], [str(g) for g in ticks])
    ax.minorticks_off()
    ax.set_xlabel("generation (0: untrained; log scale)")
    ax.set_ylabel("share of games lost")
    ax.set_ylim(-0.02, 1)
    ax.legend(fontsize="small")
    ax.set_title(f"PUCT ({data['iterations']} iterations) against the perfect player")


if __name__ == "__main__":  # pragma: no cover
    main()
