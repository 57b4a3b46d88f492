"""Red team round 28: every check of a search tree alone can be met by construction.  An
mcts_search with no search (a negamax, or a win/block/centre rule, chose the move) dressed the
move as the tree UCT would grow if every playout had ended "this move wins, every other loses":
its counts, wins, draws and last UCB1 choices added up, and it took 16 tic-tac-toe points (04)
and Connect Four's 5 public player points (03).  The tree is now grown again by the grader,
with the student's own four steps in the contract's loop, and must be the same tree."""

from __future__ import annotations

from pathlib import Path

from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS

ATTACKS = Path(__file__).parent / "attacks" / "round28"


def test_04_a_forged_tic_tac_toe_tree_earns_no_search_point(tmp_path):
    code = (ATTACKS / "forged_tree_ttt_mcts.py.txt").read_text()
    data = graded_file(tmp_path, "forger", "ttt_mcts.py", code, "--exercise-set=ttt_mcts")
    searched = [
        t
        for t in data["tests"]
        if t["name"].startswith(("[ttt_experiments]", "[ttt_player] MCTS", "[ttt_backprop] MCTS"))
        or "mcts_search" in t["name"]
    ]
    assert len(searched) >= 8 and all(t["score"] == 0 for t in searched), [
        (t["name"], t["score"]) for t in searched
    ]
    assert data["score"] <= 2, data["score"]  # best_action and play_game, written honestly


def test_03_a_forged_connect_four_tree_earns_no_player_point(tmp_path):
    code = (ATTACKS / "forged_tree_connect4.py.txt").read_text()
    data = graded_file(tmp_path, "forger", "connect4.py", code, "--exercise-set=connect4")
    players = [t for t in data["tests"] if "MCTS" in t["name"]]
    assert len(players) == 4 and all(t["score"] == 0 for t in players), players


CLIMBING = '''

def backpropagate(path, returns):
    """The same sums, found by climbing the parents from the leaf."""
    node = path[-1]
    while node is not None:
        node.visits += 1
        node.wins += reward(returns, node.player)
        node = node.parent
'''


def test_a_backpropagate_that_climbs_the_parents_is_grown_again_alike(tmp_path):
    """The grader's loop hands each step copies of the nodes it reads: parents included."""
    code = (SOLUTIONS / "ttt_mcts.py").read_text() + CLIMBING
    options = ["--exercise-set=ttt_mcts", "-k", "search_counts or player_beats or converges"]
    data = graded_file(tmp_path, "climber", "ttt_mcts.py", code, *options)
    assert len(data["tests"]) == 3 and all(t["score"] == t["max_score"] for t in data["tests"]), [
        (t["name"], t["output"][:300]) for t in data["tests"]
    ]
