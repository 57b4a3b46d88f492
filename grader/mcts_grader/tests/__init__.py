"""The grading tests: pytest modules, one per exercise set, run on a submission by the plugin
:mod:`mcts_course.grading.plugin` (``python -m pytest --pyargs mcts_course.grading
--submission PATH``).  Private to the grader: the student's process never sees this folder."""
