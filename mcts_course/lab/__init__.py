"""Moved: the book's experiments are the package ``mcts_lab`` (``lab/`` in the repository).

The library no longer carries the book's laboratory.  Install it beside the library (``pip
install ./lab`` in a checkout; the chapters' Colab cell does it) and write ``mcts_lab`` where an
old notebook says ``mcts_course.lab``.
"""

raise ImportError(
    "mcts_course.lab moved to the package mcts_lab (lab/ in the course repository): "
    "pip install ./lab, then import mcts_lab instead of mcts_course.lab"
)
