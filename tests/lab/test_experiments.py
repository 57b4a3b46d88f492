"""The experiment helpers read the data correctly: exact tic-tac-toe values, leads, drops."""

from __future__ import annotations

from helpers import match_result
from mcts_lab import experiments as ex

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


def test_leads_drops_and_crossings_follow_the_intervals():
    strong = {10: match_result(80, 20), 100: match_result(90, 10)}
    weak = {10: match_result(50, 50), 100: match_result(88, 12)}
    leads = ex.leads(strong, weak)
    assert [lead.sign for lead in leads] == [1, 0]
    falling = {10: match_result(90, 10), 100: match_result(50, 50), 1000: match_result(88, 12)}
    assert [(a, b) for a, b, _ in ex.drops(falling)] == [(10, 100)]
    assert ex.drops(strong) == []
    assert ex.crossings([1, 0, -1, -1, 1]) == 2
    assert ex.crossings([0, 1, 0, 1]) == 0
    duel = {10: match_result(70, 30), 20: match_result(45, 55)}
    assert ex.head_to_head_leads(duel) == {10: 1, 20: 0}


def test_convergence_of_a_perfect_player_is_total():
    positions = ex.sample(ex.decisive_positions(TicTacToe), 30, seed=1)
    assert ex.optimal_share(lambda seed: ex.PerfectPlayer(seed=seed), positions, seed=0) == 1.0


def test_the_perfect_player_never_loses_and_varies_its_games():
    from mcts_course.agents import RandomAgent
    from mcts_course.arena import match, play_game

    result = match(TicTacToe, ex.PerfectPlayer(), RandomAgent(), games=60, seed=3, n_jobs=1)
    assert result.losses == 0 and result.wins > 40  # random play loses most games to it
    itself = match(TicTacToe, ex.PerfectPlayer(), ex.PerfectPlayer(), games=20, seed=4, n_jobs=1)
    assert itself.draws == 20  # tic-tac-toe is a draw
    first_moves = set()
    for seed in range(12):
        record = play_game(TicTacToe, ex.PerfectPlayer(seed=seed), ex.PerfectPlayer(seed=99))
        first_moves.add(record.moves[0])
    assert len(first_moves) > 1  # ties between equally good moves are drawn at random
