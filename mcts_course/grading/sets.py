"""The exercise sets: one registry entry per set says everything the machinery needs.

Adding a set means writing its stub (``exercises/<name>.py``), its reference solution
(``grader/mcts_grader/solutions/<name>.py``), its tests (the public checks in
``mcts_course/grading/tests/test_<name>.py``, the tests that need the reference in
``grader/mcts_grader/tests/test_<name>.py``) and one :class:`ExerciseSet` line below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class ExerciseSet:
    name: str  # the file stem: exercises/<name>.py, grader/mcts_grader/solutions/<name>.py
    title: str
    exercises: tuple[str, ...]  # exercise ids, one column each in grades.csv
    functions: tuple[str, ...]  # names a submission defines (used to recognise notebooks)
    notebook: str  # the book chapter holding the stubs as cells
    # The student's functions each one uses by its contract (for "not run: `simulate` timed
    # out"): a test calling mcts_search is not run once simulate has hung.
    depends: MappingProxyType[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    @property
    def public_tests_module(self) -> str:
        """The checks students run (shipped in this package: no reference code needed)."""
        return f"mcts_course.grading.tests.test_{self.name}"

    @property
    def reference_tests_module(self) -> str:
        """The grader's tests of the set that need its reference solution."""
        return f"mcts_grader.tests.test_{self.name}"

    @property
    def solution_module(self) -> str:
        return f"mcts_grader.solutions.{self.name}"


def _uses(**depends: tuple[str, ...]) -> MappingProxyType[str, tuple[str, ...]]:
    return MappingProxyType(depends)


SETS: dict[str, ExerciseSet] = {
    s.name: s
    for s in (
        ExerciseSet(
            "ttt_mcts",
            "Tic-tac-toe MCTS",
            ("ttt_selection", "ttt_backprop", "ttt_experiments", "ttt_player"),
            (
                "ucb1",
                "select_child",
                "simulate",
                "backpropagate",
                "expand",
                "mcts_search",
                "best_action",
                "experiment",
                "MCTSPlayer",
                "play_game",
                "play_human",
            ),
            "17_tictactoe_exercises",
            _uses(
                select_child=("ucb1",),
                mcts_search=("select_child", "expand", "simulate", "backpropagate"),
                experiment=("mcts_search", "best_action"),
                MCTSPlayer=("mcts_search", "best_action"),
            ),
        ),
        ExerciseSet(
            "connect4",
            "Connect Four rules and player",
            ("connect4",),
            ("legal_columns", "drop", "is_win", "MCTSPlayer"),
            "18_connect4_exercises",
            # the rules through Position; the search watched (not graded here: exercise 1-4's)
            _uses(MCTSPlayer=("legal_columns", "drop", "is_win", "mcts_search", "best_action")),
        ),
        ExerciseSet(
            "alphabeta",
            "Alpha-beta on Othello",
            ("alphabeta",),
            ("alphabeta", "best_move"),
            "18_connect4_exercises",
            _uses(best_move=("alphabeta",)),
        ),
        ExerciseSet(
            "bandits",
            "Bandit policies for flat Monte Carlo",
            ("bandits",),
            (
                "ucb1_choice",
                "epsilon_greedy_choice",
                "softmax_choice",
                "monte_carlo_move",
                "compare_policies",
            ),
            "18_connect4_exercises",
            _uses(
                compare_policies=(
                    "monte_carlo_move",
                    "ucb1_choice",
                    "epsilon_greedy_choice",
                    "softmax_choice",
                )
            ),
        ),
        ExerciseSet(
            "learning",
            "Training targets and PUCT's selection",
            ("learning",),
            ("policy_target", "value_targets", "puct_score", "puct_select"),
            "19_learning_exercises",
            _uses(puct_select=("puct_score",)),
        ),
    )
}

# Derived from SETS (nothing to edit here when a set is added).
DEPENDS: dict[str, MappingProxyType[str, tuple[str, ...]]] = {
    s.name: s.depends for s in SETS.values()
}
# Every exercise id, in the order of the grades.csv columns, and the set that holds it.
EXERCISES: tuple[str, ...] = tuple(e for s in SETS.values() for e in s.exercises)
SET_OF: dict[str, str] = {e: s.name for s in SETS.values() for e in s.exercises}


def exercise_set(name: str) -> ExerciseSet:
    """The set called ``name``; ValueError naming the valid ones otherwise."""
    try:
        return SETS[name]
    except KeyError:
        raise ValueError(
            f"unknown exercise set {name!r}; choose one of: {', '.join(SETS)}"
        ) from None
