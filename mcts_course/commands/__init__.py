"""Subcommands of the ``mcts-course`` command line, one module each."""
