"""RAVE as MoGo used it: all children at once, and AMAF values for the moves not yet visited."""

from __future__ import annotations

import pytest

from mcts_course.agents.exact import move_values
from mcts_course.agents.rave import RAVEAgent
from mcts_course.agents.spec import make_agent
from mcts_course.games import ConnectFour, TicTacToe


def test_one_iteration_gives_the_root_all_its_children_and_amaf_for_several():
    state = ConnectFour.from_moves("4")
    agent = RAVEAgent(1, rave=30, amaf_unvisited=True, seed=2)
    root = agent.search(state)
    assert sorted(root.children) == state.legal_actions()
    visited = [c for c in root.children.values() if c.visits]
    assert len(visited) == 1
    counts = [agent.amaf(c)[1] for c in root.children.values() if not c.visits]
    assert sum(counts) >= 1  # the playout's later moves taught moves never played first
    plain = RAVEAgent(1, rave=30, seed=2).search(state)
    assert len(plain.children) == 1  # UCT's expansion: one child per visit


def test_an_unvisited_child_scores_its_amaf_mean_or_fpu():
    agent = RAVEAgent(5, rave=30, amaf_unvisited=True, c=0.0, fpu=0.9, seed=1)
    root = agent.search(ConnectFour())
    for child in root.children.values():
        if child.visits == 0:
            wins, count = agent.amaf(child)
            expected = wins / count if count else 0.9
            assert agent.score(root, child) == pytest.approx(expected)


def test_selection_reaches_an_unvisited_move_by_its_amaf_value():
    # with c = 0, a move whose AMAF mean beats every visited move's blend is tried next
    agent = RAVEAgent(60, rave=30, amaf_unvisited=True, c=0.0, seed=3)
    root = agent.search(ConnectFour.from_moves("4 4"))
    best = agent.select_child(root)
    assert agent.score(root, best) == max(agent.score(root, c) for c in root.children.values())
    assert all(agent.amaf(c)[1] > 0 for c in root.children.values())


def test_the_spec_names_the_mode():
    agent = make_agent("mcts:iterations=50,rave=30,amaf_unvisited=1")
    assert isinstance(agent, RAVEAgent) and agent.amaf_unvisited
    assert ",all" in agent.name
    with pytest.raises(ValueError, match="mode of RAVE"):
        make_agent("mcts:amaf_unvisited=1")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("moves", ["a1 b1 b2 c1", "b2 a1 c1", "b2 a1 a2 c2"])
def test_it_plays_an_optimal_move_in_small_tactics(seed, moves):
    state = TicTacToe.from_moves(moves)
    values = move_values(state)
    agent = RAVEAgent(400, rave=30, amaf_unvisited=True, c=0.5, seed=seed)
    assert values[agent.select_action(state)] == max(values.values())
    assert min(values.values()) < max(values.values())  # a position where the choice matters
