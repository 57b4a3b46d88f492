"""The AMAF picture's example: one real iteration of the chapter's ``amaf_backup``."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from mcts_lab.amaf_picture import PATH_MOVES, amaf_example, amaf_picture  # noqa: E402


def test_uct_backup_counts_the_result_on_the_path_only() -> None:
    example = amaf_example(seed=0)
    assert [n.action for n in example.path[1:]] == list(PATH_MOVES)
    assert all(n.visits == 1 for n in example.path)
    off_path = [u for u in example.root.children.values() if u not in example.path]
    assert all(u.visits == 0 for u in off_path)


def test_amaf_samples_go_to_moves_the_same_player_made_later() -> None:
    for seed in range(5):
        example = amaf_example(seed)
        later: set[tuple[int, int | None]] = set(example.playout)
        assert example.path[-1].state.is_terminal() is False
        # the leaf's children: none were made, so every sample lies one or two plies down
        for depth in (1, 0):
            node = example.path[depth]
            later.add((example.path[depth + 1].player, example.path[depth + 1].action))
            for child in node.children.values():
                hit = (child.player, child.action) in later
                assert (child in example.amaf) == hit
                if hit:
                    wins, count = example.amaf[child]
                    assert count == 1
                    assert wins == (1 + example.returns[child.player]) / 2


def test_a_cell_taken_later_by_the_other_player_gets_no_sample() -> None:
    example = amaf_example(seed=0)
    root = example.root
    other = [a for p, a in example.playout if p != root.state.current_player]
    assert other  # the playout has a move of the opponent
    assert all(root.children[a] not in example.amaf for a in other)


def test_the_picture_draws_every_node_and_the_playout_end() -> None:
    fig = amaf_picture(seed=0)
    # root, its four children, the three children of the path's first node, the final board
    assert len(fig.axes) == 1 + 4 + 3 + 1
