"""The Connect Four self-play positions shipped for the learning chapter (mcts_lab.c4_own_games)."""

from __future__ import annotations

from mcts_lab import c4_own_games as own

from mcts_course.games import ConnectFour


def test_the_shipped_positions_come_from_the_network_s_own_games():
    positions = own.own_positions()
    assert len(positions) > 100
    assert len({p.moves for p in positions}) == len(positions)  # no repeats
    for p in positions:
        assert own.PLIES[0] <= len(p.moves) <= own.PLIES[1]
        state = ConnectFour.from_moves(list(p.moves))
        assert not state.is_terminal() and set(p.values) == set(state.legal_actions())
    assert own.recheck(games=1, positions=1)


def test_a_game_is_replayed_exactly_and_stops_at_its_drawn_ply():
    guide = own.NetGuide(own.predictor())
    first = own.own_game(guide, own.SEED)
    assert first == own.own_game(guide, own.SEED)
    assert first is None or own.PLIES[0] <= len(first) <= own.PLIES[1]
