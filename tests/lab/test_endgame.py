"""The exact Othello endgame solver against margins no one here computed (the FFO file's, from
Edax), against the package's generic exact search and a plain negamax on the game protocol;
and the agents built on it."""

from __future__ import annotations

import random

import pytest
from helpers import _late, late_positions, run_without_numpy
from mcts_lab.ffo import load_ffo

from mcts_course.agents import (
    EndgameAgent,
    EndgameHandover,
    EndgameSolver,
    MCTSAgent,
    endgame_margins,
    make_agent,
    solve_endgame,
)
from mcts_course.agents.exact import exact_value
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe
from mcts_course.games.othello import final_margin, legal_mask, move_mask

FFO = {p.number: p for p in load_ffo()}
FAST = (5, 7, 17)  # the FFO positions with the smallest trees (well under a second each)


def plain_margin(state: Othello) -> int:
    """Full-width negamax on the final margin through the game protocol alone: slow, and
    obviously right.  A pass leaves the other player to move, so the value is negated."""
    if state.is_terminal():
        black, white = state.disc_counts()
        mine, theirs = (black, white) if state.current_player == 0 else (white, black)
        empty = 64 - mine - theirs
        return mine - theirs + (empty if mine > theirs else -empty if mine < theirs else 0)
    return max(-plain_margin(state.play(a)) for a in state.legal_actions())


# -- the bitboard helpers -----------------------------------------------------------------------
def test_legal_mask_is_move_mask():
    rng = random.Random(3)
    for _ in range(40):
        state = Othello()
        while not state.is_terminal():
            mover, opponent = state._discs_of(state.current_player)
            assert legal_mask(mover, opponent) == move_mask(mover, opponent)
            state = state.play(rng.choice(state.legal_actions()))


def test_final_margin_counts_empty_squares_for_the_winner():
    black = sum(1 << sq for sq in range(10))
    white = sum(1 << sq for sq in range(10, 14))
    assert final_margin(black, white) == 64 - 2 * 4  # 10 - 4 and the 50 empty squares
    assert final_margin(white, black) == -(64 - 2 * 4)
    left, right = sum(1 << sq for sq in range(30)), sum(1 << sq for sq in range(30, 60))
    assert final_margin(left, right) == 0  # 30 all, four empty squares: a draw
    assert final_margin(left | 1 << 60, right) == 31 - 30 + 3


# -- against the published margins -------------------------------------------------------------
@pytest.mark.parametrize("number", FAST)
def test_fast_ffo_positions_get_the_published_best_margin(number):
    position = FFO[number]
    solution = EndgameSolver().solve(position.state)
    assert solution.margin == position.best
    assert solution.move in position.best_moves
    assert solve_endgame(position.state) == position.best


def test_every_move_of_ffo_5_gets_its_published_margin():
    position = FFO[5]
    assert endgame_margins(position.state) == position.margins
    margin, best = EndgameSolver().best_moves(position.state)
    assert margin == position.best and set(best) == position.best_moves


@pytest.mark.slow
@pytest.mark.parametrize("number", range(1, 20))
def test_every_ffo_position_and_every_move(number):
    position = FFO[number]
    solver = EndgameSolver()
    solution = solver.solve(position.state)
    assert solution.margin == position.best and solution.move in position.best_moves
    assert solver.move_margins(position.state) == position.margins


# -- against the generic exact search and a plain negamax ---------------------------------------
def test_margins_agree_with_plain_negamax_near_the_end():
    for state in late_positions(6, 12, seed=1) + late_positions(6, 12, seed=2, passes=True):
        assert solve_endgame(state) == plain_margin(state), state
        margins = endgame_margins(state)
        for action, margin in margins.items():
            assert margin == -plain_margin(state.play(action))


def test_signs_agree_with_the_generic_exact_search_at_ten_empty_squares():
    positions = late_positions(10, 6, seed=4) + late_positions(9, 6, seed=5, passes=True)
    for state in positions:
        margin = solve_endgame(state)
        assert (margin > 0) - (margin < 0) == exact_value(state), state


def test_a_forced_pass_and_a_finished_game():
    state = next(s for s in _late(5, seed=6, passes=True) if s.legal_actions() == [PASS])
    margins = endgame_margins(state)
    assert list(margins) == [PASS]
    assert margins[PASS] == solve_endgame(state) == plain_margin(state)
    assert EndgameSolver().solve(state).move == PASS
    done = Othello(black=(1 << 64) - 1 - 1, white=0)  # white wiped out, one square empty
    assert done.is_terminal()
    assert EndgameSolver().solve(done).margin == 64 and EndgameSolver().solve(done).move is None


def test_only_othello():
    with pytest.raises(ValueError, match="Othello only"):
        solve_endgame(TicTacToe())


# -- the agents ---------------------------------------------------------------------------------
def test_the_endgame_agent_plays_a_best_move_and_varies_among_ties():
    position = FFO[5]
    agent = EndgameAgent(seed=0)
    assert agent.select_action(position.state) in position.best_moves
    assert agent.last_margin == position.best
    # A position with several best moves: seeds pick different ones, all of the best margin.
    state = next(
        s
        for s in _late(8, seed=8)
        if list(endgame_margins(s).values()).count(max(endgame_margins(s).values())) > 1
    )
    margins = endgame_margins(state)
    best = {a for a, m in margins.items() if m == max(margins.values())}
    chosen = {EndgameAgent(seed=s).select_action(state) for s in range(12)}
    assert chosen <= best and len(chosen) > 1


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour])
def test_the_endgame_agents_refuse_other_games_clearly(game):
    with pytest.raises(ValueError, match="Othello only"):
        EndgameAgent().select_action(game())
    with pytest.raises(ValueError, match="Othello only"):
        make_agent("mcts:iterations=5,endgame=10").select_action(game())


def test_too_many_empty_squares_is_a_clear_error():
    with pytest.raises(ValueError, match="max_empties"):
        EndgameAgent(max_empties=12).select_action(Othello())


def test_the_hybrid_hands_over_at_n_empty_squares():
    state = late_positions(11, 1, seed=9)[0]
    hybrid = make_agent("mcts:iterations=30,endgame=10,seed=4")
    plain = make_agent("mcts:iterations=30,seed=4")
    assert isinstance(hybrid, EndgameHandover) and isinstance(hybrid.agent, MCTSAgent)
    # Above N empty squares the hybrid is plain MCTS, move for move.
    assert hybrid.select_action(state) == plain.select_action(state)
    # At N or fewer it plays a move of the best exact margin, checked against every margin.
    for state in late_positions(10, 4, seed=10) + late_positions(7, 4, seed=11, passes=True):
        margins = endgame_margins(state)
        action = hybrid.select_action(state)
        assert margins[action] == max(margins.values())


def test_specs():
    assert make_agent("mcts:time=0.1,endgame=0").__class__ is MCTSAgent
    hybrid = make_agent("mcts:time=0.1,endgame=12,c=1.0")
    assert hybrid.endgame == 12 and hybrid.agent.time_limit == 0.1 and hybrid.agent.c == 1.0
    assert make_agent("puct:iterations=10,endgame=8").endgame == 8
    assert make_agent("endgame:max_empties=14,seed=2").max_empties == 14
    for bad in (
        "mcts:endgame=-1",
        "mcts:endgame=61",
        "mcts:endgame=x",
        "endgame:depth=3",
        "alphabeta:endgame=4",
    ):
        with pytest.raises(ValueError):
            make_agent(bad)


def test_the_solver_and_the_hybrid_run_without_numpy():
    # The play page runs the package in the browser's Python, which has no numpy.
    done = run_without_numpy(
        """
        from mcts_course.agents import make_agent, solve_endgame
        from mcts_course.games import Othello

        state = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2 e6 c6 b4 b5 d2 e3 a6")
        agent = make_agent("mcts:iterations=20,endgame=8,seed=1")
        while not state.is_terminal():
            state = state.play(agent.select_action(state))
        print("ok", solve_endgame(state))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "ok"
