"""The experiment helpers read the data correctly: exact tic-tac-toe values, leads, drops."""

from __future__ import annotations

from helpers import match_result
from mcts_lab import experiments as ex

from mcts_course.agents.exact import PerfectAgent
from mcts_course.games import TicTacToe


def test_tictactoe_is_a_draw_and_a_missed_block_loses():
    assert ex.exact_value(TicTacToe()) == 0
    # X threatens a1-a2-a3; O must take a3, anything else loses.
    state = TicTacToe.from_moves("a1 b2 a2")
    values = ex.move_values(state)
    block = state.parse_action("a3")
    assert values[block] == max(values.values())
    assert all(v == -1 for a, v in values.items() if a != block)
    assert ex.choice_matters(state)
    assert not ex.choice_matters(TicTacToe.from_moves("a1 b2 c3 a3 c1 b1 b3 c2"))  # one move left


def test_reachable_and_decisive_counts():
    states = ex.reachable_states(TicTacToe())
    assert len(states) == 4520  # the known count of non-terminal reachable positions
    decisive = ex.decisive_positions(TicTacToe)
    assert 0 < len(decisive) < len(states)
    assert all(ex.choice_matters(s) for s in decisive[:50])


def test_leads_and_drops_follow_the_intervals():
    strong = {10: match_result(80, 20), 100: match_result(90, 10)}
    weak = {10: match_result(50, 50), 100: match_result(88, 12)}
    leads = ex.leads(strong, weak)
    assert [lead.sign for lead in leads] == [1, 0]
    falling = {10: match_result(90, 10), 100: match_result(50, 50), 1000: match_result(88, 12)}
    assert [(a, b) for a, b, _ in ex.drops(falling)] == [(10, 100)]
    assert ex.drops(strong) == []


def test_the_perfect_player_never_loses_and_varies_its_games():
    from mcts_course.agents import RandomAgent
    from mcts_course.arena import match, play_game

    result = match(TicTacToe, PerfectAgent(), RandomAgent(), games=60, seed=3, n_jobs=1)
    assert result.losses == 0 and result.wins > 40  # random play loses most games to it
    itself = match(TicTacToe, PerfectAgent(), PerfectAgent(), games=20, seed=4, n_jobs=1)
    assert itself.draws == 20  # tic-tac-toe is a draw
    first_moves = set()
    for seed in range(12):
        record = play_game(TicTacToe, PerfectAgent(seed=seed), PerfectAgent(seed=99))
        first_moves.add(record.moves[0])
    assert len(first_moves) > 1  # ties between equally good moves are drawn at random
