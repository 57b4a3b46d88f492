"""Learning the prior and the value: a small policy-value network, trained by self-play.

:func:`load` gives the network shipped for a game (``load("connect4").predict(state)`` returns
``(priors, value)``); :mod:`~mcts_course.learn.network` holds the network (numpy for training,
plain Python or numpy for play, so that it also runs where numpy is absent) and its encoding of
positions; :mod:`~mcts_course.learn.selfplay` and :mod:`~mcts_course.learn.train` train it
(``mcts-course train GAME``).
"""

from mcts_course.learn.shipped import available, load

__all__ = ["available", "load"]
