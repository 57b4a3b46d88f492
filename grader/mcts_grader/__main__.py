"""``python -m mcts_grader ...``: the same as ``mcts-course grade ...``."""

import sys

from mcts_grader.cli import main

sys.exit(main())
