"""The book's computed sentences say what the numbers say."""

from __future__ import annotations

import matplotlib
import pytest
from helpers import match_result
from mcts_lab.present import (
    compare,
    error_bars,
    inside,
    reported_score,
    score_bars,
    show_source,
    summary,
    told_apart,
    verdict,
)

from mcts_course.stats import wilson_interval

matplotlib.use("Agg")


def test_verdicts_follow_the_interval():
    assert "A is stronger than B" in verdict(match_result(80, 20))
    assert "A is weaker than B" in verdict(match_result(20, 80))
    assert "cannot be told apart in 20 games" in verdict(match_result(11, 9))


def test_summary_and_comparison_with_reported_results():
    r = match_result(60, 30, 10)
    assert summary(r).startswith("A vs B: **60-30** (10 draws) in 100 games, score 65.0%")
    assert reported_score(25, 74) == 0.255 and reported_score(94, None) == 0.94
    assert inside(r, 63, 34) and not inside(r, 25, 74)
    assert "**outside** our interval" in compare(r, 25, 74)
    assert "inside our interval" in compare(r, 63, 34)
    assert "at least 94%" in compare(r, 94, None)


def test_show_source_lists_the_package_code():
    assert "def verdict" in show_source(verdict).data


def test_told_apart_reads_the_interval():
    assert told_apart(match_result(80, 20)) == 1
    assert told_apart(match_result(20, 80)) == -1
    assert told_apart(match_result(11, 9)) == 0


def test_score_bars_draw_one_bar_and_one_interval_per_score():
    import matplotlib.pyplot as plt

    ax = score_bars({"ucb1": 0.48, "egreedy": 0.3, "softmax": 0.62}, 100, title="t")
    bars = [p for p in ax.patches if p.get_gid() == "score"]
    assert [b.get_height() for b in bars] == [0.48, 0.3, 0.62]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ucb1", "egreedy", "softmax"]
    (even,) = [line for line in ax.lines if line.get_gid() == "even"]
    assert list(even.get_ydata()) == [0.5, 0.5]
    # the error bar of each bar spans its Wilson interval
    segments = [seg for coll in ax.collections for seg in coll.get_segments()]
    spans = sorted((round(s[0][1], 6), round(s[1][1], 6)) for s in segments)
    expected = sorted(
        tuple(round(v, 6) for v in wilson_interval(s, 100)) for s in (0.48, 0.3, 0.62)
    )
    assert spans == expected
    plt.close(ax.figure)


def test_error_bars_reach_from_each_score_to_its_interval_and_never_below_zero():
    below, above = error_bars([0.5, 0.9], [(0.4, 0.7), (0.8, 0.95)])
    assert below == pytest.approx([0.1, 0.1]) and above == pytest.approx([0.2, 0.05])
    assert error_bars([1.0], [(0.9, 0.9999999999999999)])[1] == [0.0]  # not a hair below 0


def test_show_source_can_leave_out_docstrings_and_keeps_the_code():
    with_doc = show_source(verdict).data
    without = show_source(verdict, docstrings=False).data
    assert '"""' in with_doc and '"""' not in without
    assert "def verdict" in without and "return" in without
    assert len(without.splitlines()) < len(with_doc.splitlines())
