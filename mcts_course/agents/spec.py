"""Agents from short text specs, for the command line and the arena.

A spec is a name, optionally followed by ``:`` and comma-separated ``key=value`` parameters::

    random   cellscore   minimax:depth=2   alphabeta:depth=4   alphabeta:time=0.1
    montecarlo:playouts=20,policy=ucb1   mcts:iterations=200,c=1.4,threshold=10   mcts:time=0.1

Every agent takes ``seed=N``; the Monte Carlo agents take ``cutoff=N`` (playout depth).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcts_course.agents.base import Agent, RandomAgent
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.evaluation import EVALUATIONS
from mcts_course.agents.mcts import MCTSAgent
from mcts_course.agents.minimax import AlphaBetaAgent, MinimaxAgent
from mcts_course.agents.montecarlo import POLICIES, MonteCarloAgent
from mcts_course.agents.puct import PRIORS, PUCTAgent
from mcts_course.agents.solver import MCTSSolverAgent

AGENT_SPECS: dict[str, str] = {
    "random": "uniformly random legal moves",
    "cellscore": "the move on the cell with the best positional weight",
    "minimax": "minimax search; depth=2, eval=cellscore|discs|mobility",
    "alphabeta": "alpha-beta search; depth=4 or time=SECONDS (iterative deepening), eval=",
    "montecarlo": (
        "flat Monte Carlo; playouts=20 (per move), policy=uniform|ucb1|egreedy|softmax, "
        "c=, epsilon=, temperature=, cutoff=, time="
    ),
    "mcts": (
        "UCT tree search; iterations=200 and/or time=SECONDS, c=1.41, threshold=1, cutoff=, "
        "reuse=0|1"
    ),
    "mcts-solver": "MCTS-Solver (proven wins/losses/draws); the parameters of mcts",
    "puct": "MCTS with the PUCT rule and a prior; those of mcts, c=1.0, prior=cells|uniform",
}


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a yes/no value (use 1 or 0)")


def _evaluation(text: str) -> Any:
    if text not in EVALUATIONS:
        raise ValueError(f"unknown evaluation {text!r}; choose one of: {', '.join(EVALUATIONS)}")
    return EVALUATIONS[text]


def _prior(text: str) -> str:
    if text not in PRIORS:
        raise ValueError(f"unknown prior {text!r}; choose one of: {', '.join(PRIORS)}")
    return text


def _policy(text: str) -> str:
    if text not in POLICIES:
        raise ValueError(f"unknown policy {text!r}; choose one of: {', '.join(POLICIES)}")
    return text


# For each agent: spec key -> (constructor keyword, parser of the value).
_PARAMS: dict[str, dict[str, tuple[str, Callable[[str], Any]]]] = {
    "random": {},
    "cellscore": {},
    "minimax": {"depth": ("depth", int), "eval": ("evaluate", _evaluation)},
    "alphabeta": {
        "depth": ("depth", int),
        "time": ("time_limit", float),
        "eval": ("evaluate", _evaluation),
    },
    "montecarlo": {
        "playouts": ("playouts", int),
        "policy": ("policy", _policy),
        "c": ("c", float),
        "epsilon": ("epsilon", float),
        "temperature": ("temperature", float),
        "cutoff": ("playout_depth", int),
        "time": ("time_limit", float),
    },
    "mcts": {
        "iterations": ("iterations", int),
        "time": ("time_limit", float),
        "c": ("c", float),
        "threshold": ("expand_threshold", int),
        "cutoff": ("playout_depth", int),
        "reuse": ("tree_reuse", _bool),
    },
}
_PARAMS["mcts-solver"] = dict(_PARAMS["mcts"])
_PARAMS["puct"] = {**_PARAMS["mcts"], "prior": ("prior", _prior), "fpu": ("fpu", float)}
_CLASSES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "cellscore": CellScoreAgent,
    "minimax": MinimaxAgent,
    "alphabeta": AlphaBetaAgent,
    "montecarlo": MonteCarloAgent,
    "mcts": MCTSAgent,
    "mcts-solver": MCTSSolverAgent,
    "puct": PUCTAgent,
}


def make_agent(spec: str) -> Agent:
    """The agent described by ``spec`` (see the module docstring and :data:`AGENT_SPECS`).

    Raises ValueError, with a one-line message naming the valid choices, on a bad spec.
    """
    name, _, params = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _CLASSES:
        raise ValueError(
            f"unknown agent {name!r} in {spec!r}; choose one of: {', '.join(_CLASSES)}"
        )
    allowed = _PARAMS[name]
    valid = ", ".join([*allowed, "seed"])
    kwargs: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, text = (part.strip() for part in item.partition("="))
        if not eq or not text:
            raise ValueError(f"bad parameter {item!r} in {spec!r}; write key=value ({valid})")
        if key != "seed" and key not in allowed:
            raise ValueError(f"unknown parameter {key!r} for {name}; valid: {valid}")
        keyword, parse = ("seed", int) if key == "seed" else allowed[key]
        try:
            kwargs[keyword] = parse(text)
        except ValueError as error:
            message = str(error) if parse not in (int, float) else f"not a number: {text!r}"
            raise ValueError(f"bad value for {key} in {spec!r}: {message}") from None
    if name == "alphabeta" and "time_limit" in kwargs and "depth" not in kwargs:
        kwargs["depth"] = None  # time alone: deepen until the time is up
    tree_search = name in ("mcts", "mcts-solver", "puct")
    if tree_search and "time_limit" in kwargs and "iterations" not in kwargs:
        kwargs["iterations"] = None
    try:
        return _CLASSES[name](**kwargs)
    except ValueError as error:
        raise ValueError(f"bad spec {spec!r}: {error}") from None
