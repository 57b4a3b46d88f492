"""Trivial or gaming submissions earn 0 (issue 24, part E), graded for real (as root: in the
sandbox) with the grader's tests and the public checks, and the reference keeps full marks.

Every test must tell a right solution from a wrong one: a stub returning a constant, its first
argument, the literal a visible test expects, a root with one leaf child, or answers read off
the test's inputs, scores nothing on it.  (The learning set's checks belong to another part of
the work and are graded here for the record only.)"""

from __future__ import annotations

import pytest
from grading_fixtures.attacks import GAMING, TRIVIAL, build_gaming, build_trivial
from grading_fixtures.mutants import CAUGHT_BY, build
from mcts_grader.batch import grade

CHECKED = ("ttt_mcts", "connect4", "alphabeta", "bandits")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("attacks")
    subs = base / "subs"
    subs.mkdir(mode=0o700)  # a batch's submissions: root's alone
    folders = [build_trivial(v, subs / v) for v in TRIVIAL]
    folders.append(build_gaming(subs / "gaming"))
    folders.append(build("reference", subs / "reference"))
    return {g.name: g for g in grade(folders, base / "out", n_jobs=2)}


@pytest.mark.parametrize("name", [*TRIVIAL, "gaming"])
def test_an_attack_scores_nothing_on_any_test(graded, name):
    scored = [
        (o.test.split("::")[-1], o.score)
        for o in graded[name].outcomes
        if o.score > 0 and any(f"test_{s}.py" in o.test for s in CHECKED)
    ]
    assert scored == [], scored


def test_the_gaming_folder_attacks_every_checked_set():
    assert set(CHECKED) <= set(GAMING)


def test_the_reference_keeps_full_marks(graded):
    reference = graded["reference"]
    assert reference.score == reference.max_score > 0, [
        (o.test, o.output[:200]) for o in reference.outcomes if not o.passed
    ]


def test_a_player_that_does_not_search_scores_nothing_as_a_player(tmp_path):
    """Red-team round 2, attack 12: a cached negamax posing as MCTSPlayer beside a dummy
    mcts_search took 8 of the player's 10 points (its strength and interface tests): the player
    tests now compare its first move with best_action of its own mcts_search's tree.  Only its
    honest play_game keeps its point."""
    sub = build("player_without_mcts", tmp_path / "subs" / "negamax", files=("ttt_mcts",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["ttt_mcts"])
    scored = {o.test.split("::")[-1]: o.score for o in result.outcomes if o.score > 0}
    assert scored == {"test_play_game": 1.0}, scored


def test_bandit_policies_that_know_one_rule_each_score_nothing(tmp_path):
    """Policies that play the unplayed arm first, then always the best mean (no UCB1 bonus, no
    exploration, no softmax draw), took 3 of 17 points: each test now also checks the rule of
    the policy it is not about."""
    sub = build("bandits_one_rule_each", tmp_path / "subs" / "one-rule", files=("bandits",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["bandits"])
    assert result.score == 0, [(o.test, o.score) for o in result.outcomes if o.score]


@pytest.mark.parametrize("name", ["compare_without_games", "monte_carlo_without_playouts"])
def test_bandits_without_games_or_playouts_score_nothing(tmp_path, name):
    """Red-team 3 attacks 02 and 05: compare_policies returning the public test's recorded
    scores without a game (5 of 17 points), monte_carlo_move feeding the policy made-up rewards
    and returning a negamax's move (3 of 17): the grader now works the contracts out itself on
    drawn seeds and checks the rewards shown to its policy and the generator's draws."""
    sub = build(name, tmp_path / "subs" / name, files=("bandits",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["bandits"])
    assert result.score == 0, [(o.test, o.score) for o in result.outcomes if o.score]


def test_a_connect4_player_without_search_scores_nothing_as_a_player(tmp_path):
    """Red-team 3 attack 04: a Connect Four MCTSPlayer of win/block/centre rules and no search
    took the 5 points of the strength tests (7 replaying the recorded contract moves): they now
    ask for the player's own mcts_search, and the contract test draws its boards and seeds."""
    sub = build("connect4_player_rules_no_search", tmp_path / "subs" / "rules", files=("connect4",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["connect4"])
    scored = {o.test.split("::")[-1] for o in result.outcomes if o.score > 0}
    assert not scored & {
        "test_player_takes_the_win",
        "test_player_blocks",
        "test_player_beats_random",
        "test_player_follows_the_contract",
    }, scored


def test_a_forged_tree_scores_nothing_for_the_search(tmp_path):
    """Red-team 3 attack 03: a negamax's move in a forged tree whose visits add up (13 of 39
    points): the trees' wins must now be rewards of played games and the generator must have
    made the expansions' draws, so no test of the search or the player passes; only the honest
    best_action's points remain."""
    sub = build("forged_tree", tmp_path / "subs" / "forged", files=("ttt_mcts",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["ttt_mcts"])
    scored = {o.test.split("::")[-1]: o.score for o in result.outcomes if o.score > 0}
    assert set(scored) <= {"test_best_action", "test_best_action_ties"}, scored


def test_a_forged_tree_with_winning_rewards_scores_nothing_for_the_search(tmp_path):
    """Red-team 4 attack 07: the forged tree again, its winning child's wins made its visits,
    with honest loops around it in play_game and experiment, took 6 points (finding the winning
    move, the experiment's rows): those tests now search again with the rows' parameters and
    the generator kept, and the tree must come with the expansions' draws.  Only the honest
    best_action and play_game keep their points."""
    _forged_scores_only_its_honest_parts(tmp_path, "forged_tree_residual")


def test_a_forged_tree_with_burnt_draws_and_settled_rewards_scores_nothing(tmp_path):
    """The same forger doing the bookkeeping: every node's wins made to add up, one draw burnt
    per node.  Draws, counts and rewards check; the order of UCB1's choices does not (at each
    node, the child of the last pass had the highest UCB1 before it), so the tests of trees
    give it nothing."""
    _forged_scores_only_its_honest_parts(tmp_path, "forged_tree_consistent")


def _forged_scores_only_its_honest_parts(tmp_path, name: str) -> None:
    sub = build(name, tmp_path / "subs" / "forged", files=("ttt_mcts",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["ttt_mcts"])
    scored = {o.test.split("::")[-1]: o.score for o in result.outcomes if o.score > 0}
    assert not set(scored) & set(CAUGHT_BY[name]), scored
    assert set(scored) <= {"test_best_action", "test_play_game"}, scored


def test_learning_code_that_knows_one_rule_each_scores_nothing(tmp_path):
    """The temperature-0 target always, an unvisited child's score always, the smallest action
    always: 3 of 15 points before the limit, fpu and tie tests also asked about the general
    rule."""
    sub = build("learning_one_rule_each", tmp_path / "subs" / "one-rule", files=("learning",))
    sub.parent.chmod(0o700)
    (result,) = grade([sub], sets=["learning"])
    assert result.score == 0, [(o.test, o.score) for o in result.outcomes if o.score]
