"""The Connect Four value head on the positions of its own games, offline.

The learning chapter finds the self-play value head worse than a constant on late positions of
*random* play.  Is the head bad, or asked about positions it never met?  Here the positions come
from the network's own self-play games, played as in training (the shipped network, the
recipe's PUCT iterations, root noise and moves drawn from the visits for the first plies): one
position from each game, at a ply drawn uniformly in :data:`PLIES`, labelled by the exact
search with the value of every move (:func:`mcts_lab.learning_c4.make_labelled`'s format).

Solving a hundred-odd positions takes minutes, so ``python -m mcts_lab.c4_own_games`` computes
them once (seeded) and writes ``data/connect4_own_games.json``; the chapter loads that file,
measures the shipped value head on it, and replays a sample of the games and re-solves a sample
of the positions at build time (:func:`recheck`).
"""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

from mcts_course.agents.exact import forget, move_values
from mcts_course.games import ConnectFour
from mcts_course.learn import load
from mcts_course.learn.network import NetGuide, Predictor
from mcts_course.learn.selfplay import SelfPlayPUCT, visit_distribution
from mcts_course.learn.train import CONFIGS
from mcts_lab.learning_c4 import Labelled, load_labelled, save_labelled

PLIES = (24, 32)  # the plies of the random-play test set, so only the games differ
GAMES = 400
SEED = 7000
FILE = "connect4_own_games.json"


def predictor() -> Predictor:
    """The shipped Connect Four network, as a predictor."""
    net = load("connect4")
    return net if isinstance(net, Predictor) else Predictor(net.to_json())


def own_game(guide: NetGuide, seed: int) -> list[int] | None:
    """The moves of one self-play game up to a ply drawn in :data:`PLIES` (None if the game
    ended before it), played as the recipe's self-play plays (the package's self-play agent)."""
    config = CONFIGS["connect4"]
    rng = random.Random(seed)
    stop = rng.randint(*PLIES)
    agent = SelfPlayPUCT(
        guide,
        config.iterations,
        c=config.c,
        alpha=config.alpha,
        fraction=config.fraction,
        seed=rng.randrange(2**31),
    )
    state, moves = ConnectFour(), []
    while len(moves) < stop:
        if state.is_terminal():
            return None
        root = agent.search(state)
        if len(moves) < config.sample_moves:
            policy = visit_distribution(root, state.NUM_ACTIONS)
            action = rng.choices(range(len(policy)), weights=policy)[0]
        else:
            action = max(sorted(root.children), key=lambda a: root.children[a].visits)
        moves.append(action)
        state = state.play(action)
    return None if state.is_terminal() else moves


def label(moves: list[int]) -> Labelled:
    forget()  # positions of different games share little: keep the table small
    return Labelled(tuple(moves), move_values(ConnectFour.from_moves(moves)))


def own_positions() -> list[Labelled]:
    """The shipped positions (``data/connect4_own_games.json``)."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    return load_labelled(json.dumps(data["positions"]))


def recheck(games: int = 2, positions: int = 2) -> bool:
    """Replay the first ``games`` seeds that gave a position and re-solve ``positions`` of the
    shipped positions: True if all agree with the file."""
    data = json.loads((resources.files("mcts_lab") / "data" / FILE).read_text())
    shipped = own_positions()
    guide = NetGuide(predictor())
    replayed = [own_game(guide, seed) for seed in data["seeds"][:games]]
    same_games = all(
        m is not None and tuple(m) == p.moves
        for m, p in zip(replayed, shipped[:games], strict=True)
    )
    same_labels = all(label(list(p.moves)).values == p.values for p in shipped[-positions:])
    return same_games and same_labels


def main() -> None:  # pragma: no cover - minutes of self-play and exact search
    guide = NetGuide(predictor())
    positions, seeds = [], []
    seen: set[tuple[int, ...]] = set()
    for k in range(GAMES):
        moves = own_game(guide, SEED + k)
        if moves is None or tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        positions.append(label(moves))
        seeds.append(SEED + k)
        print(k, len(positions), flush=True)
    out = Path(__file__).parent / "data" / FILE
    rows = json.loads(save_labelled(positions))
    out.write_text(json.dumps({"seeds": seeds, "positions": rows}, indent=0) + "\n")


if __name__ == "__main__":
    main()
