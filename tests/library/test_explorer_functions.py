"""A function-style MCTS, written as the tic-tac-toe exercises ask, plugged into the explorer
(mcts_course.explorer_functions): the recorded tree is the function's own tree after every k."""

from __future__ import annotations

import math
import random
import types

import pytest
from test_explorer import agent_tree  # the tree's (visits, wins) by the explorer's keys

from mcts_course.explorer_functions import FunctionRecorder, function_session
from mcts_course.games import ConnectFour, TicTacToe
from mcts_course.given import Node, reward

BLOCK = TicTacToe.from_moves("b2 a1 c3 a3")


# -- a small function-style MCTS, as a student writes it (exercises/ttt_mcts.py's contracts) ----
def select_child(node, c):
    def ucb(child):
        if child.visits == 0:
            return math.inf
        return child.wins / child.visits + c * math.sqrt(math.log(node.visits) / child.visits)

    return max((node.children[a] for a in sorted(node.children)), key=ucb)


def expand(node, rng):
    action = rng.choice(node.untried)
    node.untried.remove(action)
    child = node.children[action] = Node(node.state.play(action), node, action)
    return child


def simulate(state, rng):
    while not state.is_terminal():
        state = state.play(rng.choice(state.legal_actions()))
    return state.returns()


def backpropagate(path, returns):
    for node in path:
        node.visits += 1
        node.wins += reward(returns, node.player)


SQRT2 = math.sqrt(2)


def mcts_search(state, iterations, c=SQRT2, expand_threshold=1, rng=None):
    """The exercise's loop, as a student might write it: a path grown until selection stops."""
    rng = rng or random.Random()
    root = Node(state)
    for _ in range(iterations):
        path = [root]
        while path[-1].children and not path[-1].untried:
            path.append(select_child(path[-1], c))
        leaf = path[-1]
        ready = leaf is root or leaf.visits >= expand_threshold
        if leaf.untried and ready:
            path.append(expand(leaf, rng))
        backpropagate(path, simulate(path[-1].state, rng))
    return root


# -- the tests -----------------------------------------------------------------------------------
@pytest.mark.parametrize("state", [BLOCK, ConnectFour.from_moves("4 4 3")], ids=["ttt", "c4"])
@pytest.mark.parametrize("threshold", [1, 10])
def test_the_recorded_tree_is_the_functions_tree_after_every_k(state, threshold):
    recorder = FunctionRecorder(state, expand_threshold=threshold, seed=5, search=mcts_search)
    recorder.run(40)
    recorder.run(30)  # a second, longer run from the start must repeat the first 40
    assert recorder.done >= 70
    for k in (1, 9, 40, 70):
        expected = agent_tree(mcts_search(state, k, math.sqrt(2), threshold, random.Random(5)))
        assert recorder.stats(k) == expected, k
        assert recorder.rebuilt_stats(k) == expected, k


def test_each_iteration_is_one_backpropagate_call_with_its_playout():
    recorder = FunctionRecorder(BLOCK, expand_threshold=3, seed=6, search=mcts_search)
    recorder.run(30)
    for it in recorder.iterations:
        state = recorder.nodes[it.path[-1]].state
        for action in it.moves:
            state = state.play(action)
        assert state.is_terminal() and tuple(state.returns()) == it.returns
        assert it.rewards == tuple(
            reward(it.returns, recorder.nodes[key].player) for key in it.path
        )
        if it.expanded is not None:  # added by this iteration: no node before it, one visit after
            assert it.expanded not in recorder.rebuilt_stats(it.number - 1)
            assert recorder.rebuilt_stats(it.number)[it.expanded][0] == 1


def test_the_session_and_widget_show_a_function_style_search():
    session = function_session("tictactoe", [4, 0, 8, 6], math.sqrt(2), 3, 6, mcts_search)
    view = session.view(16, 3, [], 9, "")
    assert view["nodes"][0]["visits"] == 15 and view["step"]["number"] == 16
    assert view["step"]["playout"] is not None  # the playout's moves, noted from rng.choice
    assert 'data-node=""' in view["tree_svg"]
    pytest.importorskip("ipywidgets")
    from mcts_course.explorer_widget import ExplorerWidget

    widget = ExplorerWidget("tictactoe", "b2 a1 c3 a3", threshold=3, seed=6, search=mcts_search)
    widget.count.value = 16
    widget.run.click()
    assert widget.view["nodes"] == session.view(16, 4, [], 1, "")["nodes"]
    assert widget.view["tree_svg"] in widget.screen.value


def with_functions(**functions):
    """mcts_search calling other functions of the same names (a student's variant)."""
    namespace = dict(mcts_search.__globals__, **functions)
    return types.FunctionType(
        mcts_search.__code__, namespace, "mcts_search", (math.sqrt(2), 1, None)
    )


def test_a_search_that_breaks_the_contract_is_reported():
    def unseeded_expand(node, rng):
        return expand(node, random.Random())  # draws outside the search's rng: runs differ

    recorder = FunctionRecorder(BLOCK, seed=1, search=with_functions(expand=unseeded_expand))
    recorder.run(40)
    with pytest.raises(ValueError, match="did not repeat"):
        recorder.run(200)

    def double_counting(path, returns):
        for node in path:
            node.visits += 2

    broken = with_functions(backpropagate=double_counting)
    with pytest.raises(ValueError, match="one visit"):
        FunctionRecorder(BLOCK, seed=1, search=broken).run(5)
    with pytest.raises(ValueError, match="playouts to the end"):
        FunctionRecorder(BLOCK, seed=1, playout_depth=3, search=mcts_search)
