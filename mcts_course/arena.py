"""Playing games between agents: one game (:func:`play_game`) or a seeded match (:func:`match`).

A match plays ``games`` games between two agents with alternating colours: agent A moves first
(is player 0) in the even-numbered games and second in the odd ones, so neither agent profits
from the first-move advantage.  Every game ``i`` gets its own seeds, derived from the pair
``(seed, i)``, and fresh deep copies of both agents, re-seeded with ``agent.seed(...)`` and
``reset()``.  A game's outcome therefore depends only on ``(seed, i)``, never on which worker
played it or in which order: the same seed gives the same result for any ``n_jobs``.

The score counts a draw as half a win, ``(wins + draws / 2) / games``, the usual convention in
chess and in game-playing papers.  Its 95% confidence interval is the Wilson score interval
applied to that score as if each game were a win-or-loss trial.  Draws make the real spread of
a game's result smaller than a win-or-loss trial's, so with draws the interval is a little wider
than it needs to be (conservative): it never claims more certainty than the games give.

Games run through :mod:`joblib`, so a match can use many cores (``n_jobs=-1``) and, unchanged,
many machines.  ``n_jobs=None`` (the default) means "whatever the surrounding
:func:`joblib.parallel_config` says", which is one job outside any such block.  With a Dask
cluster (``pip install "mcts-course[dask]"``)::

    import joblib
    from dask.distributed import Client

    client = Client("tcp://scheduler-address:8786")   # or Client() for a local cluster
    with joblib.parallel_config(backend="dask", n_jobs=-1):
        result = match(Othello, MCTSAgent(iterations=1000), AlphaBetaAgent(depth=4), games=1000)

(``tests/test_arena_dask.py`` runs this recipe on a local two-process cluster and checks that it
gives the one-process result.)

and with Ray (``pip install ray``)::

    from ray.util.joblib import register_ray

    register_ray()
    with joblib.parallel_config(backend="ray", n_jobs=-1):
        result = match(...)

The result is the same as on one core with the same seed (agents with a ``time_limit`` excepted:
how far a search gets in a given time depends on the machine).  Backends that hand back results
only all at once (Ray, multiprocessing) work too; the progress bar then jumps at the end.
"""

from __future__ import annotations

import copy
import html
import os
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

import numpy as np

from mcts_course.errors import needs
from mcts_course.games import GameState, game_class, start_state
from mcts_course.games.base import Returns
from mcts_course.stats import wilson_interval  # also importable from here, as before


class Player(Protocol):
    """What the arena needs from an agent (see :mod:`mcts_course.agents`)."""

    name: str

    def select_action(self, state: GameState) -> int: ...

    def seed(self, seed: int | None) -> None: ...

    def reset(self) -> None: ...


# -- one game ------------------------------------------------------------------------------------
@dataclass
class GameRecord:
    """A finished (or cut-off) game: the moves and every state from the start to the end."""

    moves: list[int]
    states: list[GameState]  # states[0] is the start, states[i + 1] = states[i].play(moves[i])
    returns: tuple[int, int]  # (r0, r1) of the last state
    players: tuple[str, str]  # names of player 0 and player 1
    times: list[float] = field(default_factory=list, compare=False, repr=False)  # s per move

    @property
    def start(self) -> GameState:
        return self.states[0]

    @property
    def final(self) -> GameState:
        return self.states[-1]

    def winner(self) -> int | None:
        """0 or 1 for the winning player, None for a draw (or an unfinished game)."""
        return self.final.winner()

    def replay(self) -> list[GameState]:
        """The states reached by replaying :attr:`moves` from the start; equals :attr:`states`."""
        states = [self.states[0]]
        for action in self.moves:
            states.append(states[-1].play(action))
        return states

    def move_names(self) -> list[str]:
        """The moves as text ("d3", "4", "b2"), each named in the state it was played in."""
        return [s.action_to_string(a) for s, a in zip(self.states, self.moves, strict=False)]

    def result_text(self) -> str:
        """ "Black wins", "Draw" or "unfinished"."""
        if not self.final.is_terminal():
            return "unfinished"
        winner = self.winner()
        if winner is None:
            return "Draw"
        return f"{self.final.PLAYER_NAMES[winner]} ({self.players[winner]}) wins"

    def __len__(self) -> int:
        return len(self.moves)

    def __str__(self) -> str:
        p0, p1 = self.final.PLAYER_NAMES
        return (
            f"{p0}: {self.players[0]}, {p1}: {self.players[1]}\n"
            f"moves: {' '.join(self.move_names())}\n"
            f"{self.final}\n{self.result_text()}"
        )


def play_game(
    state: type[GameState] | GameState,
    agent0: Player,
    agent1: Player,
    max_moves: int | None = None,
) -> GameRecord:
    """Let ``agent0`` (player 0) and ``agent1`` (player 1) play from ``state`` to the end.

    ``state`` is a start state or a game class (its start position).  ``max_moves`` cuts the
    game off early (the record is then unfinished).  An agent answering with an illegal action
    raises :class:`~mcts_course.games.IllegalActionError`.
    """
    state = start_state(state)
    agents = (agent0, agent1)
    states = [state]
    moves: list[int] = []
    times: list[float] = []
    while not state.is_terminal() and (max_moves is None or len(moves) < max_moves):
        started = time.perf_counter()
        action = agents[state.current_player].select_action(state)
        times.append(time.perf_counter() - started)
        state = state.play(action)
        moves.append(action)
        states.append(state)
    return GameRecord(moves, states, state.returns(), (agent0.name, agent1.name), times)


# -- a match -------------------------------------------------------------------------------------
@dataclass
class MatchResult:
    """The outcome of :func:`match`, seen from agent A (the first agent given).

    Stored: the game, the two names, for every game the player agent A was (``a_player``) and
    the returns ``(r0, r1)``, and the moves (so any game can be replayed: :meth:`record`).
    Everything else (wins, score, interval, split by colour) is computed from these.
    """

    game: str
    names: tuple[str, str]  # (agent A, agent B)
    a_player: list[int]  # per game: 0 if agent A moved first, else 1
    returns: list[tuple[int, int]]  # per game: (r0, r1) by player, not by agent
    seed: int | None = None
    player_names: tuple[str, str] = ("player 0", "player 1")  # the game's colours
    moves: list[list[int]] = field(default_factory=list, repr=False)
    start: GameState | None = field(default=None, repr=False)
    seconds: float = field(default=0.0, compare=False)

    # -- counts from agent A's view --
    @property
    def a_returns(self) -> list[int]:
        """Agent A's return in each game: +1 win, 0 draw, -1 loss."""
        return [r[p] for r, p in zip(self.returns, self.a_player, strict=True)]

    @property
    def games(self) -> int:
        return len(self.returns)

    @property
    def wins(self) -> int:
        return sum(r > 0 for r in self.a_returns)

    @property
    def draws(self) -> int:
        return sum(r == 0 for r in self.a_returns)

    @property
    def losses(self) -> int:
        return sum(r < 0 for r in self.a_returns)

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games: 1 if A won everything, 0.5 for an even match."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of :attr:`score` (draws counted as half; see the module notes)."""
        return wilson_interval(self.score, self.games)

    @property
    def by_colour(self) -> dict[int, dict[str, Any]]:
        """Agent A's results when it was player 0 and when it was player 1."""
        split = {}
        for player in (0, 1):
            mine = [r for r, p in zip(self.a_returns, self.a_player, strict=True) if p == player]
            wins, draws = sum(r > 0 for r in mine), sum(r == 0 for r in mine)
            split[player] = {
                "colour": self.player_names[player],
                "games": len(mine),
                "wins": wins,
                "draws": draws,
                "losses": len(mine) - wins - draws,
                "score": (wins + draws / 2) / len(mine) if mine else None,
            }
        return split

    def record(self, i: int) -> GameRecord:
        """Game ``i`` replayed from its moves, as a :class:`GameRecord`."""
        if self.start is None:
            raise ValueError("this result kept no start state")
        states = [self.start]
        for action in self.moves[i]:
            states.append(states[-1].play(action))
        a, b = self.names
        players = (a, b) if self.a_player[i] == 0 else (b, a)
        return GameRecord(list(self.moves[i]), states, states[-1].returns(), players)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able summary (plain ints, floats, strings and lists)."""
        lo, hi = self.interval
        return {
            "game": self.game,
            "names": list(self.names),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "interval": [lo, hi],
            "by_colour": {str(p): split for p, split in self.by_colour.items()},
            "seed": self.seed,
            "a_player": list(self.a_player),
            "returns": [list(r) for r in self.returns],
        }

    # -- storing a match --
    def to_json(self) -> dict[str, Any]:
        """What the result stores, as plain JSON values; :meth:`from_json` reads it back.

        The game by its name, the two agents' names, the seed, per game agent A's player and
        the returns, and the moves when the match kept them.  (:meth:`as_dict` is a summary
        for reading; this is the record for a file.)
        """
        data: dict[str, Any] = {
            "game": self.game,
            "names": list(self.names),
            "seed": self.seed,
            "a_player": [int(p) for p in self.a_player],
            "returns": [[int(r0), int(r1)] for r0, r1 in self.returns],
        }
        if self.moves:
            data["moves"] = [[int(a) for a in game] for game in self.moves]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        """The result :meth:`to_json` wrote (also after a trip through :func:`json.dumps`).

        The game's name gives its colours and, when the moves were kept, the start state that
        :meth:`record` replays them from.
        """
        game = game_class(data["game"])
        moves = [list(m) for m in data.get("moves", [])]
        a, b = data["names"]
        return cls(
            game=data["game"],
            names=(a, b),
            a_player=[int(p) for p in data["a_player"]],
            returns=[(int(r0), int(r1)) for r0, r1 in data["returns"]],
            seed=data["seed"],
            player_names=cast("tuple[str, str]", tuple(game.PLAYER_NAMES)),
            moves=moves,
            start=game() if moves else None,
        )

    # -- display --
    def _rows(self) -> list[list[str]]:
        a = self.names[0]
        rows = []
        for split in self.by_colour.values():
            score = "-" if split["score"] is None else f"{split['score']:.3f}"
            rows.append(
                [
                    f"{a} as {split['colour']}",
                    str(split["games"]),
                    str(split["wins"]),
                    str(split["draws"]),
                    str(split["losses"]),
                    score,
                ]
            )
        rows.append(
            [
                "total",
                str(self.games),
                str(self.wins),
                str(self.draws),
                str(self.losses),
                f"{self.score:.3f}",
            ]
        )
        return rows

    def _title(self) -> str:
        seed = "" if self.seed is None else f", seed {self.seed}"
        return f"{self.game}: {self.names[0]} vs {self.names[1]}, {self.games} games{seed}"

    def _interval_text(self) -> str:
        lo, hi = self.interval
        return f"score of {self.names[0]}: {self.score:.3f}, 95% interval [{lo:.3f}, {hi:.3f}]"

    def __str__(self) -> str:
        header = ["", "games", "wins", "draws", "losses", "score"]
        table = [header, *self._rows()]
        widths = [max(len(row[j]) for row in table) for j in range(len(header))]
        lines = [self._title()]
        for row in table:
            cells = [c.rjust(w) for c, w in zip(row, widths, strict=True)]
            cells[0] = row[0].ljust(widths[0])
            lines.append("  ".join(cells))
        lines.append(self._interval_text())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        header = "".join(f"<th>{h}</th>" for h in ["", "games", "wins", "draws", "losses", "score"])
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self._rows()
        )
        return (
            f"<div><p><b>{html.escape(self._title())}</b></p>"
            f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
            f"<p>{html.escape(self._interval_text())}</p></div>"
        )


def game_seeds(seed: int, index: int) -> tuple[int, int]:
    """The seeds of agent A and agent B in game ``index`` of a match seeded with ``seed``.

    numpy's SeedSequence spreads (seed, index) into well-mixed, independent 32-bit seeds.
    """
    seq = np.random.SeedSequence(seed, spawn_key=(index,))
    a, b = seq.generate_state(2)
    return int(a), int(b)


def _fresh(agent: Player, seed: int) -> Player:
    agent = copy.deepcopy(agent)  # never share a tree or a random generator between games
    agent.seed(seed)
    agent.reset()
    return agent


def match_game(
    start: GameState, agent_a: Player, agent_b: Player, seed: int, index: int
) -> tuple[int, Returns, list[int]]:
    """Game ``index`` of a match seeded with ``seed``, played alone: agent A's player (A moves
    first when ``index`` is even), the returns and the moves.

    It is the game :func:`match` plays as its game ``index`` (same seeds, fresh copies of the
    agents), so it replays one stored game without the games before it.
    """
    seed_a, seed_b = game_seeds(seed, index)
    a, b = _fresh(agent_a, seed_a), _fresh(agent_b, seed_b)
    a_player = index % 2
    record = play_game(start, a, b) if a_player == 0 else play_game(start, b, a)
    return a_player, record.returns, record.moves


def _show_progress(progress: bool | None) -> bool:
    """progress=None: a bar in a terminal or a live Jupyter notebook, none in scripts and builds.

    The environment variable MCTS_COURSE_PROGRESS=0 or 1 overrides the guess (the book build
    sets 0 so that no progress widget ends up in the HTML).
    """
    if progress is not None:
        return progress
    forced = os.environ.get("MCTS_COURSE_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    if sys.stderr is not None and hasattr(sys.stderr, "isatty") and sys.stderr.isatty():
        return True
    # A kernel started by a Jupyter server (a person at a notebook) gets JPY_SESSION_NAME;
    # one started by nbclient to build the book does not.
    return "ipykernel" in sys.modules and bool(os.environ.get("JPY_SESSION_NAME"))


T = TypeVar("T")


def _games(
    start: GameState, agent_a: Player, agent_b: Player, seed: int, games: int, n_jobs: int | None
) -> Iterable[tuple[int, Returns, list[int]]]:
    """The games' outcomes in game order: through joblib (the parallel extra), or one after the
    other in this process when joblib is not installed and one job is asked for."""
    try:
        from joblib import Parallel, delayed
    except ImportError:
        if n_jobs not in (None, 1):
            needs("joblib", "parallel")  # raises, naming the extra
        return (match_game(start, agent_a, agent_b, seed, i) for i in range(games))
    tasks = (delayed(match_game)(start, agent_a, agent_b, seed, i) for i in range(games))
    try:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator")  # results in game order
    except ValueError:  # backends such as multiprocessing or Ray deliver them all at the end
        parallel = Parallel(n_jobs=n_jobs)
    return cast("Iterable[tuple[int, Returns, list[int]]]", parallel(tasks))


def _progress_bar(items: Iterable[T], total: int, desc: str, progress: bool | None) -> Iterable[T]:
    """``items`` behind a tqdm bar (the parallel extra), or as they are without tqdm or a bar."""
    if not _show_progress(progress):
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return items
    return cast("Iterable[T]", tqdm(items, total=total, desc=desc, unit="game"))


def match(
    game: type[GameState] | GameState,
    agent_a: Player | str,
    agent_b: Player | str,
    games: int = 100,
    seed: int | None = 0,
    n_jobs: int | None = None,
    progress: bool | None = None,
    keep_moves: bool = True,
) -> MatchResult:
    """Play ``games`` games between ``agent_a`` and ``agent_b``, alternating colours.

    ``game`` is a game class or a start state; an agent is a :class:`Player` or a spec such as
    ``"mcts:iterations=200"`` (read by :func:`mcts_course.agents.make_agent`). ``seed=None``
    draws a fresh seed (stored in the result, so the match can be repeated). ``n_jobs`` as in
    :class:`joblib.Parallel` (-1: all cores; None: the surrounding
    :func:`joblib.parallel_config`, else 1). ``progress``: a tqdm bar; None shows it only in a
    terminal or a live notebook.
    """
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    if isinstance(agent_a, str) or isinstance(agent_b, str):
        from mcts_course.agents import make_agent

        agent_a, agent_b = (make_agent(x) if isinstance(x, str) else x for x in (agent_a, agent_b))
    start = start_state(game)
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    started = time.perf_counter()
    outcomes = _games(start, agent_a, agent_b, seed, games, n_jobs)
    bar = _progress_bar(outcomes, games, f"{agent_a.name} vs {agent_b.name}", progress)
    a_player, returns, moves = [], [], []
    for player, game_returns, game_moves in bar:
        a_player.append(player)
        returns.append((int(game_returns[0]), int(game_returns[1])))
        moves.append(list(game_moves) if keep_moves else [])
    return MatchResult(
        game=start.NAME,
        names=(agent_a.name, agent_b.name),
        a_player=a_player,
        returns=returns,
        seed=seed,
        player_names=cast("tuple[str, str]", tuple(start.PLAYER_NAMES)),  # a game has two
        moves=moves if keep_moves else [],
        start=start if keep_moves else None,
        seconds=time.perf_counter() - started,
    )
