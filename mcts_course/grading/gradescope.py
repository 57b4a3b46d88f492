"""Moved: the Gradescope builder is part of the grader (``python -m mcts_grader.gradescope``).

The student package carries nothing that only instructors run; this module is left so that the
old command says where the new one is.
"""

import sys

MOVED = (
    "the Gradescope builder moved to the grader distribution: pip install ./grader (in a "
    "checkout of the course), then python -m mcts_grader.gradescope OUT.zip [--tests DIR]"
)

if __name__ == "__main__":
    print(f"mcts_course.grading.gradescope: {MOVED}", file=sys.stderr)
    raise SystemExit(2)
raise ImportError(MOVED)
