"""Fixtures the grader's tests share."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcts_course.grading import confine, sandbox
from mcts_course.grading.process import StudentProcess


@pytest.fixture(autouse=True, scope="session")
def copies_found_once() -> Iterator[None]:
    """What the sandboxes show of the system and the copies of the repository they cover,
    worked out once for the session and handed to every pytest run these tests start, as
    ``grade`` hands them to its runs (``ldd`` and a walk take a second or so, and hundreds of
    runs start here).  (Both are tested with the variables removed: test_redteam_round34.)"""
    import os

    env: dict[str, str] = {}
    confine.for_runs(env)
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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
def unstarted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], StudentProcess]]:
    """A student process for ``code`` without cgroups, as a teaching assistant's (no freezer, no
    CPU quota: the namespace's processes are stopped by signals), not yet started; each is
    killed at the end."""
    monkeypatch.setattr(confine, "cgroups_allowed", lambda: False)
    public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    public.chmod(0o755)
    made: list[StudentProcess] = []

    def make(code: str) -> StudentProcess:
        process = StudentProcess(None, "probe.py", None, ["f"], public, code=code)
        made.append(process)
        return process

    yield make
    for process in made:
        process.kill()
    shutil.rmtree(public, ignore_errors=True)


@pytest.fixture
def started(unstarted: Callable[[str], StudentProcess]) -> Callable[[str], StudentProcess]:
    """As :func:`unstarted`, started (its file loaded)."""

    def start(code: str) -> StudentProcess:
        process = unstarted(code)
        process.start()
        return process

    return start
