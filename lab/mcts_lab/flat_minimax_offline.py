"""Flat Monte Carlo against minimax at depth 2 on Othello, at two budgets: computed once, shipped.

The Monte Carlo chapter's matches section asks what flat Monte Carlo does against an opponent
that searches.  The agents are the chapter's: flat Monte Carlo with uniform (round-robin)
allocation of its playouts per decision in total, playouts run to the end of the game, against
the minimax of depth 2 with cell scores.  The budgets (20 and 200 playouts per decision) and the
games (100 a budget, colours alternated) were fixed before the run.  A game of 200 playouts per
decision costs about a second, too much to replay at every build: ``python -m
mcts_lab.flat_minimax_offline`` plays them once, seeded, and writes
``data/flat_minimax.json``; the chapter loads it and replays the first games of each budget
(:func:`recheck`) to show that the file is what these agents and this seed give.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from mcts_course.agents import MinimaxAgent, MonteCarloAgent
from mcts_course.arena import MatchResult, match, match_game
from mcts_course.games import Othello
from mcts_lab.present import span

BUDGETS = (20, 200)  # playouts per decision, in total
GAMES = 100  # per budget
SEED = 71  # budget k is played with seed SEED + k
FILE = "flat_minimax.json"


def agents(budget: int) -> tuple[MonteCarloAgent, MinimaxAgent]:
    """The two players of one budget's match (flat Monte Carlo is agent A)."""
    return MonteCarloAgent(playouts=budget), MinimaxAgent(depth=2)


def play(games: int = GAMES, n_jobs: int | None = 1) -> dict[int, MatchResult]:
    """Both matches, ``games`` games each."""
    return {
        budget: match(
            Othello, *agents(budget), games=games, seed=SEED + k, n_jobs=n_jobs, progress=False
        )
        for k, budget in enumerate(BUDGETS)
    }


def load() -> dict[int, MatchResult]:
    """The shipped matches, by budget."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    if (tuple(data["budgets"]), data["seed"]) != (BUDGETS, SEED):
        raise ValueError("the shipped matches were played with other settings")
    return {int(b): MatchResult.from_json(row) for b, row in data["matches"].items()}


def recheck(stored: dict[int, MatchResult], games: int = 2) -> bool:
    """Replay the first ``games`` games of each budget alone: the same colours and returns?"""
    for k, budget in enumerate(BUDGETS):
        result = stored[budget]
        for i in range(games):
            a_player, returns, _ = match_game(Othello(), *agents(budget), SEED + k, i)
            if a_player != result.a_player[i] or tuple(returns) != tuple(result.returns[i]):
                return False
    return True


def table(results: dict[int, MatchResult], confidence: float = 0.95) -> object:
    """A Markdown table: each budget's games, wins-draws-losses, score and Wilson interval at
    ``confidence`` (the chapter's Bonferroni level).  The draw count matters: a score counts
    draws half."""
    from IPython.display import Markdown

    from mcts_course.stats import wilson_interval

    lines = [
        "| flat Monte Carlo (playouts per decision) | games | won-drawn-lost | score | "
        f"{confidence:.1%} interval |",
        "|--:|--:|--:|--:|--:|",
    ]
    for budget, r in results.items():
        lo, hi = wilson_interval(r.score, r.games, confidence)
        lines.append(
            f"| {budget} | {r.games} | {r.wins}-{r.draws}-{r.losses} | {r.score:.1%} | "
            f"{span(lo, hi)} |"
        )
    return Markdown("\n".join(lines))


def main() -> None:  # pragma: no cover - 200 games, minutes
    results = play()
    data = {
        "budgets": list(BUDGETS),
        "games": GAMES,
        "seed": SEED,
        "matches": {str(b): r.to_json() for b, r in results.items()},
    }
    (Path(__file__).parent / "data" / FILE).write_text(json.dumps(data) + "\n")
    for budget, r in results.items():
        print(budget, r.score, r.interval, flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
