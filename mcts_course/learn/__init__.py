"""Learning the prior and the value: a small policy-value network, trained by self-play.

:mod:`~mcts_course.learn.network` holds the network (numpy for training, plain Python for
play, so that it also runs where numpy is absent) and its encoding of positions.
"""
