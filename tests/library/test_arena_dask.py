"""The Dask recipe of :mod:`mcts_course.arena`'s docstring, run on a local cluster.

The cluster runs on this machine (two worker processes on localhost, no dashboard), so the games
really are pickled, shipped and played elsewhere; the result must equal the one-process match
with the same seed.
"""

from __future__ import annotations

import joblib
import pytest

pytest.importorskip("distributed")

from dask.distributed import Client, LocalCluster, get_task_stream

from mcts_course.agents import AlphaBetaAgent, MCTSAgent
from mcts_course.arena import match
from mcts_course.games import ConnectFour


def test_the_dask_recipe_gives_the_one_process_result():
    agents = (MCTSAgent(iterations=60), AlphaBetaAgent(depth=2))
    local = match(ConnectFour, *agents, games=6, seed=11, n_jobs=1, progress=False)
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        # the recipe: Client(...), then a joblib "dask" backend around the match
        with get_task_stream(client) as tasks, joblib.parallel_config(backend="dask", n_jobs=-1):
            remote = match(ConnectFour, *agents, games=6, seed=11, progress=False)
        workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert len(tasks.data) >= 1 and {t["worker"] for t in tasks.data} <= set(workers)
    assert remote.returns == local.returns
    assert remote.a_player == local.a_player and remote.moves == local.moves
    assert remote.as_dict() == local.as_dict()
