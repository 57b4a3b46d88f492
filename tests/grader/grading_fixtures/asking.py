"""Asking a student process questions directly (no pytest run): one call of ``f(1)``, and the
mark of the tests that need the namespace sandbox."""

from __future__ import annotations

import pytest

from mcts_course.grading import sandbox

CALL = {"op": "call", "name": "f", "many": False, "calls": [[[1], {"$d": []}]], "nodes": []}
namespaced = pytest.mark.skipif(
    sandbox.confinement_mode() not in ("namespaces", "userns"),
    reason="needs the namespace sandbox (a pid namespace per submission)",
)
