import os
import sys

# `python -m mcts_course` puts the current folder first on the path: inside a submission, its
# csv.py or json.py would shadow the standard library in the grader's process.  Not any more.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from mcts_course.cli import main  # after the path is cleaned

raise SystemExit(main())
