"""The grader's tests that need the reference solutions (``mcts_grader.solutions``): pytest
modules run on a submission by the plugin :mod:`mcts_course.grading.plugin`, beside the public
checks shipped with the library (``mcts_course.grading.tests``).  The grader's runs collect
both (:func:`mcts_course.grading.invocation.pytest_args` with ``reference=True``); this package
is found through the entry point group ``mcts_course.grading_tests``.  A set whose every check
is a public fact has no module here."""
