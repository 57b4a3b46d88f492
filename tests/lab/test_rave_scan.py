"""The tuned-and-tested RAVE scan of chapter 13: positions, tuning on one half, the shipped data."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab import rave_scan
from mcts_lab.rave_scan import AGENTS, Positions, Scan


@pytest.fixture(scope="module")
def positions() -> Positions:
    return rave_scan.tictactoe_positions()


def test_every_position_has_a_wrong_move_and_a_right_one(positions):
    for state, optimal in zip(positions.states, positions.optimal, strict=True):
        legal = set(state.legal_actions())
        assert optimal and optimal < legal  # the choice matters: some move, not every move


def test_one_position_per_symmetry_class(positions):
    classes = {state.symmetry_class() for state in positions.states}
    assert len(classes) == len(positions.states)
    assert all(state.is_canonical() for state in positions.states)
    # every decisive position is a rotation or reflection of one of them
    from mcts_lab.trap import decisive_positions

    assert {s.symmetry_class() for s in decisive_positions()} == classes


def _synthetic(positions: Positions, rates: dict[str, float]) -> Scan:
    """Flags drawn at the given rates per spec (every other spec never errs)."""
    rng = np.random.default_rng(0)
    shape = (len(positions.numbers), rave_scan.SEEDS)
    flags = {s: np.zeros(shape, dtype=bool) for specs in AGENTS.values() for s in specs}
    for spec, rate in rates.items():
        flags[spec] = rng.random(shape) < rate
    return Scan(positions, flags)


def test_tuning_uses_the_even_half_only(positions):
    scan = _synthetic(positions, {s: 0.3 for s in AGENTS["UCT"]})
    odd = scan.half(1)
    worst = AGENTS["UCT"][2]
    scan.flags[worst][odd] = True  # bad only on the test half: tuning cannot see it
    scan.flags[worst][~odd] = False  # and perfect on the tuning half
    assert odd.sum() in (len(odd) // 2, len(odd) - len(odd) // 2)  # classes alternate
    assert scan.tuned("UCT") == worst
    assert scan.test_flags("UCT").mean() == 1.0


def test_a_better_agent_shows_a_negative_paired_difference(positions):
    scan = _synthetic(
        positions, {**{s: 0.3 for s in AGENTS["UCT"]}, **{s: 0.3 for s in AGENTS["RAVE"]}}
    )
    diff, (low, high), p = scan.versus_uct("RAVE as MoGo")  # never errs
    assert diff < 0 and high < 0 and p < 0.01
    same = scan.versus_uct("graph (transpositions)")  # never errs either
    assert same[0] < 0


def test_the_shipped_scan_is_what_its_specs_and_seeds_give():
    scan = rave_scan.load()
    assert set(scan.flags) == {s for specs in AGENTS.values() for s in specs}
    shape = (len(scan.positions.numbers), rave_scan.SEEDS)
    assert all(f.shape == shape for f in scan.flags.values())
    assert rave_scan.recheck(scan, scan.tuned("RAVE as MoGo"), sample=40)
    assert rave_scan.recheck(scan, "mcts:c=1.41", sample=40, seed=1)


def test_a_changed_flag_is_caught(positions):
    scan = rave_scan.load()
    spec = "mcts:c=0.7"
    scan.flags[spec] = ~scan.flags[spec]
    assert not rave_scan.recheck(scan, spec, sample=20)


def test_the_grid_reaches_past_the_chosen_k_and_the_graph_is_outside_the_comparisons():
    scan = rave_scan.load()
    assert max(rave_scan.K_VALUES) > int(
        float(scan.tuned("RAVE as MoGo").split("rave=")[1].split(",")[0])
    )
    assert "graph (transpositions)" in AGENTS and "graph (transpositions)" not in rave_scan.COMPARED
    text = rave_scan.scan_table(scan, {})._repr_markdown_()
    assert "graph" not in text and "RAVE as MoGo" in text


def test_graph_links_counts_links_and_changed_moves():
    from mcts_lab.rave_scan import SEEDS, graph_links

    positions = rave_scan.tictactoe_positions()
    small = Positions(positions.numbers[:4], positions.states[:4], positions.optimal[:4])
    scan = Scan(small, {})
    links = graph_links(scan, parity=1)
    assert links.searches == 2 * SEEDS
    assert 0 <= links.linked <= links.searches
    assert 0 <= links.moves_differ <= links.searches
