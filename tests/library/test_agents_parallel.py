"""Parallel MCTS: the merge of the root parallelization, the virtual loss of the tree
parallelization, the spec, and the worker processes."""

from __future__ import annotations

import copy
import pickle
import sys

import pytest

from mcts_course.agents import MCTSAgent, make_agent
from mcts_course.agents.mcts import Node
from mcts_course.agents.parallel import (
    RootParallelAgent,
    TreeParallelAgent,
    merge_roots,
    most_visited,
    parallel_agent,
    search_one,
    shutdown_workers,
    split,
)
from mcts_course.arena import match
from mcts_course.games import ConnectFour, Othello, TicTacToe


# -- root parallelization ---------------------------------------------------------------------
def test_the_merge_sums_visits_and_wins_move_by_move():
    # Worked by hand: move 0 has 3 + 4 = 7 visits, move 1 has 5, move 2 has 6.  Move 2 is the
    # most visited in the second tree and move 1 in the first, but move 0 has most in all.
    first = {0: (3, 2.0), 1: (5, 1.0)}
    second = {0: (4, 3.5), 2: (6, 6.0)}
    assert merge_roots([first, second]) == {0: (7, 5.5), 1: (5, 1.0), 2: (6, 6.0)}
    assert most_visited(merge_roots([first, second])) == 0
    assert most_visited({3: (4, 1.0), 1: (4, 3.0), 5: (2, 2.0)}) == 1  # a tie: the smaller
    assert merge_roots([]) == {}


def test_a_total_budget_is_shared_out_evenly():
    assert split(10, 2) == [5, 5]
    assert split(11, 3) == [4, 4, 3]
    assert sum(split(1001, 4)) == 1001


def test_one_worker_search_is_the_plain_search_with_its_seed():
    state = ConnectFour.from_moves("4 4 3")
    stats, done = search_one(MCTSAgent(300), state, seed=7, iterations=300, time_limit=None)
    plain = MCTSAgent(300, seed=7)
    root = plain.search(state)
    assert done == 300
    assert stats == {a: (ch.visits, ch.wins) for a, ch in root.children.items()}


def test_root_parallel_merges_the_trees_of_its_workers():
    state = Othello()
    agent = RootParallelAgent(MCTSAgent(400), workers=2, seed=3)
    action = agent.select_action(state)
    assert action in state.legal_actions()
    assert agent.last_iterations == 400
    root = agent.last_root
    assert root.visits == sum(ch.visits for ch in root.children.values()) == 400
    # The same two searches, run here one after the other, give the same merged root.
    seeds = _worker_seeds(3, 2)  # the seeds the agent drew for its two workers
    trees = [search_one(MCTSAgent(400), state, s, 200, None)[0] for s in seeds]
    assert merge_roots(trees) == {a: (ch.visits, ch.wins) for a, ch in root.children.items()}
    assert action == most_visited(merge_roots(trees))


def _worker_seeds(seed: int, workers: int) -> list[int]:
    import random

    rng = random.Random(seed)
    return [rng.randrange(2**32) for _ in range(workers)]


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_root_parallel_plays_legal_moves_and_repeats_with_its_seed(game):
    def moves(seed):
        agent = make_agent(f"mcts:iterations=60,workers=2,seed={seed}")
        state, played = game(), []
        for _ in range(6):
            action = agent.select_action(state)
            assert action in state.legal_actions()
            played.append(action)
            state = state.play(action)
        return played

    assert moves(1) == moves(1)


def test_root_parallel_with_a_time_limit_searches_in_every_worker():
    agent = make_agent("mcts:time_limit=0.05,workers=2,seed=0")
    agent.select_action(ConnectFour())
    assert agent.last_iterations >= 2  # at least one per worker; speed is measured, not tested


def test_root_parallel_refuses_tree_reuse():
    with pytest.raises(ValueError, match="tree_reuse"):
        RootParallelAgent(MCTSAgent(100, tree_reuse=True), workers=2)


# -- tree parallelization ---------------------------------------------------------------------
def test_virtual_loss_sends_the_next_thread_elsewhere():
    agent = TreeParallelAgent(MCTSAgent(100), workers=2, seed=0)
    root = Node(TicTacToe())
    root.untried = []
    for action in (0, 4):  # two children with the same statistics: UCB1 ties
        child = Node(root.state.play(action), action, 0)
        child.visits, child.wins = 1, 0.5
        root.children[action] = child
    root.visits = 2
    first = agent.descend(root)
    second = agent.descend(root)  # before the first has backed up its result
    assert first[1].action == 0 and second[1].action == 4
    # Without the virtual loss the second thread would follow the first.
    for node in first:
        node.visits -= 1
    assert agent.base.select(root)[1].action == 0


def test_ascend_replaces_the_virtual_loss_by_the_result():
    agent = TreeParallelAgent(MCTSAgent(100), workers=2, seed=0)
    root = Node(ConnectFour())
    path = agent.descend(root)
    assert [n.visits for n in path] == [1, 1] and [n.wins for n in path] == [0.0, 0.0]
    agent.ascend(path, (1, -1))  # player 0 (who moved into the child) won
    assert [n.visits for n in path] == [1, 1] and path[1].wins == 1.0


def _check_counts(node: Node) -> int:
    """Every visit of a node is its own evaluation or one of a child's: a non-terminal node
    created by expansion was evaluated once, a terminal one at every visit, the root never."""
    below = sum(_check_counts(child) for child in node.children.values())
    if node.state.is_terminal():
        assert not node.children
    elif node.action is None:
        assert node.visits == below
    else:
        assert node.visits == below + 1
    assert 0 <= node.wins <= node.visits
    return node.visits


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_tree_parallel_loses_no_update(game):
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    try:
        agent = TreeParallelAgent(MCTSAgent(1500), workers=4, seed=1)
        root = agent.search(game())
    finally:
        sys.setswitchinterval(old)
    assert agent.last_iterations == 1500
    assert root.visits == 1500 == _check_counts(root)


def test_tree_parallel_with_a_time_limit_and_a_move():
    agent = make_agent("mcts:time_limit=0.05,workers=2,parallel=tree,seed=0")
    state = Othello()
    assert agent.select_action(state) in state.legal_actions()
    assert agent.last_root.visits == agent.last_iterations >= 1


def test_tree_parallel_runs_plain_uct_only():
    from mcts_course.agents import MCTSSolverAgent

    with pytest.raises(ValueError, match="parallel=root"):
        TreeParallelAgent(MCTSSolverAgent(100), workers=2)


def test_parallel_agents_copy_and_pickle():
    for agent in (
        make_agent("mcts:iterations=50,workers=2,parallel=tree,seed=2"),
        make_agent("mcts:iterations=50,workers=2,seed=2"),
    ):
        agent.select_action(TicTacToe())
        for clone in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
            assert clone.name == agent.name
            assert clone.select_action(TicTacToe()) in range(9)


# -- the spec ---------------------------------------------------------------------------------
def test_the_spec_builds_both_schemes_and_one_worker_is_plain_mcts():
    root = make_agent("mcts:iterations=100,workers=2,c=1.0")
    assert isinstance(root, RootParallelAgent) and root.workers == 2 and root.base.c == 1.0
    assert root.name == "MCTS(100,root×2)"
    tree = make_agent("mcts:time=0.1,workers=3,parallel=tree")
    assert isinstance(tree, TreeParallelAgent) and tree.time_limit == 0.1
    assert type(make_agent("mcts:iterations=100,workers=1")) is MCTSAgent
    assert parallel_agent(MCTSAgent(10), 1, "tree").name == "MCTS(10)"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:workers=0", "workers must be an integer >= 1"),
        ("mcts:workers=-2", "workers must be an integer >= 1"),
        ("mcts:workers=two", "not a number"),
        ("mcts:parallel=leaf", "choose one of: root, tree"),
        ("mcts:iterations=3,workers=4", "at least one per worker"),
        ("mcts:workers=2,reuse=1", "tree_reuse"),
        ("puct:workers=2", "unknown parameter 'workers'"),
    ],
)
def test_the_spec_refuses_bad_values_clearly(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec)


# -- processes --------------------------------------------------------------------------------
def test_a_match_gives_the_same_games_in_one_process_or_two():
    # In the arena's own worker processes joblib runs the searches in threads: with a
    # fixed number of iterations the games are the same.
    agent = make_agent("mcts:iterations=40,workers=2")
    one = match(TicTacToe, agent, MCTSAgent(40), games=4, seed=5, n_jobs=1)
    two = match(TicTacToe, agent, MCTSAgent(40), games=4, seed=5, n_jobs=2)
    assert one.returns == two.returns and one.moves == two.moves


def _pool_workers() -> list:
    """joblib's (loky's) worker processes below this one, alive."""
    psutil = pytest.importorskip("psutil")  # installed with ipykernel (the test extra)
    workers = []
    for process in psutil.Process().children(recursive=True):
        try:
            if "popen_loky_posix" in " ".join(process.cmdline()):
                workers.append(process)
        except psutil.NoSuchProcess:  # ended while we looked
            pass
    return workers


def test_no_worker_process_is_left_behind():
    make_agent("mcts:iterations=100,workers=2,seed=0").select_action(ConnectFour())
    assert 1 <= len(_pool_workers()) <= 2  # the search ran in joblib's reusable workers
    shutdown_workers()
    assert _pool_workers() == []
    shutdown_workers()  # nothing running: nothing to do


def test_tree_parallel_reuses_its_tree_between_moves():
    agent = make_agent("mcts:iterations=300,workers=2,parallel=tree,reuse=1,seed=4")
    state = ConnectFour()
    action = agent.select_action(state)
    reply = state.play(action).play(3)
    kept = agent.last_root.children[action].children[3]
    visits = kept.visits
    agent.select_action(reply)
    assert agent.last_root is kept and kept.visits == visits + 300
