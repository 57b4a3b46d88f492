"""The horizon effect, found by code in Connect Four (chapter "Trees you can see").

Russell and Norvig (2020, section 5.4) name the *horizon effect*: a program faces a move of the
opponent that does serious damage and **cannot be avoided**, but can be **put off** by delaying
tactics; a depth-limited search then plays the delaying moves, which push the damage beyond its
horizon without changing the outcome.  In Connect Four the delaying tactic is a *threat*: a move
that would win next turn unless the opponent blocks it, so the opponent's reply is forced and two
plies of the search's depth are spent.

:func:`find_horizon_effect` looks for a position where

1. every move loses by force: alpha-beta with exact values at the end of the game sees a loss
   behind every move within ``proof_depth`` plies (the loss is unavoidable, and proven);
2. the shallow search (alpha-beta to ``depth`` plies, cell scores at its horizon) already sees
   the loss behind some moves, but not behind the move it plays;
3. that move is a threat (the opponent has exactly one reply that does not lose at once).

:func:`play_out` then lets the shallow search play on from there against an opponent that
searches deep enough to win, and records the shallow search's own value at each of its turns.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from mcts_course.agents.evaluation import WIN_SCORE, cell_score
from mcts_course.agents.minimax import AlphaBetaAgent, alphabeta_value
from mcts_course.games import ConnectFour, GameState
from mcts_lab.present import Table


def move_values(state: GameState, depth: int) -> dict[int, float]:
    """Each legal move's alpha-beta value for the player to move, ``depth`` plies in all (the
    move itself included), with the cell scores at the horizon."""
    me = state.current_player
    return {
        a: alphabeta_value(state.play(a), depth - 1, cell_score, me) for a in state.legal_actions()
    }


def loses(value: float) -> bool:
    """A search value that means a forced loss (a finished game, not a heuristic guess)."""
    return value <= -WIN_SCORE


def wins_now(state: GameState) -> list[int]:
    """The moves that win at once for the player to move."""
    me = state.current_player
    return [a for a in state.legal_actions() if state.play(a).returns()[me] > 0]


def is_threat(state: GameState, action: int) -> bool:
    """Does ``action`` leave the opponent exactly one reply after which the mover cannot win at
    once (a forced reply), and no immediate win of its own?"""
    after = state.play(action)
    if after.is_terminal() or wins_now(after):
        return False
    safe = [r for r in after.legal_actions() if not wins_now(after.play(r))]
    return len(safe) == 1


@dataclass
class HorizonEffect:
    """A position where a shallow search delays an unavoidable loss, and what happens next."""

    state: GameState
    moves: list[int]  # the moves that lead to ``state`` from the start
    depth: int  # the shallow search's depth (plies)
    proof_depth: int  # the depth at which every move is seen to lose
    shallow: dict[int, float]  # each move's value to ``depth``
    deep: dict[int, float]  # each move's value to ``proof_depth``
    near: dict[int, float]  # each move's value to 2 plies (the opponent's immediate replies)
    choice: int  # the move the shallow search plays
    line: list[int] = field(default_factory=list)  # the game from ``state`` on
    values: list[float] = field(default_factory=list)  # the shallow search's value, its turns
    threats: list[bool] = field(default_factory=list)  # was its move a threat, its turns

    @property
    def seen_losing(self) -> list[int]:
        """The moves behind which the shallow search already sees the loss."""
        return [a for a, v in self.shallow.items() if loses(v)]

    @property
    def plies_to_loss(self) -> int:
        """How many plies the game lasted from ``state`` to the loss."""
        return len(self.line)

    @property
    def delays(self) -> int:
        """How many of the shallow search's moves were threats before it saw the loss."""
        count = 0
        for value, threat in zip(self.values, self.threats, strict=True):
            if loses(value) or not threat:
                break
            count += 1
        return count

    def table(self) -> Table:
        """Every move: is it a threat, and its value to 2 plies, to ``depth``, to
        ``proof_depth`` ("loss" where the search sees a forced loss)."""

        def shown(v: float) -> str:
            return "loss" if loses(v) else f"{v:g}"

        depths = [2, self.depth, self.proof_depth]
        columns = ["column", "threat?"] + [f"{d} plies" for d in depths]
        rows = []
        for a in self.state.legal_actions():
            name = self.state.action_to_string(a) + (" (played)" if a == self.choice else "")
            values = [self.near[a], self.shallow[a], self.deep[a]]
            rows.append(
                [name, "yes" if is_threat(self.state, a) else "no"] + [shown(v) for v in values]
            )
        return Table(columns, rows, right=columns[2:])

    def board(self):
        """The position, with a ring around the dot above the column the shallow search plays,
        the threat (new axes)."""
        from mcts_course.render import draw_board

        ax = draw_board(self.state)
        ax.add_artist(_ring(-1.16, self.choice))
        return ax

    def boards(self):
        """The position, the position after the shallow search's delaying moves and the
        opponent's forced replies, and the end of the game (a new figure).  The discs played
        from the position on carry their move numbers, 1 for the first."""
        from mcts_course.render import draw_boards

        states, placed = [self.state], []
        for action in self.line:
            before = states[-1]
            states.append(before.play(action))
            free = [r for r in range(before.ROWS) if before.board()[r][action] < 0]
            placed.append((max(free), action))  # the disc falls to the lowest free row
        mover = self.state.PLAYER_NAMES[self.state.current_player]
        titles = [f"{mover} to move", f"after {self.delays} threats and blocks", None]
        shown = [0, 2 * self.delays, len(self.line)]
        fig = draw_boards([states[k] for k in shown], titles, ncols=3)
        for ax, upto in zip(fig.axes, shown, strict=True):
            for number, (row, col) in enumerate(placed[:upto], start=1):
                ax.text(
                    col + 0.5,
                    row + 0.5,
                    str(number),
                    ha="center",
                    va="center",
                    fontsize=7,
                    fontweight="bold",
                    color="#1b1b1b",
                    zorder=6,
                    gid="move-number",
                )
        return fig


def _ring(row: float, col: int):
    """A black ring around the cell (row, col) of a board drawn by ``draw_board``."""
    from matplotlib.patches import Circle

    ring = Circle((col + 0.5, row + 0.5), 0.42, fill=False, lw=1.5, color="#1b1b1b", zorder=6)
    ring.set_gid("mark")
    return ring


def play_out(found: HorizonEffect, opponent_depth: int | None = None) -> HorizonEffect:
    """Play on from ``found.state``: the shallow search (alpha-beta to ``found.depth``) against
    alpha-beta to ``opponent_depth`` (the proof depth by default), until the game ends."""
    me = found.state.current_player
    shallow = AlphaBetaAgent(depth=found.depth, seed=0)
    deep = AlphaBetaAgent(depth=opponent_depth or found.proof_depth, seed=0)
    state, line, values, threats = found.state, [], [], []
    while not state.is_terminal():
        if state.current_player == me:
            action = shallow.select_action(state)
            values.append(move_values(state, found.depth)[action])
            threats.append(is_threat(state, action))
        else:
            action = deep.select_action(state)
        line.append(action)
        state = state.play(action)
    found.line, found.values, found.threats = line, values, threats
    return found


def check(state: GameState, depth: int, proof_depth: int) -> tuple | None:
    """(shallow values, deep values, choice) if ``state`` shows the horizon effect, else None.

    Beyond the three conditions of the module docstring, the damage must be more than one reply
    away (some move that is not a threat loses within ``depth`` plies but not at once, so the
    search sees it coming), and every move that is not a threat must look lost to the shallow
    search: only a threat hides the loss from it.
    """
    shallow = move_values(state, depth)
    choice = AlphaBetaAgent(depth=depth, seed=0).select_action(state)
    if loses(shallow[choice]) or not is_threat(state, choice):
        return None
    threats = {a for a in shallow if is_threat(state, a)}
    if any(not loses(v) for a, v in shallow.items() if a not in threats):
        return None
    near = move_values(state, 2)
    if not any(loses(shallow[a]) and not loses(near[a]) for a in shallow if a not in threats):
        return None
    deep = move_values(state, proof_depth)
    if not all(loses(v) for v in deep.values()):
        return None
    return shallow, deep, choice


def find_horizon_effect(
    depth: int = 4,
    proof_depth: int = 8,
    seed: int = 0,
    tries: int = 20_000,
    game: type[GameState] = ConnectFour,
) -> HorizonEffect | None:
    """The first position of seeded random games (in the order the games are drawn) that shows
    the horizon effect for alpha-beta to ``depth`` (see the module docstring), played out."""
    rng = random.Random(seed)
    for _ in range(tries):
        state, moves = game(), []
        for _ in range(rng.randrange(8, 30)):
            action = rng.choice(state.legal_actions())
            state = state.play(action)
            moves.append(action)
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        found = check(state, depth, proof_depth)
        if found is not None:
            shallow, deep, choice = found
            result = HorizonEffect(
                state, moves, depth, proof_depth, shallow, deep, move_values(state, 2), choice
            )
            return play_out(result)
    return None
