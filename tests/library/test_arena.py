"""The arena: replayable game records, reproducible matches, alternating colours, the score."""

import json
import random

import joblib
import pytest
from helpers import Dice, FirstLegal

from mcts_course.agents import MCTSAgent, RandomAgent
from mcts_course.arena import (
    GameRecord,
    MatchResult,
    _show_progress,
    game_seeds,
    match,
    match_game,
    play_game,
    wilson_interval,
)
from mcts_course.games import PASS, ConnectFour, Othello, TicTacToe


@pytest.mark.parametrize("game", [TicTacToe, ConnectFour, Othello])
def test_a_game_record_replays_to_the_same_states(game):
    record = play_game(game(), Dice(), Dice())
    assert isinstance(record, GameRecord)
    assert record.final.is_terminal()
    assert len(record.states) == len(record.moves) + 1
    assert record.replay() == record.states
    assert record.returns == record.final.returns()
    assert record.players == ("Dice", "Dice")
    assert len(record.move_names()) == len(record.moves)


def test_play_game_accepts_a_class_and_cuts_off_at_max_moves():
    record = play_game(Othello, FirstLegal(), FirstLegal(), max_moves=5)
    assert len(record) == 5 and not record.final.is_terminal()
    assert record.result_text() == "unfinished"


def test_first_legal_tictactoe_game_goes_as_worked_out_by_hand():
    # X a1, O b1, X c1, O a2, X b2, O c2, X a3: X completes the diagonal c1-b2-a3.
    record = play_game(TicTacToe(), FirstLegal(), FirstLegal())
    assert record.moves == [0, 1, 2, 3, 4, 5, 6]
    assert record.returns == (1, -1) and record.winner() == 0


def test_othello_games_with_passes_replay():
    for seed in range(300):
        rng = random.Random(seed)
        agent = Dice()
        agent.rng = rng
        record = play_game(Othello(), agent, agent)
        if PASS in record.moves:
            assert record.replay() == record.states
            assert "pass" in record.move_names()
            return
    pytest.fail("no random Othello game with a pass in 300 seeds")


# -- matches -------------------------------------------------------------------------------------
def test_colours_alternate_agent_a_moves_first_in_even_games():
    # FirstLegal vs FirstLegal: player 0 always wins tic-tac-toe (see above), so agent A must
    # win exactly the games where it is player 0: the even ones.
    result = match(TicTacToe, FirstLegal(), FirstLegal(), games=7, seed=0, progress=False)
    assert result.a_player == [0, 1, 0, 1, 0, 1, 0]
    assert result.a_returns == [1, -1, 1, -1, 1, -1, 1]
    assert (result.wins, result.draws, result.losses) == (4, 0, 3)
    assert result.by_colour[0] == {
        "colour": "X",
        "games": 4,
        "wins": 4,
        "draws": 0,
        "losses": 0,
        "score": 1.0,
    }
    assert result.by_colour[1]["losses"] == 3 and result.by_colour[1]["games"] == 3


def test_seeded_match_reproduces_exactly_with_one_or_two_jobs():
    a, b = MCTSAgent(iterations=30), RandomAgent()
    one = match(TicTacToe, a, b, games=12, seed=7, n_jobs=1, progress=False)
    two = match(TicTacToe, a, b, games=12, seed=7, n_jobs=2, progress=False)
    assert one.moves == two.moves
    assert one.as_dict() == two.as_dict()
    other = match(TicTacToe, a, b, games=12, seed=8, n_jobs=1, progress=False)
    assert other.moves != one.moves  # the seed matters


@pytest.mark.parametrize("backend", ["threading", "multiprocessing"])
def test_match_runs_unchanged_under_another_joblib_backend(backend):
    a, b = MCTSAgent(iterations=20), RandomAgent()
    alone = match(TicTacToe, a, b, games=6, seed=4, n_jobs=1, progress=False)
    with joblib.parallel_config(backend=backend, n_jobs=2):
        configured = match(TicTacToe, a, b, games=6, seed=4, progress=False)
    assert configured.moves == alone.moves and configured.as_dict() == alone.as_dict()


def test_game_i_depends_only_on_seed_and_i():
    short = match(ConnectFour, Dice(), Dice(), games=4, seed=3, progress=False)
    long = match(ConnectFour(), Dice(), Dice(), games=8, seed=3, progress=False)
    assert long.moves[:4] == short.moves
    assert game_seeds(3, 0) != game_seeds(3, 1) and game_seeds(3, 0) != game_seeds(4, 0)


def test_the_agents_given_to_match_are_not_touched():
    a, b = Dice(), Dice()
    state = a.rng.getstate()
    match(TicTacToe, a, b, games=4, seed=0, progress=False)
    assert a.rng.getstate() == state and a.resets == 0 and b.resets == 0


def test_match_result_summaries():
    result = match(TicTacToe, Dice(), FirstLegal(), games=6, seed=2, progress=False)
    assert result.games == result.wins + result.draws + result.losses == 6
    data = result.as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["names"] == ["Dice", "First"]
    lo, hi = data["interval"]
    assert 0 <= lo <= data["score"] <= hi <= 1
    assert "Dice as X" in str(result) and "95% interval" in str(result)
    assert "<table>" in result._repr_html_()
    record = result.record(1)  # game 1: agent A (Dice) is player 1
    assert record.players == ("First", "Dice")
    assert record.replay() == record.states and record.returns == result.returns[1]


@pytest.mark.parametrize("keep_moves", [True, False])
def test_a_stored_match_comes_back_from_json_as_it_was(keep_moves):
    result = match(
        ConnectFour, Dice(), FirstLegal(), games=5, seed=6, progress=False, keep_moves=keep_moves
    )
    text = json.dumps(result.to_json())  # the trip through a file
    back = MatchResult.from_json(json.loads(text))
    assert back == result  # every stored field: games, names, colours, returns, seed, moves
    assert back.player_names == result.player_names == ("Red", "Yellow")
    assert back.as_dict() == result.as_dict()
    if keep_moves:
        assert back.record(3).replay() == result.record(3).replay()
    else:
        assert "moves" not in json.loads(text) and back.start is None


def test_match_game_replays_game_i_of_a_match_alone():
    a, b = MCTSAgent(iterations=25), Dice()
    result = match(TicTacToe, a, b, games=4, seed=5, progress=False)
    for i in (3, 2):  # out of order, without the games before
        a_player, returns, moves = match_game(TicTacToe(), a, b, 5, i)
        assert (a_player, tuple(returns), moves) == (
            result.a_player[i],
            result.returns[i],
            result.moves[i],
        )


def test_no_games_is_an_empty_result():
    result = match(TicTacToe, Dice(), Dice(), games=0, progress=False)
    assert result.games == 0 and result.interval == (0.0, 1.0)


# -- the score and its interval ------------------------------------------------------------------
def test_wilson_interval_by_hand():
    # 8 wins in 10 games, z = 1.96: centre (0.8 + 1.96²/20) / (1 + 1.96²/10) = 0.71674,
    # half-width 1.96 / 1.38416 * sqrt(0.8 * 0.2 / 10 + 1.96² / 400) = 0.22658.
    lo, hi = wilson_interval(0.8, 10)
    assert lo == pytest.approx(0.49016, abs=1e-4)
    assert hi == pytest.approx(0.94332, abs=1e-4)


def test_wilson_interval_published_values():
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics
    # in Medicine 17: score (Wilson) intervals for 0/20 and 81/263.
    assert wilson_interval(0 / 20, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)
    assert wilson_interval(81 / 263, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)


def test_draws_count_half_in_score_and_interval():
    result = MatchResult(
        game="tictactoe",
        names=("A", "B"),
        a_player=[0, 1] * 5,
        returns=[(1, -1), (-1, 1)] * 3 + [(0, 0)] * 4,
    )
    assert (result.wins, result.draws, result.losses) == (6, 4, 0)
    assert result.score == pytest.approx(0.8)
    assert result.interval == pytest.approx(wilson_interval(0.8, 10))


def test_progress_bar_default_is_quiet_unless_asked(monkeypatch):
    monkeypatch.setenv("MCTS_COURSE_PROGRESS", "0")
    assert _show_progress(None) is False
    assert _show_progress(True) is True
    monkeypatch.setenv("MCTS_COURSE_PROGRESS", "1")
    assert _show_progress(None) is True
    assert _show_progress(False) is False


def test_match_reads_agent_specs_with_the_one_spec_parser():
    from mcts_course.games import TicTacToe

    result = match(TicTacToe, "minimax:depth=9", "random", games=4, seed=2, n_jobs=1)
    assert result.names == ("Minimax(9)", "Random")
    assert result.losses == 0  # full-depth minimax never loses tic-tac-toe
    with pytest.raises(ValueError, match="unknown agent"):
        match(TicTacToe, "nobody", "random", games=1, n_jobs=1)
