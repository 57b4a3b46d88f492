"""The tic-tac-toe learning lab: the truth it measures against, a tiny training run, the
matches and the figure (issue 17)."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab.learning import (
    PolicyAgent,
    Truth,
    cost_table,
    curves_figure,
    iteration_costs,
    net_agent,
    outcome_of,
    train_tictactoe,
    versus,
)

from mcts_course.agents.exact import best_actions
from mcts_course.games import TicTacToe
from mcts_course.learn.train import Config


@pytest.fixture(scope="module")
def truth():
    return Truth(TicTacToe)


class Oracle:
    """A stand-in network whose heads are exact: the policy spread over the optimal moves, the
    value the exact one (scaled by ``scale``)."""

    def __init__(self, truth: Truth, scale: float = 1.0):
        self.truth, self.scale = truth, scale

    def forward(self, x, mask):
        assert x is self.truth.inputs
        policy = self.truth.optimal / self.truth.optimal.sum(axis=1, keepdims=True)
        return policy, self.scale * self.truth.values.astype(float), {}


def test_the_truth_holds_every_position_where_the_game_goes_on(truth):
    # 5,478 reachable positions, 958 of them finished (a win or a full board)
    assert truth.positions == 5478 - 958
    assert truth.values[0] == 0  # the empty board: a draw
    assert {int(v) for v in truth.values} == {-1, 0, 1}
    k = 5
    assert list(np.flatnonzero(truth.optimal[k])) == best_actions(truth.states[k])
    assert 0 < truth.choices < truth.positions


def test_exact_heads_score_everything_and_a_draw_everywhere_scores_the_draws(truth):
    assert truth.measure(Oracle(truth)) == {"value": 1.0, "policy": 1.0}
    # Values at 0.4 of the exact ones are all read as draws: right only where it is a draw.
    shrunk = truth.measure(Oracle(truth, 0.4))["value"]
    assert shrunk == pytest.approx(float((truth.values == 0).mean()))
    assert truth.confusion(Oracle(truth))[(1, 1)] == int((truth.values == 1).sum())


def test_a_value_is_read_as_its_nearest_result():
    assert [outcome_of(v) for v in (-0.9, -0.51, -0.49, 0.0, 0.49, 0.51, 1.0)] == [
        -1,
        -1,
        0,
        0,
        0,
        1,
        1,
    ]


def test_a_tiny_run_has_its_curves_and_the_matches_their_games(truth):
    config = Config(
        generations=3,
        games=4,
        iterations=8,
        steps=20,
        batch=16,
        hidden=(8,),
        symmetries=True,
        seed=1,
    )
    run = train_tictactoe(config, truth, keep=(2,), n_jobs=1)
    assert run.steps == [20, 40, 60] and run.games == 12
    assert all(0 <= v <= 1 for v in run.curve("value") + run.curve("policy"))
    assert set(run.snapshots) == {2} and run.predictor(2).hidden == (8,)
    assert run.first_reaching("policy", 0.0) == 20 and run.first_reaching("value", 2.0) is None
    assert run.parameters == 18 * 8 + 8 + 8 * 9 + 9 + 8 + 1
    assert "network parameters" in cost_table(run).data
    curves_figure(run)
    result = versus(run.predictor(), iterations=8, games=4, seed=3, n_jobs=1)
    assert all(r.games == 4 for r in result.results.values())
    assert "PUCT+net vs perfect" in result.table().data
    costs = iteration_costs(run.predictor(), n=50, rounds=1)
    assert set(costs) == {"UCT", "PUCT+net"} and min(costs.values()) > 0


def test_the_network_agents_play_legal_moves(truth):
    from mcts_course.learn.network import PolicyValueNet, Predictor

    predictor = Predictor(PolicyValueNet.for_game(TicTacToe, hidden=(8,), seed=0).to_json())
    state = TicTacToe.from_moves("a1 b2")
    assert PolicyAgent(predictor).select_action(state) in state.legal_actions()
    agent = net_agent(predictor, 10)
    assert agent.select_action(state) in state.legal_actions()
    assert agent.last_iterations == 10


def test_the_recipe_table_shows_each_game_s_settings():
    from mcts_lab.learning import recipe_table

    from mcts_course.learn.train import CONFIGS

    c4 = recipe_table(CONFIGS["connect4"]).data
    assert "128 + 64" in c4 and "mirror image" in c4 and "0.002 to 0.0005" in c4
    ttt = recipe_table(CONFIGS["tictactoe"]).data
    assert "8 symmetries" in ttt and "mirror" not in ttt
    plain = recipe_table(Config(hidden=(8,))).data
    assert "| symmetries | none |" in plain and "(constant)" in plain
