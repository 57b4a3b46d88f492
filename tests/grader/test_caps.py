"""Caps for the whole submission (issue 24, part C and E): CPU time counted over all its
processes together (daemons that setsid and fork again included), cgroups of a grader killed
with SIGKILL removed at the next start, and an account that can confine nothing refusing to
run code unless told --unconfined (the capability check simulated)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.mutants import build

from mcts_course.cli import main
from mcts_course.grading import confine, sandbox
from mcts_course.grading.process import StudentGone, StudentProcess


def _cgroups_here() -> bool:
    return os.geteuid() == 0 and confine.mode() == "namespaces" and confine.cgroups_allowed()


needs_cgroups = pytest.mark.skipif(not _cgroups_here(), reason="needs root with cgroups (v1)")


@pytest.fixture(scope="module")
def public() -> Iterator[Path]:
    folder = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


DAEMONS = """
import os, time

STARTED = []

def report(seconds):
    for _ in range(0 if STARTED else 2):
        STARTED.append(1)
        if os.fork() == 0:
            try:
                os.setsid()  # out of the process group, and a RLIMIT_CPU of its own
            except PermissionError:  # the filter refuses it (red team 39, 01)
                pass
            if os.fork() == 0:
                while True:
                    pass
            os._exit(0)
    time.sleep(seconds)  # the server itself uses no CPU
    return 1
"""


@needs_cgroups
def test_cpu_time_is_counted_for_all_the_submissions_processes(public):
    """Daemons burn CPU while the server sleeps through its questions: the submission is
    stopped once all its processes together pass its CPU seconds (however loaded the machine,
    the daemons get a second of CPU within a minute of questions)."""
    process = StudentProcess(None, "d.py", None, ["report"], public, cpu_seconds=1, code=DAEMONS)
    process.start()
    request = {"op": "call", "name": "report", "many": False, "nodes": []}
    request["calls"] = [[[1.0], {"$d": []}]]
    try:
        with pytest.raises(StudentGone, match="together used .* CPU time, more than the 1 s"):
            for _ in range(60):
                process.exchange(request, 30.0, lambda m: {}, "report")
        assert not process.alive()
    finally:
        process.kill()


BURNER = """
import os, time

def start():
    if os.fork() == 0:
        try:
            os.setsid()  # a daemon: out of the process group, which the grader signals
        except PermissionError:  # the filter refuses it (red team 39, 01)
            pass
        while True:  # each generation burns 0.3 s, under its own RLIMIT_CPU, then forks
            end = time.process_time() + 0.3
            while time.process_time() < end:
                pass
            if os.fork() != 0:
                os._exit(0)
    return 1

def wait(seconds):
    time.sleep(seconds)  # the server uses no CPU while the daemon burns
    return 1
"""


@needs_cgroups
def test_a_daemon_is_stopped_at_the_cpu_cap_not_when_the_next_answer_comes(public):
    """A function starts a detached CPU burner (a daemon that forks again before each
    process's own CPU limit) and returns at once; the next question takes 40 s of sleep.
    The cage's watcher kills the whole submission as soon as its processes together pass the
    cap (1 s), during that question: the seconds reported are the cap's, not the many more
    the daemon would burn until an answer came."""
    process = StudentProcess(
        None, "b.py", None, ["start", "wait"], public, cpu_seconds=1, code=BURNER
    )
    process.start()
    ask = {"op": "call", "many": False, "nodes": []}
    try:
        reply, _ = process.exchange(
            {**ask, "name": "start", "calls": [[[], {"$d": []}]]}, 30.0, lambda m: {}, "start"
        )
        with pytest.raises(StudentGone, match="together used .* CPU time") as gone:
            process.exchange(
                {**ask, "name": "wait", "calls": [[[40.0], {"$d": []}]]},
                60.0,
                lambda m: {},
                "wait",
            )
        used = int(re.search(r"together used (\d+) s", str(gone.value)).group(1))
        assert used <= 2  # the watcher reads the cgroup ten times a second
        assert not process.alive()
    finally:
        process.kill()


@needs_cgroups
def test_cgroups_of_a_grader_killed_by_sigkill_are_removed_at_the_next_start(monkeypatch):
    monkeypatch.setattr(confine, "GRACE", 0.0)  # made just now, unlocked: a leftover
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs: a grader that was killed
    stale = f"mcts-{dead.pid}-box-test{os.getpid()}"
    live = f"mcts-{os.getpid()}-box-test{os.getpid()}"  # a grader that still runs
    made: list[Path] = []
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        for controller in confine.CONTROLLERS:
            parent = confine._own_cgroup(controller)
            assert parent is not None
            for name in (stale, live):
                if not (parent / name).exists():
                    (parent / name).mkdir()
                    made.append(parent / name)
        freezer = confine._own_cgroup("freezer") / stale
        (freezer / "cgroup.procs").write_text(str(sleeper.pid))
        (freezer / "freezer.state").write_text("FROZEN")  # as a grader leaves it between tests
        removed = confine.remove_stale()
        assert stale in removed and live not in removed
        assert not any((confine._own_cgroup(c) / stale).exists() for c in confine.CONTROLLERS)
        assert all((confine._own_cgroup(c) / live).exists() for c in confine.CONTROLLERS)
        assert sleeper.wait(timeout=10) == -9  # its process, frozen, was killed
    finally:
        sleeper.kill()
        for folder in made:
            if folder.exists():
                folder.rmdir()


# -- an account that can confine nothing ----------------------------------------------------------
@pytest.fixture
def powerless(monkeypatch):
    """This process as an ordinary user where user namespaces are off (the check simulated)."""
    monkeypatch.setattr(confine, "mode", lambda: "none")
    monkeypatch.setattr(sandbox, "is_root", lambda: False)
    monkeypatch.delenv(sandbox.UNCONFINED_ENV, raising=False)
    monkeypatch.setattr(sandbox, "grader_package", lambda: None)  # even a student's install


def test_check_refuses_without_unconfined_and_says_what_it_means(powerless, tmp_path, capsys):
    folder = build("reference", tmp_path / "mine", files=("bandits",))
    status = main(["check", str(folder)])
    out = capsys.readouterr().out
    assert status == 75, out[-2000:]
    assert "--unconfined" in out and "can read and change whatever you can" in out
    assert "passed" not in out  # no code ran


def test_check_with_unconfined_runs_and_says_so(powerless, tmp_path, capsys):
    folder = build("reference", tmp_path / "mine", files=("bandits",))
    assert main(["check", str(folder), "--unconfined"]) == 0
    out = capsys.readouterr().out
    assert "confinement: none: --unconfined" in out and "whatever you can" in out
    assert os.environ.get(sandbox.UNCONFINED_ENV) is None  # for that run only


def test_the_pytest_plugin_refuses_too(powerless, tmp_path):
    folder = build("reference", tmp_path / "mine", files=("bandits",))
    import pytest as runner

    status = runner.main(
        [
            "-q",
            "-p",
            "no:cacheprovider",
            "--pyargs",
            "mcts_course.grading",
            f"--submission={folder}",
            "--exercise-set=bandits",
            f"--rootdir={tmp_path}",
            "-c",
            os.devnull,
        ]
    )
    assert status == 75
    assert sandbox.confinement().startswith("none: refused (pass --unconfined")
