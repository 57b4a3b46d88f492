"""claim and glue take numpy's scalars: the lab's results are numpy arrays."""

from __future__ import annotations

import numpy as np
import pytest
from mcts_lab.claims import ClaimFailed, claim, glue


def test_a_numpy_comparison_is_a_condition():
    claim(np.float64(0.3) < 0.5, "numpy booleans pass")
    with pytest.raises(ClaimFailed):
        claim(np.float64(0.7) < 0.5, "and fail")


def test_glue_hands_python_numbers_to_myst_nb():
    value = glue("numpy_scalar", np.float64(0.25))
    assert type(value) is float and value == 0.25
    assert glue("plain", 3) == 3


def test_one_decimal_number_reached_two_ways_prints_alike():
    """19/400 and 1 - 381/400 differ in their last binary digit; glued, they print the same."""
    direct, complement = 19 / 400, 1 - 381 / 400
    assert f"{direct:.1%}" != f"{complement:.1%}"  # the trap: 4.7% and 4.8%
    assert f"{glue('direct', direct):.1%}" == f"{glue('complement', complement):.1%}"


def test_points_print_as_the_table_prints_the_share():
    """A share in percentage points has the digits ``.1%`` gives the share itself."""
    from mcts_lab.claims import points

    for k, n in ((23, 80), (3, 400), (49, 80), (1, 3)):
        assert f"{points(k / n):.1f}%" == f"{k / n:.1%}"
    assert any(f"{100 * k / 80:.1f}%" != f"{k / 80:.1%}" for k in range(81))  # the trap
