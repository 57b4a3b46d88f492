"""The book's laboratory: the chapters' experiments, tables, figures and claim checks.

Nothing in the library imports this package; the chapters do.  A chapter calls one experiment
function (it returns a result object), shows its table or figure, glues the numbers its prose
quotes (:func:`~mcts_lab.claims.glue`) and asserts, in a hidden cell, every claim the prose
makes about them (:func:`~mcts_lab.claims.claim`).  Each experiment has a small, fast test
in ``tests/``.
"""

# Worker processes of the experiments' matches unless a call says otherwise: the book is built
# on two cores.  One constant, so that a bigger machine changes one line.
N_JOBS = 2
