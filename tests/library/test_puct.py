"""PUCT: priors are probabilities, expansion follows the prior, selection is the PUCT formula."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import pytest

from mcts_course.agents import MCTSAgent
from mcts_course.agents.evaluation import CELL_WEIGHTS
from mcts_course.agents.puct import GUIDES, PUCTAgent, cell_prior, register_guide, uniform_prior
from mcts_course.arena import match
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe


@pytest.mark.parametrize(
    "state", [Othello(), ConnectFour(), TicTacToe(), TicTacToe.from_moves("b2")]
)
def test_priors_are_distributions_over_the_legal_moves(state):
    for prior in (cell_prior(state), uniform_prior(state)):
        assert sorted(prior) == state.legal_actions()
        assert math.isclose(sum(prior.values()), 1.0)
        assert all(p > 0 for p in prior.values())


def test_the_cell_prior_prefers_the_centre_in_connect_four_and_tic_tac_toe():
    c4 = cell_prior(ConnectFour())
    assert max(c4, key=c4.get) == 3  # the middle column
    assert c4[3] > c4[2] > c4[1] > c4[0]
    ttt = cell_prior(TicTacToe())
    assert max(ttt, key=ttt.get) == TicTacToe().parse_action("b2")
    corner, edge = ttt[TicTacToe().parse_action("a1")], ttt[TicTacToe().parse_action("a2")]
    assert corner > edge


def weight(cell) -> float:
    return CELL_WEIGHTS[cell[0]][cell[1]]


def test_the_othello_prior_follows_the_square_weights():
    rng = random.Random(4)
    state, seen = Othello(), 0
    while not seen or not state.is_terminal():  # random games, until one had a forced pass
        if state.is_terminal():
            state = Othello()
        prior = cell_prior(state)
        cells = {a: state.cell_of(a) for a in prior}
        if state.legal_actions() == [PASS]:
            assert prior == {PASS: 1.0}  # a forced pass gets the whole prior
            seen += 1
        for a in prior:
            for b in prior:
                if cells[a] and cells[b] and weight(cells[a]) > weight(cells[b]):
                    assert prior[a] > prior[b]  # a corner (120) over an X-square (-40)
        state = state.play(rng.choice(state.legal_actions()))


def test_expansion_adds_every_child_and_plays_out_the_most_probable():
    agent = PUCTAgent(1, seed=0)
    root = agent.search(ConnectFour())
    assert sorted(root.children) == list(range(7))
    visited = [a for a, ch in root.children.items() if ch.visits]
    assert visited == [3]  # the centre column has the highest prior
    assert math.isclose(sum(agent.priors[ch] for ch in root.children.values()), 1.0)


def test_selection_maximises_the_puct_score():
    agent = PUCTAgent(50, seed=1, c=1.5)
    root = agent.search(TicTacToe())
    path = agent.select(root)
    node = path[0]
    for nxt in path[1:]:
        scores = {a: agent.score(node, ch) for a, ch in node.children.items()}
        best = max(scores.values())
        assert agent.score(node, nxt) == best
        assert nxt.action == min(a for a, s in scores.items() if s == best)  # ties: smallest
        node = nxt


def test_an_unvisited_child_counts_the_first_play_urgency():
    agent = PUCTAgent(1, seed=0, fpu=0.25, c=2.0)
    root = agent.search(TicTacToe())
    child = next(ch for ch in root.children.values() if ch.visits == 0)
    expected = 0.25 + 2.0 * agent.priors[child] * math.sqrt(root.visits)
    assert math.isclose(agent.score(root, child), expected)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        PUCTAgent(10, prior="network")
    with pytest.raises(ValueError):
        PUCTAgent(10, prior_temperature=0)


def test_puct_finds_an_immediate_win():
    state = ConnectFour.from_moves("1 2 1 2 1 2")
    assert PUCTAgent(200, seed=0).select_action(state) == 0


def test_puct_with_the_cell_prior_beats_random_and_is_reproducible():
    a, b = PUCTAgent(100, seed=2), PUCTAgent(100, seed=2)
    state = Othello.from_moves("f5 d6")
    assert a.select_action(state) == b.select_action(state)
    result = match(ConnectFour, PUCTAgent(50), MCTSAgent(1), games=10, seed=0, progress=False)
    assert result.score > 0.5


def test_both_agents_come_from_make_agent():
    from mcts_course.agents import MCTSSolverAgent, make_agent

    puct = make_agent("puct:iterations=30,prior=uniform,c=2,fpu=0.4,seed=1")
    assert isinstance(puct, PUCTAgent) and puct.c == 2 and puct.fpu == 0.4
    assert puct.prior_name == "uniform" and puct.iterations == 30
    solver = make_agent("mcts-solver:time=0.05")
    assert isinstance(solver, MCTSSolverAgent)
    assert solver.iterations is None and solver.time_limit == 0.05
    with pytest.raises(ValueError, match="prior"):
        make_agent("puct:prior=network")


class FlatGuide:
    """A guide for the test of the registry: uniform prior, every leaf a draw."""

    __name__ = "flat"

    def __init__(self) -> None:
        self.valued = 0

    def __call__(self, state):
        return uniform_prior(state)

    def evaluate(self, state, rng):
        self.valued += 1
        return (0, 0)


def test_a_registered_guide_is_the_prior_and_the_leaf_value():
    register_guide("flat", FlatGuide)
    try:
        agent = PUCTAgent(40, prior="flat", seed=0)
        root = agent.search(ConnectFour())
        assert agent.prior.valued == 40  # every iteration valued by the guide, no playout
        assert all(agent.priors[child] == 1 / 7 for child in root.children.values())
        assert agent.name.startswith("PUCT(flat,")
    finally:
        del GUIDES["flat"]
    with pytest.raises(ValueError, match="unknown prior"):
        PUCTAgent(10, prior="flat")


def test_the_agents_find_the_network_without_importing_learn():
    """prior=net comes from mcts_course.learn, which the agents never import: it is found by
    its entry point, and the learn package is loaded only then."""
    code = (
        "import sys\n"
        "from mcts_course.agents import PUCTAgent\n"
        "from mcts_course.games import TicTacToe\n"
        "assert 'mcts_course.learn' not in sys.modules\n"
        "agent = PUCTAgent(20, prior='net', seed=0)\n"
        "assert 'mcts_course.learn' in sys.modules\n"
        "print(type(agent.prior).__module__, agent.select_action(TicTacToe()) in range(9))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["mcts_course.learn.shipped", "True"]
