"""Blame the function that looped: an infinite loop costs the tests of that function (and of
those that call it), is reported on it, the same way run after run, and the correct functions
keep their points.  Graded for real (as root: in the sandbox), one exercise set."""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_fixtures.mutants import build, edited
from mcts_grader.batch import grade

# name: (text of the reference's ttt_mcts.py, replacement, the function at fault)
LOOPS = {
    # mcts_search never counts its iterations: it calls the correct select_child, expand,
    # simulate and backpropagate again and again; whichever of them runs when the time is up,
    # the loop is mcts_search's.
    "search_never_ends": ("    for _ in range(iterations):", "    while True:", "mcts_search"),
    # the player's own method loops: reported on the class, not on the search it called before
    "player_loops": (
        "        return best_action(root)\n\n\ndef play_game",
        "        while True:\n            pass\n\n\ndef play_game",
        "MCTSPlayer",
    ),
}


def graded(name: str, base: Path) -> dict[str, tuple[str, float, str]]:
    """Test name -> (status, points, message) of the submission ``name`` on ttt_mcts."""
    old, new, _ = LOOPS[name]
    folder = build("reference", base / name, files=("ttt_mcts",))
    (folder / "ttt_mcts.py").write_text(edited("ttt_mcts", old, new))
    (result,) = grade([folder], base / f"out-{name}", sets=["ttt_mcts"], n_jobs=1)
    return {o.test.split("::")[-1]: (o.status, o.score, o.output) for o in result.outcomes}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, list[dict]]:
    base = tmp_path_factory.mktemp("loops")
    return {name: [graded(name, base / str(i)) for i in range(2)] for name in LOOPS}


@pytest.mark.parametrize("name", list(LOOPS))
def test_the_loop_is_reported_on_its_function_run_after_run(runs, name):
    culprit = LOOPS[name][2]
    first, second = runs[name]
    stopped = [(test, o[2]) for test, o in first.items() if o[0] == "timed out"]
    assert len(stopped) == 1, stopped
    assert f"your `{culprit}` did not return" in stopped[0][1], stopped
    not_run = [o[2] for o in first.values() if o[0] == "not run"]
    assert not_run and all(f"`{culprit}` timed out" in text for text in not_run), not_run
    # the same verdict, test by test, in a second run
    assert {t: o[:2] for t, o in first.items()} == {t: o[:2] for t, o in second.items()}


def test_the_correct_functions_keep_their_points(runs):
    """The functions the looping search calls are right: their own tests pass."""
    for name in LOOPS:
        outcomes = runs[name][0]
        for test in (
            "test_ucb1_values",
            "test_select_child_highest_ucb1",
            "test_expand",
            "test_simulate_statistics",
            "test_backprop_rewards",
        ):
            assert outcomes[test][0] == "passed", (name, test, outcomes[test])
    player = runs["player_loops"][0]
    assert player["test_search_counts"][0] == "passed"  # the search itself is right
