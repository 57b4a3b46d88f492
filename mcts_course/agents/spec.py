"""Agents from short text specs, for the command line and the arena.

A spec is a name, optionally followed by ``:`` and comma-separated ``key=value`` parameters.
The keys are the constructor's keywords (``mcts:iterations=200,time_limit=0.5,
expand_threshold=10,playout_depth=20,tree_reuse=1``); short aliases stay valid: ``time``
(time_limit), ``threshold`` (expand_threshold), ``cutoff`` (playout_depth), ``reuse``
(tree_reuse), ``eval`` (evaluate)::

    random   cellscore   minimax:depth=2   alphabeta:depth=4   alphabeta:time=0.1
    montecarlo:playouts=200,policy=ucb1   mcts:iterations=200,c=1.4,threshold=10   mcts:time=0.1
    mcts:iterations=200,rave=300   mcts:transpositions=1   alphabeta:depth=6,tt=1
    mcts:time=0.1,workers=2   mcts:iterations=1000,workers=2,parallel=tree
    endgame   mcts:time=0.1,endgame=10

``workers=N`` (mcts only) searches with N workers, ``parallel=root`` (N independent trees in
processes, the default) or ``parallel=tree`` (N threads in one tree): see
:mod:`mcts_course.agents.parallel`.  ``endgame=N`` (MCTS, MCTS-Solver, PUCT; Othello only) hands
over to exact play, the agent ``endgame``, once N or fewer squares are empty; 0, the default,
never does.  Every agent takes ``seed=N``.  A time alone searches for
that time (no hidden budget).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from mcts_course.agents.base import Agent, RandomAgent
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.endgame import EndgameAgent, EndgameHandover
from mcts_course.agents.evaluation import EVALUATIONS
from mcts_course.agents.mcts import TREE_POLICIES, MCTSAgent
from mcts_course.agents.minimax import AlphaBetaAgent, MinimaxAgent
from mcts_course.agents.montecarlo import POLICIES, MonteCarloAgent
from mcts_course.agents.parallel import SCHEMES, parallel_agent
from mcts_course.agents.puct import PRIORS, PUCTAgent
from mcts_course.agents.solver import MCTSSolverAgent

AGENT_SPECS: dict[str, str] = {
    "random": "uniformly random legal moves",
    "cellscore": "the move on the cell with the best positional weight",
    "minimax": "minimax search; depth=2, evaluate=cellscore|discs|mobility",
    "alphabeta": (
        "alpha-beta search; depth=4 and/or time_limit=SECONDS (iterative deepening), evaluate=, "
        "tt=0|1 (a transposition table)"
    ),
    "montecarlo": (
        "flat Monte Carlo; playouts=200 (per decision, in total) or playouts_per_move=, "
        "policy=uniform|ucb1|egreedy|softmax, c=, epsilon=, temperature=, playout_depth=, "
        "time_limit="
    ),
    "mcts": (
        "UCT tree search; iterations=200 and/or time_limit=SECONDS, c=1.41, expand_threshold=1, "
        "playout_depth=, tree_reuse=0|1, policy=ucb1|egreedy|softmax, epsilon=, temperature=, "
        "rave=K (RAVE, K the equivalence parameter, 0 = off), amaf_unvisited=0|1 (RAVE as MoGo: "
        "all children at once, unvisited ones ranked by AMAF), transpositions=0|1, "
        "endgame=N (Othello: exact play from N empty squares on; 0 = off), "
        "workers=1 (N searches in parallel; iterations= is their total), parallel=root|tree"
    ),
    "mcts-solver": "MCTS-Solver (proven wins, losses, draws); the keywords of mcts",
    "puct": (
        "MCTS with the PUCT rule; the keywords of mcts, c=1.0, prior=cells|uniform|net, fpu=0.5 "
        "(net: the shipped network as prior and leaf value, no playout)"
    ),
    "endgame": "perfect Othello endgame play (exact final disc margin); max_empties=20",
}


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a yes/no value (use 1 or 0)")


def _one_of(choices: tuple[str, ...], what: str) -> Callable[[str], str]:
    """A parser that accepts one of ``choices`` and names them all when the value is not."""

    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"unknown {what} {text!r}; choose one of: {', '.join(choices)}")
        return text

    return parse


_prior = _one_of(PRIORS, "prior")
_policy = _one_of(POLICIES, "policy")
_tree_policy = _one_of(TREE_POLICIES, "policy")
_evaluation_name = _one_of(tuple(EVALUATIONS), "evaluation")


def _evaluation(text: str) -> Any:
    return EVALUATIONS[_evaluation_name(text)]


# For each agent: constructor keyword -> parser of the value (the spec key is the keyword).
_PARAMS: dict[str, dict[str, Callable[[str], Any]]] = {
    "random": {},
    "cellscore": {},
    "minimax": {"depth": int, "evaluate": _evaluation},
    "alphabeta": {"depth": int, "time_limit": float, "evaluate": _evaluation, "tt": _bool},
    "montecarlo": {
        "playouts": int,
        "playouts_per_move": int,
        "policy": _policy,
        "c": float,
        "epsilon": float,
        "temperature": float,
        "playout_depth": int,
        "time_limit": float,
    },
    "mcts": {
        "iterations": int,
        "time_limit": float,
        "c": float,
        "expand_threshold": int,
        "playout_depth": int,
        "tree_reuse": _bool,
    },
}
_PARAMS["mcts-solver"] = dict(_PARAMS["mcts"])
_PARAMS["puct"] = {**_PARAMS["mcts"], "prior": _prior, "fpu": float}
# Only plain MCTS swaps its bandit rule: the solver and PUCT have selections of their own.
_PARAMS["mcts"].update(policy=_tree_policy, epsilon=float, temperature=float)
# Variants of plain MCTS chosen by a key of its own (see _mcts_variant).
_PARAMS["mcts"].update(rave=float, amaf_unvisited=_bool, transpositions=_bool)
_PARAMS["endgame"] = {"max_empties": int}
# The hand-over to exact Othello endgames wraps any of the MCTS agents (see make_agent).
for _name in ("mcts", "mcts-solver", "puct"):
    _PARAMS[_name]["endgame"] = int
# Parallel search wraps the agent the other keys describe (make_agent takes these two out).
_PARAMS["mcts"].update(workers=int, parallel=_one_of(SCHEMES, "parallel scheme"))
# Short spec keys kept for the command line: alias -> constructor keyword.
ALIASES = {
    "time": "time_limit",
    "threshold": "expand_threshold",
    "cutoff": "playout_depth",
    "reuse": "tree_reuse",
    "eval": "evaluate",
}
_CLASSES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "cellscore": CellScoreAgent,
    "minimax": MinimaxAgent,
    "alphabeta": AlphaBetaAgent,
    "montecarlo": MonteCarloAgent,
    "mcts": MCTSAgent,
    "mcts-solver": MCTSSolverAgent,
    "puct": PUCTAgent,
    "endgame": EndgameAgent,
}


def _mcts_variant(kwargs: dict[str, Any]) -> Callable[..., Agent]:
    """The class that ``mcts`` with these keywords names: RAVE when ``rave`` is not 0, the graph
    search when ``transpositions=1``, else plain UCT (``kwargs`` loses the keys it decides)."""
    from mcts_course.agents.rave import RAVEAgent
    from mcts_course.agents.transpositions import TranspositionMCTSAgent

    rave = kwargs.pop("rave", 0.0)
    amaf_unvisited = kwargs.pop("amaf_unvisited", False)
    transpositions = kwargs.pop("transpositions", False)
    if rave and transpositions:
        raise ValueError("rave= and transpositions=1 cannot be combined (RAVE runs on the tree)")
    if amaf_unvisited and not rave:
        raise ValueError("amaf_unvisited=1 is a mode of RAVE: give rave=K too")
    if rave:
        return partial(RAVEAgent, rave=rave, amaf_unvisited=amaf_unvisited)
    return TranspositionMCTSAgent if transpositions else MCTSAgent


def with_params(spec: str, **params: Any) -> str:
    """``spec`` with more ``key=value`` parameters: ``with_params("mcts", iterations=200)`` is
    ``"mcts:iterations=200"``.  None values are left out (a budget given one way or the other),
    True and False become 1 and 0.  This and :func:`make_agent` are the one home of the spec
    syntax: the command line, the web page, the laboratory and the book all go through them."""
    extra = ",".join(
        f"{key}={int(value) if isinstance(value, bool) else value}"
        for key, value in params.items()
        if value is not None
    )
    if not extra:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{extra}"


OTHELLO_ONLY = "the endgame solver plays Othello only"


def make_agent(spec: str, *, game: str | None = None, **params: Any) -> Agent:
    """The agent described by ``spec`` (see the module docstring and :data:`AGENT_SPECS`), with
    ``params`` added as more keys (see :func:`with_params`):
    ``make_agent("mcts", iterations=200, seed=1)`` is ``make_agent("mcts:iterations=200,seed=1")``.

    Raises ValueError, with a one-line message naming the valid choices, on a bad spec, and
    on a spec that does not fit ``game`` (a game's name, when given: the command line's).
    """
    spec = with_params(spec, **params)
    name, _, params_text = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _CLASSES:
        raise ValueError(
            f"unknown agent {name!r} in {spec!r}; choose one of: {', '.join(_CLASSES)}"
        )
    allowed: dict[str, Callable[[str], Any]] = {**_PARAMS[name], "seed": int}
    valid = ", ".join(allowed)
    kwargs: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in params_text.split(","))):
        key, eq, text = (part.strip() for part in item.partition("="))
        if not eq or not text:
            raise ValueError(f"bad parameter {item!r} in {spec!r}; write key=value ({valid})")
        keyword = ALIASES.get(key, key)
        if keyword not in allowed:
            raise ValueError(f"unknown parameter {key!r} for {name}; valid: {valid}")
        if keyword in kwargs:
            raise ValueError(f"{keyword} given twice in {spec!r}")
        parse = allowed[keyword]
        try:
            kwargs[keyword] = parse(text)
        except ValueError as error:
            message = str(error) if parse not in (int, float) else f"not a number: {text!r}"
            raise ValueError(f"bad value for {key} in {spec!r}: {message}") from None
    endgame = kwargs.pop("endgame", 0) if name != "endgame" else 0
    if game is not None and game != "othello" and (name == "endgame" or endgame):
        # said now, in one line, rather than as a traceback at the agent's first move
        raise ValueError(f"{spec!r} does not fit {game}: {OTHELLO_ONLY}")
    workers, scheme = kwargs.pop("workers", 1), kwargs.pop("parallel", "root")
    try:
        if endgame < 0:
            raise ValueError(f"endgame must be >= 0 empty squares (0: off), not {endgame}")
        cls = _mcts_variant(kwargs) if name == "mcts" else _CLASSES[name]
        base = cls(**kwargs)  # an MCTSAgent whenever workers > 1: only mcts takes workers=
        agent = parallel_agent(base, workers, scheme, kwargs.get("seed"))  # type: ignore[arg-type]  # workers=1 returns any agent as is
        if endgame:
            agent = EndgameHandover(agent, endgame, seed=kwargs.get("seed"))
        return agent
    except ValueError as error:
        raise ValueError(f"bad spec {spec!r}: {error}") from None
