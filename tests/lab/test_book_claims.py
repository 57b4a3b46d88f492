"""Cheap checks that the chapters' claims and their data agree.

The chapters compute every sentence that names a side to move or reads a result; these tests
catch the regressions that are cheap to catch without executing the book: a prose sentence that
hard-codes who is to move in a named position, a named position that no longer parses, and
experiment sizes below the minimums the book promises.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mcts_course.games import ConnectFour, Othello, TicTacToe

BOOK = Path(__file__).resolve().parents[2] / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.md"))
GAMES = {"Othello": Othello, "TicTacToe": TicTacToe, "ConnectFour": ConnectFour}


def split(text: str) -> tuple[str, str]:
    """(prose, code) of a MyST notebook source."""
    code = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return prose, "\n".join(code)


def constants(code: str) -> dict[str, object]:
    """Module-level NAME = literal assignments of the chapter's code cells."""
    found = {}
    for line in code.splitlines():
        m = re.match(r"^([A-Z][A-Z0-9_]*) = (.+?)(\s+#.*)?$", line)
        if m:
            try:
                found[m.group(1)] = ast.literal_eval(m.group(2))
            except (ValueError, SyntaxError):
                pass
    return found


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_named_positions_parse(chapter: Path):
    _, code = split(chapter.read_text())
    for game, moves in re.findall(
        r"(Othello|TicTacToe|ConnectFour)\.from_moves\(\"([^\"]*)\"\)", code
    ):
        GAMES[game].from_moves(moves)  # raises on an illegal move


@pytest.mark.parametrize(
    "chapter", [c for c in CHAPTERS if c.name[:2] in {"03", "04", "07", "08"}], ids=lambda p: p.stem
)
def test_prose_does_not_hard_code_the_side_to_move(chapter: Path):
    prose, _ = split(chapter.read_text())
    pattern = r"\b(Black|White)('s (legal )?moves| to move|'s (mean )?reward| is to move)"
    assert not re.findall(pattern, prose), "name the side to move from the state, in a cell"


def test_the_running_position_has_white_to_move():
    position = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    assert position.PLAYER_NAMES[position.current_player] == "White"


def test_experiment_sizes_meet_the_promised_minimums():
    """The sizes the chapter "MCTS measured" runs with are its lab modules' defaults."""
    from mcts_lab import mcts_matches, trap

    assert min(mcts_matches.CURVE_BUDGETS) <= 10 and max(mcts_matches.CURVE_BUDGETS) >= 3000
    assert min(mcts_matches.CURVE_GAMES.values()) >= 50
    assert max(mcts_matches.CURVE_GAMES.values()) >= 100
    assert max(mcts_matches.OTHELLO_BUDGETS) >= 1000
    assert min(mcts_matches.OTHELLO_GAMES.values()) >= 40
    assert mcts_matches.GAMES_PAIR >= 50
    assert trap.CONV_POSITIONS is None and trap.TRAP_SEEDS >= 20  # None: every class
