"""The offline MCTS-Solver-against-UCT experiment: its positions, its reading and its file."""

from mcts_lab.solver_offline import (
    BUDGETS,
    COUNT,
    Endgame,
    Result,
    draw_endgames,
    from_json,
    load,
    recheck,
    search_all,
    to_json,
)

from mcts_course.agents.exact import move_values


def test_drawn_endgames_have_a_single_right_move_and_no_immediate_win():
    for e in draw_endgames(count=2, plies=26, seed=3):
        state = e.state
        best = max(e.values.values())
        assert [v for v in e.values.values()].count(best) == 1
        assert not any(state.play(a).winner() == state.current_player for a in e.values)
        assert e.values == {a: int(v) for a, v in move_values(state).items()}


def test_mistakes_count_every_column_but_the_right_one():
    e = Endgame("4 4 3", {0: -1, 2: 1, 3: 0}, {"uct": {10: [2, 0, 3, 2]}})
    assert e.right == 2 and e.mistakes("uct", 10) == 0.5


def test_a_file_round_trip_keeps_every_choice_and_recheck_catches_a_changed_one():
    endgames = draw_endgames(count=2, plies=26, seed=3)
    for e in endgames:
        search_all(e, seeds=2, budgets=(30,))
    result = from_json(to_json(endgames, 2, (30,)))
    assert [e.choices for e in result.endgames] == [e.choices for e in endgames]
    assert recheck(result, exact=(0,), searched=1)
    picks = result.endgames[1].choices["uct"][30]
    picks[0] = next(a for a in result.endgames[1].values if a != picks[0])
    assert not recheck(result, exact=(), searched=1)


def test_the_difference_is_zero_when_both_agents_choose_alike():
    e1 = Endgame("4", {0: 1, 1: -1}, {"uct": {5: [1, 0]}, "solver": {5: [1, 0]}})
    e2 = Endgame("4", {0: 1, 1: -1}, {"uct": {5: [0, 0]}, "solver": {5: [0, 0]}})
    result = Result([e1, e2], (5,), 2)
    assert result.difference(5) == (0.0, 0.0) and result.informative() == 1


def test_the_shipped_file_follows_the_design():
    result = load()
    assert len(result.endgames) == COUNT and result.budgets == BUDGETS
    assert all(
        len(picks) == result.seeds
        for e in result.endgames
        for by in e.choices.values()
        for picks in by.values()
    )
