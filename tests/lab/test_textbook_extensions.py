"""The textbook functions of chapters 12 and 14 agree with the engine on the same positions."""

from __future__ import annotations

import pytest
from mcts_lab.puct import puct_select
from mcts_lab.textbook.parallel import merged_root_counts
from mcts_lab.textbook.solver import (
    SolverNode,
    alphabeta_margin,
    prove,
    pvs_margin,
    root_value,
    solver_search,
)

from mcts_course.agents.endgame import endgame_margins, solve_endgame
from mcts_course.agents.exact import exact_value, move_values
from mcts_course.agents.mcts import MCTSAgent
from mcts_course.agents.parallel import merge_roots
from mcts_course.agents.puct import PUCTAgent
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.games import ConnectFour, Othello, TicTacToe
from tests.helpers import late_positions, positions


def _proven_nodes(root: SolverNode):
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        if node.proven is not None:
            yield node


def test_the_empty_tic_tac_toe_board_is_proven_a_draw():
    root = solver_search(TicTacToe(), 100_000, seed=0)
    assert root_value(root) == 0.5
    assert root.visits < 100_000  # the search stops once the root is proven


@pytest.mark.parametrize("plies", [2, 4, 6])
def test_every_proof_equals_the_exact_value(plies):
    for k, state in enumerate(positions(TicTacToe, plies, 8, seed=plies)):
        root = solver_search(state, 20_000, seed=k)
        assert root_value(root) == (1 + exact_value(state)) / 2
        engine = MCTSSolverAgent(20_000, seed=k)
        engine.search(state)
        assert engine.root_value() == root_value(root)
        for node in _proven_nodes(root):  # not only the root: every proof in the tree
            mover_value = (
                (1 + exact_value(node.state)) / 2 if not node.state.is_terminal() else None
            )
            if mover_value is not None:
                seen = mover_value if node.player == node.state.current_player else 1 - mover_value
                assert node.proven == seen


def test_a_small_budget_proves_less_but_never_wrongly():
    proven = 0
    for k, state in enumerate(positions(ConnectFour, 28, 6, seed=3)):
        root = solver_search(state, 300, seed=k)
        values = move_values(state)
        for action, child in root.children.items():
            if child.proven is not None:  # the child's proof, for the player who moved into it
                proven += 1
                assert child.proven == (1 + values[action]) / 2
        if root_value(root) is not None:
            assert root_value(root) == (1 + exact_value(state)) / 2
    assert proven > 0


def test_prove_applies_the_minimax_rule_to_proven_children():
    state = TicTacToe.from_moves("a1 b1 b2 c1")  # X to move, c3 wins
    root = SolverNode(state)
    for action in state.legal_actions():
        root.children[action] = SolverNode(state.play(action), root, action)
    assert not prove(root)  # nothing proven below yet
    win = state.action_at(2, 2)
    assert prove(root.children[win]) and root.children[win].proven == 1.0
    assert prove(root) and root_value(root) == 1.0


def test_alphabeta_margin_equals_the_engine_on_late_othello_positions():
    for order in (False, True):
        for state in late_positions(8, 6, seed=1) + late_positions(7, 4, seed=2, passes=True):
            nodes = [0]
            assert alphabeta_margin(state, order=order, nodes=nodes) == solve_endgame(state)
            assert nodes[0] >= len(state.legal_actions())


def test_alphabeta_margin_gives_the_engine_move_margins_with_full_windows():
    state = late_positions(9, 1, seed=5)[0]
    for action, margin in endgame_margins(state).items():
        assert -alphabeta_margin(state.play(action)) == margin


def test_alphabeta_margin_returns_a_bound_outside_the_window():
    state = late_positions(8, 1, seed=7)[0]
    exact = solve_endgame(state)
    assert alphabeta_margin(state, exact, exact + 1) <= exact  # fails low at the value
    assert alphabeta_margin(state, exact - 1, exact) >= exact  # fails high at the value


def test_pvs_margin_equals_alphabeta_and_the_engine_on_late_othello_positions():
    researches = 0
    for state in late_positions(8, 6, seed=1) + late_positions(7, 4, seed=2, passes=True):
        counts = [0, 0]
        assert pvs_margin(state, counts=counts) == alphabeta_margin(state) == solve_endgame(state)
        assert counts[0] >= len(state.legal_actions())
        researches += counts[1]
    assert researches > 0  # the null-window test is passed and the move searched again


def test_pvs_margin_keeps_the_value_along_the_best_lines_of_ffo_positions():
    from mcts_lab.endgames import best_line
    from mcts_lab.ffo import load_ffo

    for position in load_ffo()[:3]:
        line = best_line(position.state, down_to=4)[-5:]  # 8 to 4 empty squares
        margins = [pvs_margin(state) for state in line]
        assert margins == [solve_endgame(state) for state in line]
        # a best move keeps the value: the next position's margin, for the opponent, negated
        assert all(a == -b for a, b in zip(margins, margins[1:], strict=False))


def test_pvs_margin_returns_a_bound_outside_the_window():
    state = late_positions(8, 1, seed=7)[0]
    exact = solve_endgame(state)
    assert pvs_margin(state, exact, exact + 1) <= exact  # fails low at the value
    assert pvs_margin(state, exact - 1, exact) >= exact  # fails high at the value
    assert pvs_margin(state, exact - 3, exact + 3) == exact  # exact inside the window


def test_puct_select_picks_the_engine_choice_at_every_root_of_a_search():
    agent = PUCTAgent(200, prior="cells", seed=0)
    for state in positions(ConnectFour, 6, 5, seed=4) + [Othello()]:
        root = agent.search(state)
        stats = {a: (u.visits, u.wins, agent.priors[u]) for a, u in root.children.items()}
        engine = max(sorted(root.children), key=lambda a: agent.score(root, root.children[a]))
        assert puct_select(stats, root.visits, c=agent.c, fpu=agent.fpu) == engine


def test_root_parallel_counts_are_the_engine_merge_of_independent_trees():
    state = ConnectFour.from_moves("4 4 3")
    counts = merged_root_counts(state, searches=3, iterations=200, seed=0)
    trees = []
    for k in range(3):
        root = MCTSAgent(200, seed=k).search(state)
        trees.append({a: (u.visits, u.wins) for a, u in root.children.items()})
    assert counts == {a: v for a, (v, _) in merge_roots(trees).items()}
    assert sum(counts.values()) <= 3 * 200


def test_a_virtual_loss_sends_the_second_thread_elsewhere_only_when_it_must():
    from mcts_lab.textbook.parallel import ucb, virtual_loss_choices

    from mcts_course.agents.mcts import ucb1

    moved = 0
    for k, state in enumerate(positions(TicTacToe, 1, 6, seed=9)):
        root = MCTSAgent(200, seed=k).search(state)
        stats = {a: (u.visits, u.wins) for a, u in root.children.items()}
        for n, w in stats.values():
            assert ucb(w, n, root.visits) == pytest.approx(ucb1(w, n, root.visits, 2**0.5))
        first, second, unmarked = virtual_loss_choices(stats, root.visits)
        assert unmarked == first  # without the mark, both threads take the same path
        moved += second != first
        if second != first:  # the mark lowered the first child below the second's score
            n, w = stats[first]
            assert ucb(w, n + 1, root.visits + 1) < ucb(*stats[second][::-1], root.visits + 1)
    assert moved > 0


def test_the_parallel_picture_draws_both_schemes():
    import matplotlib
    import matplotlib.pyplot

    matplotlib.use("Agg")
    from mcts_lab.textbook.parallel import parallel_picture

    fig = parallel_picture(TicTacToe(), searches=2, iterations=60, seed=0)
    left, right = fig.axes
    assert len(left.patches) == 2 * 9  # one bar per move and tree
    assert sum(p.get_height() for p in left.patches) == 2 * 60
    assert len(right.patches) == 2 * 9
    assert "thread 2" in right.get_title()
    assert right.get_ylim()[0] == 1.0  # not truncated just below the smallest bar
    matplotlib.pyplot.close("all")


def test_nodes_by_empties_checks_every_textbook_margin_and_counts_more_for_plain_order():
    import matplotlib
    import matplotlib.pyplot

    matplotlib.use("Agg")
    from mcts_lab.endgames import SEARCHES, growth_per_empty, nodes_by_empties, nodes_figure
    from mcts_lab.ffo import load_ffo

    counts = nodes_by_empties(load_ffo()[:2], down_to=4, plain_up_to=8, ordered_up_to=8)
    assert {c.search for c in counts} == set(SEARCHES)
    by = {(c.search, c.empties, c.margin) for c in counts}
    for c in counts:  # every size searched by all three reports the same margin
        if c.empties <= 8:
            assert all((s, c.empties, c.margin) in by for s in SEARCHES)
    assert growth_per_empty(counts, SEARCHES[0], 4, 8) > 1
    assert len(nodes_figure(counts).axes[0].lines) == 3
    matplotlib.pyplot.close("all")


def test_the_ffo_board_colours_the_published_margins():
    import matplotlib
    import matplotlib.pyplot

    matplotlib.use("Agg")
    from mcts_lab.endgames import margins_board
    from mcts_lab.ffo import load_ffo

    position = load_ffo()[4]
    ax = margins_board(position)
    assert "FFO #5" in ax.get_title()
    texts = {t.get_text() for t in ax.texts}
    assert all(f"{m:+d}" in texts for m in position.margins.values())
    matplotlib.pyplot.close("all")


def test_the_answers_figure_marks_every_method():
    import matplotlib
    import matplotlib.pyplot

    matplotlib.use("Agg")
    from mcts_lab.reference import Reference, SeedSearch, answers_figure

    state = Othello()
    moves = [state.action_to_string(a) for a in state.legal_actions()]
    flat = {m: (0.5 + 0.01 * k, 0.49 + 0.01 * k, 0.51 + 0.01 * k) for k, m in enumerate(moves)}
    searches = [SeedSearch(k, moves[0], 0.4, 0.5, moves[1], 0.3) for k in range(3)]
    ref = Reference(
        state,
        dict(zip(("minimax", "flat", "mcts"), moves[:3], strict=True)),
        1000,
        searches,
        {1: moves[0], 2: moves[0]},
        flat,
        100,
    )
    fig = answers_figure(ref)
    right = fig.axes[1]
    assert len(right.get_yticklabels()) == 6
    assert "3" in {t.get_text() for t in right.texts}  # three seeds chose the same move
    matplotlib.pyplot.close("all")


def test_convergence_keeps_the_paired_data():
    from mcts_lab import trap

    conv = trap.convergence(budgets=(5, 50), positions=30)
    assert [sum(b) for b in conv.mcts_best] == conv.mcts_hits
    assert [sum(b) for b in conv.flat_best] == conv.flat_hits
    d = conv.mcts_minus_flat(1)
    # the family: MCTS against flat MC at each of the two budgets, and one change of flat MC's
    # share between budgets
    assert conv.comparisons == 3
    assert d.positions == 30 and d.confidence == pytest.approx(1 - 0.05 / 3)
    assert conv.flat_gain(0, 1).confidence == d.confidence
    assert d.difference == pytest.approx(conv.mcts_share[1] - conv.flat_share[1])
