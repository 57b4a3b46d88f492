"""Deliberately wrong solutions (mutants) and hostile submissions, for the grader's tests.

Each one is the reference solution with one edit, so that only the edited part should lose
points.  ``build(name, folder)`` writes the four exercise files of a submission into ``folder``.
"""

from __future__ import annotations

from pathlib import Path

import mcts_course.solutions as solutions

SOLUTIONS = Path(solutions.__file__).parent
SET_FILES = ("ttt_mcts", "connect4", "alphabeta", "bandits")

# name: (file, text in the reference, replacement, the exercise that must lose points)
MUTANTS = {
    "backprop_no_sign_flip": (
        "ttt_mcts",
        "node.wins += reward(returns, node.player)",
        "node.wins += reward(returns, path[-1].player)",  # the leaf's mover at every level
        "ttt_backprop",
    ),
    "select_fewest_visits": (
        "ttt_mcts",
        "key=lambda a: ucb1(node.children[a].wins, node.children[a].visits, node.visits, c),",
        "key=lambda a: -node.children[a].visits,",
        "ttt_selection",
    ),
    "simulate_first_legal": (
        "ttt_mcts",
        "state = state.play(rng.choice(state.legal_actions()))\n    return state.returns()",
        "state = state.play(state.legal_actions()[0])\n    return state.returns()",
        "ttt_selection",
    ),
    "connect4_missing_diagonal": (
        "connect4",
        "DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))",
        "DIRECTIONS = ((1, 0), (0, 1), (1, 1))",
        "connect4",
    ),
    "alphabeta_wrong_bound": (
        "alphabeta",
        "beta = min(beta, value)\n        if alpha >= beta:",
        "beta = min(beta, value)\n        if value <= beta:  # wrong: compares with beta",
        "alphabeta",
    ),
}

# name: (file, text in the reference, replacement, what the grader must say)
HOSTILE = {
    "infinite_loop": (
        "ttt_mcts",
        '    """One row per (iterations, c, threshold, seed): the chosen move and its value."""',
        '    """Loops forever."""\n    while True:\n        pass',
        "time limit",
    ),
    "uncatchable_loop": (
        "ttt_mcts",
        "        print_fn(str(state))\n        if state.current_player == human:",
        "        while True:  # swallows the grader's timeout signal\n"
        "            try:\n                while True:\n                    pass\n"
        "            except BaseException:\n                pass\n"
        "        if state.current_player == human:",
        "time limit",
    ),
    "os_exit": (
        "connect4",
        "    new = [list(col) for col in board]",
        "    import os\n\n    os._exit(3)\n    new = [list(col) for col in board]",
        "exited with status 3",
    ),
    "sys_exit_at_import": (
        "bandits",
        "Policy = Callable[",
        "import sys\n\nsys.exit(1)\nPolicy = Callable[",
        "sys.exit(1)",
    ),
    "raise_at_import": (
        "alphabeta",
        "Evaluate = Callable[",
        'raise RuntimeError("boom at import")\nEvaluate = Callable[',
        "boom at import",
    ),
    "syntax_error": (
        "connect4",
        "def legal_columns(board: Board) -> list[int]:",
        "def legal_columns(board: Board) -> list[int]\n",
        "SyntaxError",
    ),
    "megabytes_of_printing": (
        "bandits",
        "    t = sum(counts)",
        '    print("x" * 200_000)\n    __import__("os").write(1, b"y" * 100_000_000)\n'
        "    t = sum(counts)",
        "too much output",
    ),
    "huge_allocation": (
        "connect4",
        "    for col in range(COLS):\n        for row in range(len(board[col])):",
        "    _ = bytearray(50 * 10**9)\n"
        "    for col in range(COLS):\n        for row in range(len(board[col])):",
        "memory",
    ),
    "imports_solutions_static": (
        "bandits",
        "from mcts_course.games import TicTacToe",
        "from mcts_course.games import TicTacToe\n"
        "from mcts_course.solutions.bandits import *  # noqa",
        "reference solutions",
    ),
    "imports_solutions_dynamic": (
        "ttt_mcts",
        '    """Play uniformly random moves (``rng.choice`` of the legal actions) to the end."""',
        "    import importlib\n\n    try:\n        ref = importlib.import_module('mcts_course.' + "
        "'solu' + 'tions.ttt_mcts')\n        return ref.simulate(state, rng)\n"
        "    except ImportError:\n        pass",
        "reference solutions",
    ),
}


def edited(file: str, old: str, new: str) -> str:
    text = (SOLUTIONS / f"{file}.py").read_text()
    assert text.count(old) == 1, f"the edit no longer matches {file}.py: {old!r}"
    return text.replace(old, new)


def build(name: str, folder: Path, files=SET_FILES) -> Path:
    """A submission folder: the reference files, with the edit of ``name`` (if any) applied."""
    folder.mkdir(parents=True, exist_ok=True)
    edit = MUTANTS.get(name) or HOSTILE.get(name)
    for file in files:
        if edit and edit[0] == file:
            text = edited(edit[0], edit[1], edit[2])
        else:
            text = (SOLUTIONS / f"{file}.py").read_text()
        (folder / f"{file}.py").write_text(text)
    return folder
