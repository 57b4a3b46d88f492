"""Plain-text score tables for students (``mcts-course check``, ``check(...)`` in a notebook)."""

from __future__ import annotations

from mcts_course.grading.sets import EXERCISES


def summary_table(grade_) -> str:
    """Points per exercise and in total."""
    table = grade_.by_exercise()
    order = [e for e in EXERCISES if e in table] + [e for e in table if e not in EXERCISES]
    width = max([len(e) for e in order] + [8])
    lines = [f"{'exercise':<{width}}  points"]
    for e in order:
        got, most = table[e]
        lines.append(f"{e:<{width}}  {got:g} / {most:g}")
    lines.append(f"{'total':<{width}}  {grade_.score:g} / {grade_.max_score:g}")
    return "\n".join(lines)


def failures(grade_, max_lines: int = 8) -> str:
    """The failed tests, each with the first lines of its message (and hint)."""
    blocks = []
    for o in grade_.outcomes:
        if o.passed:
            continue
        lines = o.output.splitlines() or ["failed"]
        if len(lines) > max_lines:  # cut the middle, never the hint at the end
            hint = [line for line in lines if line.startswith("Hint: ")][-1:]
            body = [line for line in lines if not line.startswith("Hint: ")]
            lines = body[: max_lines - len(hint)] + ["..."] + hint
        body = "\n".join("    " + line for line in lines)
        blocks.append(f"[{o.test.exercise}] {o.test.name} (0 / {o.test.points:g})\n{body}")
    return "\n".join(blocks)


def full_report(grade_, show_failures: bool = True) -> str:
    text = summary_table(grade_)
    if show_failures:
        failed = failures(grade_)
        if failed:
            text += "\n\nWhat to fix:\n" + failed
    return text
