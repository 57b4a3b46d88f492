"""Fixtures the grader's tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcts_course.grading import confine


@pytest.fixture
def no_namespaces(monkeypatch) -> Iterator[None]:
    """This machine as a container that forbids unshare (Gradescope's): for this process and
    the pytest runs it starts."""
    monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    yield
    monkeypatch.delenv(confine.NO_NAMESPACES_ENV)
    confine.namespaces_allowed.cache_clear()
