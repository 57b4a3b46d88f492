"""MCTS (UCT): scenarios it must get right, statistics with the right sign, reproducibility."""

from __future__ import annotations

import math
import time

import pytest

from mcts_course.agents import MCTSAgent, Node, RandomRollout, Step, root_table, ucb1
from mcts_course.agents.exact import best_actions, exact_value
from mcts_course.agents.mcts import argmax, most_visited_child, robust_max
from mcts_course.agents.rollout import returns_for, reward, seen_by
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe


def immediate_wins(state):
    """The actions that win on the spot for the player to move."""
    me = state.current_player
    return [a for a in state.legal_actions() if state.play(a).winner() == me]


def losing_replies(state, action):
    """After ``action``, the opponent's moves that win at once."""
    return immediate_wins(state.play(action))


# (game, transcript, the correct moves): each transcript's last position is checked below to
# have that property, so the scenarios cannot silently go wrong.
WIN_SCENARIOS = [
    (TicTacToe, "a1 a2 b1 b2", ["c1"]),  # X wins on row 1 rather than blocking O's row 2
    (TicTacToe, "b2 a1 c1 a3 b3", ["a2"]),  # O: column a (a1 a3 + a2)
    (ConnectFour, "1 2 1 2 1 2", ["1"]),  # vertical four for Red
    (ConnectFour, "1 1 2 2 3 3", ["4"]),  # horizontal four for Red on the bottom row
    (ConnectFour, "4 5 5 6 6 7 6 7 7 1", ["7"]),  # diagonal four for Red
]
BLOCK_SCENARIOS = [
    (TicTacToe, "b2 a1 c3 a2", ["a3"]),  # O threatens column a
    (TicTacToe, "a1 b2 a3", ["a2"]),  # X threatens column a; O must block
    (TicTacToe, "a1 b2 c3 b1", ["b3"]),  # O threatens column b (X's diagonal is broken)
    (ConnectFour, "1 2 1 2 1", ["1"]),  # Red threatens a vertical four
    (ConnectFour, "1 1 2 2 3", ["4"]),  # Red threatens the bottom row
]


@pytest.mark.parametrize("game, moves, answers", WIN_SCENARIOS)
def test_scenario_takes_the_immediate_win(game, moves, answers):
    state = game.from_moves(moves)
    assert [state.action_to_string(a) for a in immediate_wins(state)] == answers
    for seed in range(3):
        agent = MCTSAgent(iterations=1000, seed=seed)
        assert state.action_to_string(agent.select_action(state)) in answers


def blocking_moves(state):
    """The moves after which the opponent has no immediate win."""
    return [a for a in state.legal_actions() if not losing_replies(state, a)]


@pytest.mark.parametrize("game, moves, answers", BLOCK_SCENARIOS)
def test_scenario_blocks_the_immediate_loss(game, moves, answers):
    state = game.from_moves(moves)
    assert not immediate_wins(state)
    assert [state.action_to_string(a) for a in blocking_moves(state)] == answers
    for seed in range(3):
        agent = MCTSAgent(iterations=1500, seed=seed)
        assert state.action_to_string(agent.select_action(state)) in answers


# -- a perfect tic-tac-toe player: the package's exact solver ---------------------------------
def test_the_exact_solver_knows_tic_tac_toe_is_a_draw():
    assert exact_value(TicTacToe()) == 0
    assert len(best_actions(TicTacToe())) == 9  # every first move draws


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mcts_player", [0, 1])
def test_never_loses_tic_tac_toe_to_a_perfect_player(seed, mcts_player):
    import random

    agent = MCTSAgent(iterations=2000, seed=seed)
    rng = random.Random(100 + seed)  # the perfect player varies among its perfect moves
    state = TicTacToe()
    while not state.is_terminal():
        if state.current_player == mcts_player:
            state = state.play(agent.select_action(state))
        else:
            state = state.play(rng.choice(best_actions(state)))
    assert state.returns()[mcts_player] == 0  # a draw: the best anyone can do


# -- the statistics keep the right sign --------------------------------------------------------
def walk(node: Node):
    yield node
    for child in node.children.values():
        yield from walk(child)


def check_signs(root: Node) -> int:
    """Every node's ``wins`` belong to the player who moved into it; returns the number of
    terminal nodes checked."""
    terminal = 0
    for node in walk(root):
        for child in node.children.values():
            assert child.player == node.state.current_player
            assert child.state == node.state.play(child.action)
            assert 0 <= child.wins <= child.visits
        if node is not root and node.state.is_terminal():
            # every visit of a finished game scores the same: its result for node.player
            assert node.wins == pytest.approx(
                node.visits * reward(node.state.returns(), node.player)
            )
            terminal += 1
        assert node.visits >= sum(ch.visits for ch in node.children.values())
    assert root.visits == sum(ch.visits for ch in root.children.values())  # root always expanded
    return terminal


@pytest.mark.parametrize(
    "game, moves",
    [
        (TicTacToe, "a1 a2 b1 b2"),
        (ConnectFour, "1 2 1 2 1 2"),
        (Othello, "c4 e3 f5 c5 c6 d6 f2 e6 e7 f7"),
    ],
)
def test_winning_child_has_mean_one_for_the_mover(game, moves):
    state = game.from_moves(moves)
    (win,) = immediate_wins(state)
    agent = MCTSAgent(iterations=300, seed=1)
    root = agent.search(state)
    child = root.children[win]
    assert child.player == state.current_player
    assert child.mean == 1.0  # would be 0 if rewards were counted for the wrong player
    assert agent.select_action(state) == win
    assert check_signs(root) > 0


def test_opponent_wins_deep_in_the_tree_count_for_the_opponent():
    # X to move with no win; most moves let O win at once.  Those replies are grandchildren of
    # the root, and their mean must be 1 for O (the player who moved into them).
    state = TicTacToe.from_moves("b2 a1 c3 a2")
    root = MCTSAgent(iterations=2000, seed=3).search(state)
    o_wins = 0
    for action, child in root.children.items():
        for reply in losing_replies(state, action):
            grandchild = child.children[reply]
            assert grandchild.player == 1
            assert grandchild.mean == 1.0
            o_wins += 1
    assert o_wins == 4  # every move but a3 lets O complete column a
    assert check_signs(root) > 10
    # ... and so the root sees every move but the block as (nearly) lost
    best = max(root.children.values(), key=lambda ch: ch.visits)
    assert state.action_to_string(best.action) == "a3"
    assert best.mean > max(ch.mean for ch in root.children.values() if ch is not best)


PASS_ENDGAME = (
    "d3 e3 f5 c3 b2 b3 d2 b1 a1 c5 f4 d6 c6 b6 a3 g3 d7 f3 b5 d1 g2 g6 c1 e6 h3 f2 g4 d8 c2 h1 e1 "
    "h4 e8 e2 c7 c8 c4 b7 e7 b4 b8 a4 a6 f7 g1 a5 f8 a2 f1 f6 h7 h5 g5 h6 g7"
)


def test_othello_tree_with_a_pass_keeps_signs():
    # White to move, five empty squares; h2 leaves Black without a move, so the tree holds
    # PASS nodes after which the same player moves again, and many finished games.
    state = Othello.from_moves(PASS_ENDGAME)
    assert state.current_player == 1
    assert state.play(state.parse_action("h2")).legal_actions() == [PASS]
    root = MCTSAgent(iterations=2000, seed=0).search(state)
    passes = [n for n in walk(root) if n.action == PASS]
    assert passes
    for node in passes:
        # the passer "moved into" the node; the other player moves after it, twice in a row
        assert node.player != node.state.current_player
        for child in node.children.values():
            assert child.player == node.state.current_player
    assert check_signs(root) > 10


def test_selection_scores_children_with_ucb1():
    agent = MCTSAgent(iterations=50, c=0.7, seed=0)
    root = agent.search(TicTacToe())
    assert root.player == 1  # the root's "mover into" is the opponent of the player to move
    path = agent.select(root)

    def score(child):
        return ucb1(child.wins, child.visits, root.visits, 0.7), -child.action

    best = max(root.children.values(), key=score)
    assert path[:2] == [root, best]


def test_selection_ties_go_to_the_smallest_action():
    agent = MCTSAgent(iterations=1, seed=0)
    root = Node(TicTacToe())
    root.untried = []
    for action in (7, 2, 5):  # inserted out of order, all with the same statistics
        child = Node(root.state.play(action), action, 0)
        child.visits, child.wins = 3, 1.5
        root.children[action] = child
    root.visits = 9
    assert agent.select(root)[1].action == 2
    assert most_visited_child(root) == 2  # the final choice: equal visits, the smallest action
    root.children[5].visits = 4  # one more visit makes 5 the most visited, though not the first
    assert most_visited_child(root) == 5
    with pytest.warns(DeprecationWarning, match="most_visited_child"):
        assert robust_max(root) == 5  # the old name still answers, with a warning


def test_root_table_rows():
    agent = MCTSAgent(iterations=400, seed=2)
    state = ConnectFour()
    agent.select_action(state)
    rows = agent.root_table()
    assert len(rows) == 7
    assert sum(r["visits"] for r in rows) == 400
    assert {r["move"] for r in rows} == set("1234567")
    assert rows[0]["visits"] == max(r["visits"] for r in rows)
    for row in rows:
        assert row["mean"] == pytest.approx(row["wins"] / row["visits"])
        assert row["uct"] > row["mean"]
    assert root_table(agent.last_root, agent.c) == rows


# -- budgets, reproducibility, tree reuse ------------------------------------------------------
@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_same_seed_same_moves(game):
    def play(seed):
        agents = [MCTSAgent(iterations=60, seed=seed), MCTSAgent(iterations=60, seed=seed + 1)]
        state, moves = game(), []
        while not state.is_terminal() and len(moves) < 16:
            moves.append(agents[state.current_player].select_action(state))
            state = state.play(moves[-1])
        return moves

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_reseeding_repeats_the_search():
    agent = MCTSAgent(iterations=200, seed=0)
    first = root_table(agent.search(Othello()))
    agent.seed(0)
    assert root_table(agent.search(Othello())) == first


def test_time_limit_stops_the_search_early():
    agent = MCTSAgent(iterations=10**9, time_limit=0.05, seed=0)
    state = Othello()
    assert agent.select_action(state) in state.legal_actions()
    assert 1 <= agent.last_iterations < 10**9
    assert agent.last_root.visits == agent.last_iterations


def test_iterations_budget_is_exact():
    agent = MCTSAgent(iterations=123, seed=0)
    root = agent.search(ConnectFour())
    assert agent.last_iterations == root.visits == 123


@pytest.mark.parametrize("threshold", [1, 10, 20])
def test_expand_threshold(threshold):
    agent = MCTSAgent(iterations=500, expand_threshold=threshold, seed=0)
    root = agent.search(ConnectFour())
    for node in walk(root):
        if node is not root and node.children:
            # a node gets children once visited `threshold` times; each child adds at least one
            assert node.visits >= threshold + len(node.children)


def test_higher_expand_threshold_grows_a_smaller_tree():
    sizes = [
        len(list(walk(MCTSAgent(iterations=500, expand_threshold=t, seed=0).search(Othello()))))
        for t in (1, 10, 20)
    ]
    assert sizes[0] == 501  # threshold 1: one new node per iteration
    assert sizes[0] > sizes[1] > sizes[2]


def test_playout_cutoff_still_plays_well():
    state = ConnectFour.from_moves("1 2 1 2 1 2")
    agent = MCTSAgent(iterations=300, playout_depth=2, seed=0)
    assert agent.select_action(state) == 0
    othello = MCTSAgent(iterations=100, playout_depth=20, seed=0)
    assert othello.select_action(Othello()) in Othello().legal_actions()


def test_tree_reuse_keeps_the_subtree():
    agent = MCTSAgent(iterations=300, tree_reuse=True, seed=0)
    state = Othello()
    action = agent.select_action(state)
    after_move = state.play(action)
    reply = max(agent.last_root.children[action].children.values(), key=lambda n: n.visits)
    kept = reply.visits
    root = agent.search(after_move.play(reply.action))
    assert root is reply
    assert root.visits == kept + 300 > 300
    agent.reset()
    assert agent.search(after_move.play(reply.action)).visits == 300


def test_single_legal_action_needs_no_search():
    state = Othello.from_moves(
        "d3 c3 b3 d2 f5 b2 c2 f6 e2 c5 b1 a1 b5 f4 b4 c1 g3 f2 f7 e6 e1 c6 f1 g7 h7 f3 a2 h3 "
        "h4 h8 g4 a3 c7 b6 g6 h2 d7 g8 a5 d1 c4 g2 e7 a4 e3 d6 g5 a7 h1 g1 b7 a6"
    )
    assert state.legal_actions() == [PASS]
    assert MCTSAgent(iterations=10, seed=0).select_action(state) == PASS


def test_forced_move_leaves_its_own_root():
    agent = MCTSAgent(iterations=30, seed=0)
    agent.select_action(Othello())
    state = Othello.from_moves(
        "d3 c3 b3 d2 f5 b2 c2 f6 e2 c5 b1 a1 b5 f4 b4 c1 g3 f2 f7 e6 e1 c6 f1 g7 h7 f3 a2 h3 "
        "h4 h8 g4 a3 c7 b6 g6 h2 d7 g8 a5 d1 c4 g2 e7 a4 e3 d6 g5 a7 h1 g1 b7 a6"
    )
    assert agent.select_action(state) == PASS
    assert agent.last_root.state == state  # not the previous search's position
    assert agent.last_iterations == 0 and agent.root_table() == []


def test_default_budget_and_time_alone():
    assert MCTSAgent().iterations == 200
    agent = MCTSAgent(time_limit=0.1, seed=0)
    assert agent.iterations is None  # no hidden iteration cap
    started = time.perf_counter()
    agent.select_action(Othello())
    assert time.perf_counter() - started >= 0.1  # it searched for the whole time
    assert agent.last_root.visits == agent.last_iterations


def test_everything_after_the_budget_is_keyword_only():
    with pytest.raises(TypeError):
        MCTSAgent(200, 0.1)


class CountingEvaluator:
    """An evaluator that calls every leaf a draw and counts its calls."""

    def __init__(self):
        self.calls = 0

    def evaluate(self, state, rng):
        self.calls += 1
        return state.returns() if state.is_terminal() else (0, 0)


def test_evaluator_protocol():
    evaluator = CountingEvaluator()
    agent = MCTSAgent(iterations=40, evaluator=evaluator, seed=0)
    agent.search(ConnectFour())
    assert evaluator.calls == 40 and agent.playout_depth is None
    assert MCTSAgent(playout_depth=7).evaluator.playout_depth == 7
    with pytest.raises(ValueError, match="not both"):
        MCTSAgent(evaluator=RandomRollout(), playout_depth=5)
    with pytest.raises(TypeError):
        MCTSAgent(evaluator=lambda state, rng: (0, 0))


def test_step_is_one_iteration():
    agent = MCTSAgent(iterations=1, seed=0)
    root = Node(TicTacToe())
    first = agent.step(root)
    assert isinstance(first, Step)
    assert first.path[0] is root and first.path[-1] is first.expanded
    assert first.expanded.action in TicTacToe().legal_actions()
    assert root.visits == first.expanded.visits == 1
    for _ in range(8):
        agent.step(root)
    assert root.visits == 9 and len(root.children) == 9  # the root expands at every visit
    step = agent.step(root)  # the root is full: selection goes one level down first
    assert len(step.path) >= 2 and step.path[1] in root.children.values()


def test_bad_parameters():
    with pytest.raises(ValueError):
        MCTSAgent(expand_threshold=0)
    with pytest.raises(ValueError):
        MCTSAgent().select_action(TicTacToe.from_moves("a1 a2 b1 b2 c1"))  # game over


# -- other bandit rules at the tree's nodes (exercise 7 compares them with UCB1) ----------------
def node_with_children(stats: dict[int, tuple[float, int]]) -> Node:
    """A root of the empty tic-tac-toe board whose children have the given (wins, visits)."""
    root = Node(TicTacToe())
    root.untried = []
    for action, (wins, visits) in stats.items():
        child = Node(root.state.play(action), action, root.state.current_player)
        child.wins, child.visits = wins, visits
        root.children[action] = child
        root.visits += visits
    return root


def test_greedy_and_cold_softmax_tree_policies_descend_to_the_best_mean():
    root = node_with_children({4: (2.0, 10), 0: (9.0, 10), 8: (9.0, 10), 2: (5.0, 10)})
    greedy = MCTSAgent(policy="egreedy", epsilon=0.0, seed=1)
    cold = MCTSAgent(policy="softmax", temperature=0.001, seed=1)
    for _ in range(20):
        assert greedy.select_child(root).action == 0  # ties between means: the smallest action
        assert cold.select_child(root).action in (0, 8)
    assert [n.action for n in greedy.select(root)] == [None, 0]


def test_exploring_tree_policies_visit_every_child_and_ucb1_stays_uct():
    root = node_with_children({0: (9.0, 10), 4: (1.0, 10), 8: (5.0, 10)})
    for agent in (
        MCTSAgent(policy="egreedy", epsilon=1.0, seed=2),
        MCTSAgent(policy="softmax", temperature=100.0, seed=2),
    ):
        picks = [agent.select_child(root).action for _ in range(300)]
        assert min(picks.count(a) for a in (0, 4, 8)) > 60  # about 100 each
    uct = MCTSAgent(seed=3)
    best = max(root.children.values(), key=lambda ch: ucb1(ch.wins, ch.visits, root.visits))
    assert uct.select_child(root) is best


@pytest.mark.parametrize("policy", ["egreedy", "softmax"])
def test_other_tree_policies_still_find_an_immediate_win(policy):
    state = ConnectFour.from_moves("1 2 1 2 1 2")
    agent = MCTSAgent(400, policy=policy, seed=4)
    assert agent.select_action(state) in immediate_wins(state)
    assert agent.name == f"MCTS(400,{policy})"


def test_tree_policy_arguments_are_checked_and_spelled_as_in_flat_monte_carlo():
    from mcts_course.agents import make_agent

    agent = make_agent("mcts:iterations=50,policy=softmax,temperature=0.2,seed=1")
    assert (agent.policy, agent.temperature) == ("softmax", 0.2)
    with pytest.raises(ValueError, match="ucb1, egreedy, softmax"):
        MCTSAgent(policy="uniform")
    with pytest.raises(ValueError, match="epsilon"):
        MCTSAgent(policy="egreedy", epsilon=1.5)
    with pytest.raises(ValueError, match="policy"):
        make_agent("mcts-solver:policy=egreedy")
    from mcts_course.agents import MCTSSolverAgent, PUCTAgent, RAVEAgent, TranspositionMCTSAgent

    for cls in (MCTSSolverAgent, PUCTAgent, RAVEAgent, TranspositionMCTSAgent):  # own scores
        with pytest.raises(ValueError, match="policy= is for MCTSAgent"):
            cls(policy="softmax")


def test_argmax_breaks_ties_by_the_smallest_action_in_any_order():
    scores = {5: 1.0, 2: 1.0, 7: 0.5, 9: 1.0}
    assert argmax(scores, float) == 2
    assert argmax(dict(reversed(list(scores.items()))), float) == 2
    assert argmax({3: -math.inf, 1: -math.inf}, float) == 1  # even when nothing scores
    with pytest.raises(ValueError):
        argmax({}, float)


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("result", [1, 0, -1])
def test_the_reward_convention_is_zero_sum_and_round_trips(player, result):
    returns = returns_for(player, result)
    assert sum(returns) == 0 and returns[player] == result
    assert reward(returns, player) == {1: 1.0, 0: 0.5, -1: 0.0}[result]
    assert seen_by(reward(returns, player), player, 1 - player) == reward(returns, 1 - player)
    assert seen_by(reward(returns, player), player, player) == reward(returns, player)
