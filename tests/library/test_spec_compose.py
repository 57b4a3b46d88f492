"""The new keys of the mcts spec compose: a variant (rave=, transpositions=), wrapped by
parallel search (workers=), wrapped by the exact endgame hand-over (endgame=); what cannot
compose says so."""

from __future__ import annotations

import pytest
from helpers import late_positions

from mcts_course.agents import (
    EndgameHandover,
    RAVEAgent,
    RootParallelAgent,
    TranspositionMCTSAgent,
    endgame_margins,
    make_agent,
)
from mcts_course.agents.parallel import shutdown_workers


def test_rave_in_parallel_with_the_endgame_hand_over():
    agent = make_agent("mcts:iterations=40,rave=30,workers=2,endgame=10,seed=3")
    assert isinstance(agent, EndgameHandover)
    assert isinstance(agent.agent, RootParallelAgent)
    try:
        # Above 10 empty squares the parallel RAVE search plays a legal move ...
        above = late_positions(12, 1, seed=5)[0]
        assert agent.select_action(above) in above.legal_actions()
        # ... at 10 or fewer the exact search takes over: a move of the best margin.
        for state in late_positions(10, 2, seed=6):
            margins = endgame_margins(state)
            assert margins[agent.select_action(state)] == max(margins.values())
    finally:
        shutdown_workers()


def test_the_variants_the_spec_builds():
    assert isinstance(make_agent("mcts:iterations=10,rave=30"), RAVEAgent)
    assert isinstance(make_agent("mcts:iterations=10,transpositions=1"), TranspositionMCTSAgent)


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:iterations=40,rave=30,transpositions=1",  # RAVE runs on the tree
        "mcts:iterations=40,rave=30,workers=2,parallel=tree",  # threads run plain UCT only
        "mcts:iterations=40,transpositions=1,workers=2,parallel=tree",
        "puct:iterations=40,workers=2",  # workers is a key of mcts only
    ],
)
def test_what_does_not_compose_is_refused_with_its_reason(spec):
    with pytest.raises(ValueError, match="bad spec|unknown parameter"):
        make_agent(spec)


def test_with_params_adds_keys_and_make_agent_takes_them_as_keywords():
    from mcts_course.agents import with_params

    assert with_params("mcts", iterations=200) == "mcts:iterations=200"
    assert with_params("puct:prior=uniform", iterations=5, seed=1) == (
        "puct:prior=uniform,iterations=5,seed=1"
    )
    assert with_params("mcts", iterations=None, time_limit=0.5, tree_reuse=True) == (
        "mcts:time_limit=0.5,tree_reuse=1"
    )
    assert with_params("random") == "random"
    agent = make_agent("mcts:c=0.5", iterations=30, seed=2)
    assert (agent.iterations, agent.c) == (30, 0.5)
    with pytest.raises(ValueError, match="unknown parameter"):
        make_agent("random", depth=2)
