"""The games, the agents and the shipped networks run on the standard library alone (as in a
browser's Python).

A child process blocks ``import numpy`` with a meta-path finder, then imports
:mod:`mcts_course.games` and :mod:`mcts_course.agents` and plays a game of each game between
MCTS and random play (and a few moves of every other agent).
"""

from __future__ import annotations

from helpers import run_without_numpy

SCRIPT = """
    from mcts_course.agents import MCTSAgent, RandomAgent, make_agent
    from mcts_course.games import GAMES

    for name, game in GAMES.items():
        agents = (MCTSAgent(iterations=30, seed=1), RandomAgent(seed=2))
        state, plies = game(), 0
        while not state.is_terminal():
            state = state.play(agents[state.current_player].select_action(state))
            plies += 1
        state.board(), str(state)
        print(name, plies, state.returns())
        for spec in ("cellscore:seed=0", "minimax:depth=1", "alphabeta:depth=2",
                     "montecarlo:playouts=8,policy=softmax", "mcts:iterations=8,playout_depth=4"):
            agent, state = make_agent(spec), game()
            for _ in range(3):
                state = state.play(agent.select_action(state))
    from mcts_course.learn import available, load

    for name in available():  # the shipped networks: plain-Python forward passes, PUCT on them
        game = GAMES[name]
        assert load(name).backend == "python"
        priors, value = load(name).predict(game())
        assert sorted(priors) == game().legal_actions() and -1 <= value <= 1
        agent, state = make_agent("puct:prior=net,iterations=20,seed=1"), game()
        for _ in range(3):
            state = state.play(agent.select_action(state))
        print("net", name)
    print("ok")
"""


def test_games_and_agents_play_without_numpy():
    done = run_without_numpy(SCRIPT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[-1] == "ok"
    for name in ("othello", "tictactoe", "connect4"):
        assert name in lines
    assert lines.count("net") >= 2  # tictactoe and connect4 networks at least
