"""The agent interface, random and CellScore play, evaluation functions and agent specs."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_course.agents import (
    AGENT_SPECS,
    AlphaBetaAgent,
    CellScoreAgent,
    MCTSAgent,
    MinimaxAgent,
    MonteCarloAgent,
    RandomAgent,
    make_agent,
)
from mcts_course.agents.evaluation import (
    CELL_WEIGHTS,
    WIN_SCORE,
    cell_score,
    cell_weights,
    disc_count,
    mobility,
    winning_lines_table,
)
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe

GAMES = [Othello, TicTacToe, ConnectFour]
QUICK_SPECS = [
    "random",
    "cellscore",
    "minimax:depth=1",
    "alphabeta:depth=2",
    "montecarlo:playouts=2,policy=ucb1",
    "mcts:iterations=20",
]


def play_out(game, agents, max_moves=200):
    state, moves = game(), []
    while not state.is_terminal() and len(moves) < max_moves:
        action = agents[state.current_player].select_action(state)
        assert action in state.legal_actions()
        moves.append(action)
        state = state.play(action)
    return moves


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", QUICK_SPECS)
def test_every_agent_plays_every_game_legally_and_reproducibly(game, spec):
    max_moves = 12 if game is Othello and spec.startswith(("m", "a")) else 200
    seeded = spec + (",seed=1" if ":" in spec else ":seed=1")
    first = play_out(game, [make_agent(seeded), RandomAgent(seed=2)], max_moves)
    again = play_out(game, [make_agent(seeded), RandomAgent(seed=2)], max_moves)
    assert first == again


def test_seed_and_reset():
    agent = RandomAgent(seed=3)
    first = play_out(Othello, [agent, agent])
    agent.seed(3)
    agent.reset()
    assert play_out(Othello, [agent, agent]) == first
    assert play_out(Othello, [RandomAgent(4), RandomAgent(5)]) != first


def test_random_agent_is_uniform():
    state = Othello()
    agent = RandomAgent(seed=0)
    counts = np.bincount([agent.select_action(state) for _ in range(4000)], minlength=64)
    assert set(np.flatnonzero(counts)) == set(state.legal_actions())
    assert counts.max() < 1100


# -- evaluation tables -------------------------------------------------------------------------
def test_winning_line_tables():
    # Tic-tac-toe: the centre is on 4 lines, a corner on 3, an edge on 2.
    assert cell_weights(TicTacToe) == ((3, 2, 3), (2, 4, 2), (3, 2, 3))
    # Connect Four: the well-known table of four-in-a-row lines through each cell (sum 276,
    # each of the 69 lines counted on its 4 cells).
    assert cell_weights(ConnectFour) == (
        (3, 4, 5, 7, 5, 4, 3),
        (4, 6, 8, 10, 8, 6, 4),
        (5, 8, 11, 13, 11, 8, 5),
        (5, 8, 11, 13, 11, 8, 5),
        (4, 6, 8, 10, 8, 6, 4),
        (3, 4, 5, 7, 5, 4, 3),
    )
    assert sum(map(sum, winning_lines_table(6, 7, 4))) == 69 * 4
    assert cell_weights(Othello) is CELL_WEIGHTS
    assert CELL_WEIGHTS[0][0] == 120 and CELL_WEIGHTS[1][1] == -40
    transposed = tuple(zip(*CELL_WEIGHTS, strict=True))
    assert CELL_WEIGHTS == transposed and CELL_WEIGHTS == CELL_WEIGHTS[::-1]


def test_evaluations_at_the_start_and_after_a_move():
    for game in GAMES:
        for evaluate in (cell_score, disc_count, mobility):
            assert evaluate(game(), 0) == 0 == evaluate(game(), 1)
    state = Othello.from_moves("d3")  # Black d3 d4 d5 e4, White e5
    assert disc_count(state, 0) == 3 and disc_count(state, 1) == -3
    assert cell_score(state, 0) == 3 + 0 + 0 + 0 - 0
    # White can answer c3, e3 or c5; Black would have 4 moves if it were Black's turn
    assert len(state.legal_actions()) == 3
    assert mobility(state, 1) == 3 - len(Othello(state.black, state.white, 0).legal_actions())
    assert mobility(state, 0) == -mobility(state, 1)
    assert cell_score(TicTacToe.from_moves("b2 a1"), 0) == 4 - 3


def test_a_finished_game_is_worth_win_score():
    won = TicTacToe.from_moves("a1 a2 b1 b2 c1")
    for evaluate in (cell_score, disc_count, mobility):
        assert evaluate(won, 0) == WIN_SCORE
        assert evaluate(won, 1) == -WIN_SCORE
    draw = TicTacToe.from_moves("b2 a1 c3 a3 a2 c2 b1 b3 c1")
    assert draw.is_terminal() and cell_score(draw, 0) == 0


# -- CellScore ---------------------------------------------------------------------------------
def test_cellscore_takes_the_corner():
    # White to move can take a1 (weight 120) among ten moves.
    state = Othello.from_moves("f5 f4 f3 f6 d3 f2 g6 c3 b3 b2 g4 g3 b1")
    assert state.parse_action("a1") in state.legal_actions()
    for seed in range(3):
        assert CellScoreAgent(seed=seed).select_action(state) == state.parse_action("a1")


def test_cellscore_in_tic_tac_toe_and_connect_four():
    assert CellScoreAgent(seed=0).select_action(TicTacToe()) == 4  # the centre
    assert CellScoreAgent(seed=0).select_action(ConnectFour()) == 3  # the middle column
    # Connect Four scores the cell where the disc lands: on top of the first disc in column 4
    # (weight 10) beats every bottom cell (7 at most).
    assert CellScoreAgent(seed=0).select_action(ConnectFour.from_moves("4")) == 3


def test_cellscore_breaks_ties_by_the_smallest_action():
    # The four opening moves of Othello all have weight 3: the first, d3 (19), whatever the seed.
    choices = {CellScoreAgent(seed=s).select_action(Othello()) for s in range(20)}
    assert choices == {min(Othello().legal_actions())} == {19}


def test_forced_pass():
    state = Othello.from_moves(
        "d3 c3 b3 d2 f5 b2 c2 f6 e2 c5 b1 a1 b5 f4 b4 c1 g3 f2 f7 e6 e1 c6 f1 g7 h7 f3 a2 h3 "
        "h4 h8 g4 a3 c7 b6 g6 h2 d7 g8 a5 d1 c4 g2 e7 a4 e3 d6 g5 a7 h1 g1 b7 a6"
    )
    assert state.legal_actions() == [PASS]
    for spec in QUICK_SPECS:
        assert make_agent(spec).select_action(state) == PASS


def test_game_over_is_an_error():
    over = TicTacToe.from_moves("a1 a2 b1 b2 c1")
    for spec in QUICK_SPECS:
        with pytest.raises(ValueError, match="game is over"):
            make_agent(spec).select_action(over)


# -- specs -------------------------------------------------------------------------------------
def test_make_agent_builds_the_right_agents():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent(" CellScore "), CellScoreAgent)
    minimax = make_agent("minimax:depth=3,eval=discs")
    assert isinstance(minimax, MinimaxAgent) and minimax.depth == 3
    assert minimax.evaluate is disc_count
    ab = make_agent("alphabeta:time=0.1")
    assert isinstance(ab, AlphaBetaAgent) and ab.depth is None and ab.time_limit == 0.1
    assert make_agent("alphabeta:depth=4").depth == 4
    mc = make_agent("montecarlo:playouts=20,policy=ucb1,cutoff=20,c=0.5")
    assert isinstance(mc, MonteCarloAgent)
    assert (mc.playouts, mc.policy, mc.playout_depth, mc.c) == (20, "ucb1", 20, 0.5)
    mc = make_agent("montecarlo:policy=egreedy,epsilon=0.2,temperature=0.3")
    assert (mc.epsilon, mc.temperature) == (0.2, 0.3)
    mcts = make_agent("mcts:iterations=200,c=1.4,threshold=10,cutoff=20,reuse=1,seed=5")
    assert isinstance(mcts, MCTSAgent)
    assert (mcts.iterations, mcts.c, mcts.expand_threshold) == (200, 1.4, 10)
    assert (mcts.playout_depth, mcts.tree_reuse) == (20, True)
    timed = make_agent("mcts:time=0.1")
    assert (timed.iterations, timed.time_limit) == (None, 0.1)
    assert timed.name == "MCTS(0.1s)" and make_agent("mcts").name == "MCTS(200)"
    assert set(AGENT_SPECS) == {
        "random",
        "cellscore",
        "minimax",
        "alphabeta",
        "montecarlo",
        "mcts",
        "mcts-solver",
        "puct",
        "endgame",
    }


def test_seed_in_a_spec_fixes_the_moves():
    moves = [make_agent("random:seed=9").select_action(Othello()) for _ in range(5)]
    assert len(set(moves)) == 1


@pytest.mark.parametrize(
    "spec, words",
    [
        ("alfabeta", ["random", "cellscore", "minimax", "alphabeta", "montecarlo", "mcts"]),
        (
            "mcts:iteration=5",
            ["iterations", "time_limit", "c", "expand_threshold", "playout_depth", "seed"],
        ),
        ("minimax:time=1", ["depth", "evaluate", "seed"]),
        ("mcts:time=1,time_limit=2", ["twice"]),
        ("random:depth=2", ["seed"]),
        ("mcts:iterations=lots", ["iterations"]),
        ("mcts:iterations", ["key=value"]),
        ("montecarlo:policy=greedy", ["uniform", "ucb1", "egreedy", "softmax"]),
        ("minimax:eval=material", ["cellscore", "discs", "mobility"]),
        ("mcts:threshold=0", ["expand_threshold"]),
        ("mcts:reuse=maybe", ["reuse"]),
        ("mcts:evaluator=x", ["unknown parameter"]),
    ],
)
def test_bad_specs_raise_one_line_value_errors(spec, words):
    with pytest.raises(ValueError) as info:
        make_agent(spec)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message
