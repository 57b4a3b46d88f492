"""The public checks (``mcts_course/grading/tests``) are trustworthy without the reference: the
library's engine they use agrees with the reference on their questions, and the grader's runs
hold every test exactly once; the grader's working of the contracts (``mcts_grader/tests``: a
student's install holds none of it, red team 32, 03 and 07) agrees with the reference too."""

from __future__ import annotations

import math
import random

from grading_fixtures.points import marks, modules
from mcts_grader.solutions import alphabeta, bandits, connect4, learning
from mcts_grader.tests import test_bandits as grader_bandits
from mcts_grader.tests import test_learning as grader_learning

from mcts_course.grading import invocation
from mcts_course.grading.public import disc_difference, weighted
from mcts_course.grading.sets import SETS
from mcts_course.grading.tests import test_alphabeta as public_alphabeta
from mcts_course.grading.tests import test_connect4 as public_connect4
from mcts_course.grading.tests import test_learning as public_learning


def test_the_connect4_engine_agrees_with_the_reference_rules():
    rng = random.Random(0)
    for i in range(1500):
        board = public_connect4.random_board(rng) if i % 2 else public_connect4.played_board(rng)
        assert public_connect4.open_columns(board) == connect4.legal_columns(board)
        for player in (0, 1):
            assert public_connect4.has_four(board, player) == connect4.is_win(board, player)


def test_the_bandit_contracts_agree_with_the_reference():
    """the grader's working of monte_carlo_move and compare_policies (drawn seeds)"""
    rng = random.Random(2)
    for _ in range(20):
        state, seed = grader_bandits.random_state(rng), rng.randrange(2**31)
        for name, policy in grader_bandits.CONTRACT_POLICIES.items():
            mine, theirs = random.Random(seed), random.Random(seed)
            want = bandits.monte_carlo_move(state, 30, bandits.make_policy(name), theirs)
            assert grader_bandits.contract_move(state, 30, policy, mine)[0] == want
            assert mine.getstate() == theirs.getstate()
    for playouts, games in ((2, 8), (5, 5), (20, 4)):
        seed = rng.randrange(2**31)
        policies = ("ucb1", "uniform")
        want = bandits.compare_policies(policies, playouts=playouts, games=games, seed=seed)
        assert grader_bandits.contract_scores(policies, playouts, games, seed) == want
        first, again = grader_bandits.Scripted(), grader_bandits.Scripted()
        want = bandits.compare_policies(
            policies, playouts=3, games=games, seed=seed, opponent=first
        )
        got = grader_bandits.contract_scores(policies, 3, games, seed, opponent=again)
        assert got == want and first.turns == again.turns


def test_the_minimax_engine_agrees_with_the_reference():
    """values and leaves of minimax, and the leaves and node counts of alpha-beta"""
    for state in public_alphabeta.positions(7, 4, 4) + public_alphabeta.positions(7, 2, 4, True):
        for depth in (1, 2, 3):
            for evaluate in (weighted, disc_difference):
                leaves = public_alphabeta.Leaves(evaluate)
                value = alphabeta.minimax(state, depth, 0, leaves)
                assert (value, len(leaves.seen)) == public_alphabeta.minimax(
                    state, depth, 0, evaluate
                )
                stats, leaves = {"nodes": 0}, public_alphabeta.Leaves(evaluate)
                assert alphabeta.alphabeta(state, depth, 0, leaves, stats=stats) == value
                want = public_alphabeta.alphabeta_leaves(state, depth, 0, evaluate)
                assert (leaves.seen, stats["nodes"]) == want


def test_the_learning_definitions_agree_with_the_reference():
    rng = random.Random(1)
    for _ in range(500):
        visits = grader_learning.root_visits(rng, most=rng.choice([12, 400, 2000]))
        for temperature in (0.0, 0.01, 0.5, 1.0, 3.0):
            want = learning.policy_target(visits, temperature)
            got = grader_learning.target_shares(visits, temperature)
            assert all(math.isclose(got[a], want[a], abs_tol=1e-12) for a in visits)
    for _ in range(200):
        root, priors = grader_learning.tree_with_priors(rng, shuffle=True)
        want = learning.puct_select(root, priors, 1.5, 0.5).action
        assert grader_learning.highest_puct(root, priors, 1.5, 0.5) == want


def test_the_recorded_learning_answers_are_the_reference_s():
    """the public learning checks' answers, recorded for fixed questions"""
    for visits, temperature, want in public_learning.TARGETS:
        got = learning.policy_target(visits, temperature)
        assert set(got) == set(want) and all(math.isclose(got[a], want[a]) for a in want)
    for game, moves, want in public_learning.GAMES:
        positions, final = public_learning._record(game, moves)
        assert final.is_terminal() and learning.value_targets(positions, final) == want
    for args, want in public_learning.UNVISITED.items():
        assert math.isclose(learning.puct_score(*args), want)


def test_every_set_has_public_checks_and_no_test_twice():
    """Each set's points are split between its public module and the grader's, never counted
    twice (a test name in both would be graded twice)."""
    for name in SETS:
        public, *reference = modules(name)
        assert public.__name__ == SETS[name].public_tests_module
        assert marks(name, public_only=True), name
        names = [test for test, _, _ in marks(name)]
        assert len(names) == len(set(names)), name
        for module in reference:  # what needs the reference imports it; the public never
            assert "mcts_grader.solutions" in module.__dict__.get("ref").__name__


def test_the_invocation_collects_the_grader_s_tests_for_a_grade_only():
    student = invocation.pytest_args("sub")
    grading = invocation.pytest_args("sub", reference=True)
    assert "mcts_grader.tests" not in student and "mcts_grader.tests" in grading
    assert student[student.index("--pyargs") + 1] == "mcts_course.grading"
    assert invocation.pytest_args(options=["-x"])[-1] == "-x"  # the caller's options last


def test_the_grader_s_package_is_named_private_without_naming_it():
    """the plugin hides the folders of the packages declaring reference tests from the
    student's process: the reference solutions are in them"""
    folders = invocation.grader_packages()
    assert any((folder / "solutions" / "ttt_mcts.py").is_file() for folder in folders), folders
    assert not any((folder / "games").is_dir() for folder in folders)  # not the library
