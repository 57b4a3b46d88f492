"""Fixtures the grader's tests share."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcts_course.grading import checkouts, confine, sandbox
from mcts_course.grading.process import StudentProcess


@pytest.fixture(autouse=True, scope="session")
def copies_found_once() -> Iterator[None]:
    """The copies of the repository the sandboxes cover, found once for the session and handed
    to every pytest run these tests start, as ``grade`` hands them to its runs: a walk of
    ``/usr`` takes about a second, and hundreds of runs start here.  (The walk itself is
    tested with the variable removed: test_redteam_round34.)"""
    import os

    env: dict[str, str] = {}
    checkouts.for_runs(env, confine.whole_trees())
    before = os.environ.get(checkouts.COPIES_ENV)
    os.environ.update(env)
    yield
    if before is None:
        os.environ.pop(checkouts.COPIES_ENV, None)
    else:
        os.environ[checkouts.COPIES_ENV] = before


@pytest.fixture
def no_namespaces(monkeypatch) -> Iterator[None]:
    """This machine as a container that forbids unshare (Gradescope's): for this process and
    the pytest runs it starts."""
    monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    yield
    monkeypatch.delenv(confine.NO_NAMESPACES_ENV)
    confine.namespaces_allowed.cache_clear()


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], StudentProcess]]:
    """Start a student process for ``code`` without cgroups, as a teaching assistant's (no
    freezer, no CPU quota: the namespace's processes are stopped by signals); each is killed
    at the end."""
    monkeypatch.setattr(confine, "cgroups_allowed", lambda: False)
    public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    public.chmod(0o755)
    made: list[StudentProcess] = []

    def start(code: str) -> StudentProcess:
        process = StudentProcess(None, "probe.py", None, ["f"], public, code=code)
        made.append(process)
        process.start()
        return process

    yield start
    for process in made:
        process.kill()
    shutil.rmtree(public, ignore_errors=True)
