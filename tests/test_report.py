"""The book's computed sentences say what the numbers say."""

from __future__ import annotations

from mcts_course.arena import MatchResult
from mcts_course.report import compare, inside, reported_score, show_source, summary, verdict


def result(wins: int, draws: int, losses: int) -> MatchResult:
    """A match A won ``wins`` times, drew and lost, colours alternating."""
    outcomes = [1] * wins + [0] * draws + [-1] * losses
    players = [i % 2 for i in range(len(outcomes))]
    returns = [(r, -r) if p == 0 else (-r, r) for r, p in zip(outcomes, players, strict=True)]
    return MatchResult(game="othello", names=("A", "B"), a_player=players, returns=returns)


def test_verdicts_follow_the_interval():
    assert "A is stronger than B" in verdict(result(80, 0, 20))
    assert "A is weaker than B" in verdict(result(20, 0, 80))
    assert "cannot be told apart in 20 games" in verdict(result(11, 0, 9))


def test_summary_and_comparison_with_reported_results():
    r = result(60, 10, 30)
    assert summary(r).startswith("A vs B: **60-30** (10 draws) in 100 games, score 65.0%")
    assert reported_score(25, 74) == 0.255 and reported_score(94, None) == 0.94
    assert inside(r, 63, 34) and not inside(r, 25, 74)
    assert "**outside** our interval" in compare(r, 25, 74)
    assert "inside our interval" in compare(r, 63, 34)
    assert "at least 94%" in compare(r, 94, None)


def test_show_source_lists_the_package_code():
    assert "def verdict" in show_source(verdict).data
