"""Tree against graph on Pons' solved Connect Four positions (mcts_lab.tp_connect4): the design
the shipped file says, the searches it replays, the statistics the chapter reads."""

import numpy as np
from mcts_lab import tp_connect4


def test_the_two_agents_differ_only_by_the_table():
    tree, graph = tp_connect4.SPECS["tree"], tp_connect4.SPECS["graph"]
    assert graph.replace(",transpositions=1", "") == tree
    assert f"c={tp_connect4.C}" in tree and f"iterations={tp_connect4.ITERATIONS}" in tree


def test_the_positions_are_the_solved_ones_where_a_mistake_is_possible():
    rows = tp_connect4.positions()
    assert rows and all(r["keeps"] is not None and False in r["keeps"] for r in rows)
    assert len({(r["set"], r["line"]) for r in rows}) == len(rows)
    seeds = {
        tp_connect4.seed_of(r["set_index"], r["line"], j)
        for r in rows
        for j in range(tp_connect4.SEEDS)
    }
    assert len(seeds) == len(rows) * tp_connect4.SEEDS  # no two searches share a seed


def test_the_shipped_file_follows_the_design():
    data = tp_connect4.load()
    assert data["iterations"] == tp_connect4.ITERATIONS and data["seeds"] == tp_connect4.SEEDS
    assert data["specs"] == tp_connect4.SPECS
    keys = [(r["set"], r["line"]) for r in tp_connect4.positions()]
    assert [(p["set"], p["line"]) for p in data["positions"]] == keys
    for p in data["positions"]:
        for agent in ("tree", "graph"):
            assert len(p[agent]["mistakes"]) == tp_connect4.SEEDS


def test_a_small_run_is_seeded_and_counts_mistakes_and_nodes():
    rows = tp_connect4.positions()[:1]
    first = tp_connect4.run(rows, seeds=2, iterations=60)
    again = tp_connect4.run(rows, seeds=2, iterations=60)
    assert first == again
    record = first[0]
    keeps = rows[0]["keeps"]
    for agent in ("tree", "graph"):
        assert record[agent]["mistakes"] == [int(not keeps[a]) for a in record[agent]["moves"]]
    assert sum(record["graph"]["nodes"]) <= sum(record["tree"]["nodes"])


def test_the_statistics_on_a_made_up_file():
    def position(tree, graph):
        return {
            "set": "Middle-Easy",
            "tree": {"mistakes": tree, "nodes": [10, 10]},
            "graph": {"mistakes": graph, "nodes": [8, 8]},
        }

    data = {"positions": [position([1, 1], [1, 0]), position([0, 0], [0, 0])]}
    r = tp_connect4.result(data)
    assert np.allclose(r.tree, [1, 0]) and np.allclose(r.graph, [0.5, 0])
    assert r.difference == -0.25 and r.graph_nodes / r.tree_nodes == 0.8
    low, high = r.ratio_interval(resamples=200)
    assert 0 <= low <= high <= 1


def test_the_shipped_searches_replay():
    assert tp_connect4.recheck(count=1)
