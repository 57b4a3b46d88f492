"""Red team round 23: a kill by a memory limit above the submission's (a container's, the
machine's OOM killer) was taken for the submission's own cap, so an honest student lost points
in a row that read ``graded`` (02, 03: the cgroup's ``oom_kill`` counts every kill, whatever
limit caused it; without a cgroup, as a teaching assistant, every SIGKILL was the student's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from grading_fixtures.shared_folders import SOLUTIONS, as_account, folder_in_tmp, userns_usable_by

from mcts_course.grading import confine
from mcts_course.grading.process import StudentProcess

TA = 65534  # nobody: an account with no privilege, as a teaching assistant's

# the reference, but a SIGKILL at the first question: what the OOM killer sends
KILLED = """

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
"""


def _process(
    tmp_path: Path, failcnt: int, oom_kill: int, cpu: float, peak_mb: int = 100
) -> StudentProcess:
    """A process whose cage's memory cgroup (its files as the kernel's, limit 512 MB) and CPU
    count say so."""
    memory, cpuacct = tmp_path / "memory", tmp_path / "cpuacct"
    memory.mkdir(parents=True)
    cpuacct.mkdir()
    (memory / "memory.failcnt").write_text(f"{failcnt}\n")
    (memory / "memory.max_usage_in_bytes").write_text(f"{peak_mb << 20}\n")
    (memory / "memory.limit_in_bytes").write_text(f"{512 << 20}\n")
    (memory / "memory.oom_control").write_text(f"oom_kill_disable 0\noom_kill {oom_kill}\n")
    (cpuacct / "cpuacct.usage").write_text(f"{int(cpu * 1e9)}\n")
    cage = confine.Cage.__new__(confine.Cage)
    cage.cgroups, cage.machine_oom_kills = {"memory": memory, "cpuacct": cpuacct}, None
    process = StudentProcess.__new__(StudentProcess)
    process.box = SimpleNamespace(cage=cage)  # type: ignore[assignment]
    process.cpu_seconds = 100
    return process


def _load(tmp_path: Path, name: str, extra: str) -> dict:
    from mcts_course.cli import main

    sub = tmp_path / name
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + extra)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    return json.loads((out / name / "results.json").read_text())


def test_a_kill_by_an_outer_limit_is_not_the_submissions_cap(tmp_path):
    # an ancestor's limit (or the machine's) killed a process of the cage: its own limit was
    # never reached, so its failcnt stays 0 while oom_kill counts the kill
    assert not _process(tmp_path / "a", failcnt=0, oom_kill=1, cpu=3.0)._capped(None)
    assert _process(tmp_path / "b", failcnt=4, oom_kill=1, cpu=3.0)._capped(None)
    assert _process(tmp_path / "c", failcnt=0, oom_kill=0, cpu=100.0)._capped(None)
    # a kernel that no longer counts failcnt: the peak at the limit says it was reached
    assert _process(tmp_path / "d", failcnt=0, oom_kill=1, cpu=3.0, peak_mb=512)._capped(None)
    # any process of the submission (red team 41, 06): the cage's own word
    assert _process(tmp_path / "e", failcnt=0, oom_kill=1, cpu=3.0).outside
    assert not _process(tmp_path / "f", failcnt=0, oom_kill=1, cpu=3.0, peak_mb=512).outside


def test_without_a_cgroup_only_the_cpu_limit_kills():
    process = StudentProcess.__new__(StudentProcess)
    process.box = SimpleNamespace(cage=None)  # type: ignore[assignment]
    process.cpu_seconds = 100
    assert not process._capped(3.0) and not process._capped(None)
    assert process._capped(100.5)


@pytest.fixture
def shared() -> Iterator[Path]:
    with folder_in_tmp("rt23-", 0o755) as folder:
        yield folder


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the grader as another account")
def test_a_teaching_assistants_grade_of_a_killed_process_is_not_a_grade(shared):
    if not userns_usable_by(TA):
        pytest.skip("user namespaces are not available to an ordinary account here")
    sub = shared / "subs" / "heavy"
    sub.mkdir(parents=True)
    (shared / "subs").chmod(0o700)
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + KILLED)
    (shared / "tmp").mkdir()
    for path in [shared, *shared.rglob("*")]:
        os.chown(path, TA, TA)
    command = [sys.executable, "-m", "mcts_course", "grade", "--out", str(shared / "out")]
    command += ["--exercise-set=bandits", "--", str(sub)]
    env = {**os.environ, "HOME": str(shared), "TMPDIR": str(shared / "tmp")}
    done = subprocess.run(
        as_account(TA) + command, env=env, cwd=shared, capture_output=True, text=True, timeout=600
    )
    results = shared / "out" / "heavy" / "results.json"
    assert results.exists(), done.stdout + done.stderr
    data = json.loads(results.read_text())
    assert data["extra_data"]["status"] == "killed" and done.returncode == 1, done.stdout
    assert "heavy,killed," in (shared / "out" / "grades.csv").read_text()


# -- 04-05: thousands of notebooks named in every note, a results.json past the read-back cap ---
NOTEBOOK = (
    '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", '
    '"metadata": {}, "execution_count": null, "outputs": [], "source": "check(\\"bandits\\")\\n"}]}'
)


def _with_copies(where: Path, copies: int) -> Path:
    where.mkdir(parents=True)
    (where / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
    for i in range(copies):
        (where / f"n{i:05d}{'x' * 200}.ipynb").write_text(NOTEBOOK)
    return where


def test_04_the_note_on_other_copies_names_a_few_then_counts(tmp_path):
    from mcts_course.cli import main

    sub = _with_copies(tmp_path / "many", 40)
    out = tmp_path / "o"
    main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
    data = json.loads((out / "many" / "results.json").read_text())
    note = next(n for n in data["extra_data"]["notes"] if "other files hold" in n)
    assert note.count(".ipynb") == 5 and note.endswith(
        "and 35 more (hand in one copy of each exercise)"
    )
    assert len((out / "many" / "results.json").read_bytes()) < 200_000


def test_05_a_results_json_past_the_cap_is_a_failed_run_not_a_lost_row(tmp_path, monkeypatch):
    from mcts_grader import batch

    from mcts_course.cli import main

    sub = _with_copies(tmp_path / "big", 0)
    monkeypatch.setattr(batch, "RESULTS_CAP", 5_000)  # as if its notes had made it huge
    out = tmp_path / "o"
    code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits"])
    rows = (out / "grades.csv").read_text().splitlines()
    assert [r.split(",")[:3] for r in rows[1:]] == [["big", "crashed", "0"]] and code == 1
    data = json.loads((out / "big" / "results.json").read_text())
    assert "exceed the grader's size cap" in data["output"]


def test_05_an_unreadable_results_json_keeps_its_row(tmp_path, capsys):
    import os

    from mcts_grader.table import earlier_rows

    (tmp_path / "lost").mkdir()
    (tmp_path / "lost" / "results.json").write_text('{"tests": [')  # cut mid-write
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        rows = earlier_rows(fd, set())
    finally:
        os.close(fd)
    assert [(r.name, r.status) for r in rows] == [("lost", "not graded")]
    assert "lost/results.json cannot be read" in capsys.readouterr().err


# -- 01: code the grader's own process parses is capped (its memory is nobody's cgroup) ---------
def test_01_code_past_the_parse_cap_is_refused_before_parsing():
    from mcts_course.grading.pyparse import PARSE_CAP, parse

    parse("_PAD = [" + "0," * 1000 + "]\n")  # small: parsed
    with pytest.raises(SyntaxError, match="more than the 256 KB the grader's checks read"):
        parse("_PAD = [" + "0," * (PARSE_CAP // 2) + "]\n")


def test_01_a_notebooks_cells_count_together(tmp_path):
    from mcts_course.grading.pyparse import PARSE_CAP
    from mcts_course.grading.sources import notebook_code

    cell = "X = [" + "0," * (PARSE_CAP // 8) + "]\n"  # a quarter of the cap each
    cells = [{"cell_type": "code", "source": "def ucb1_choice():\n    return 0\n"}]
    cells += [{"cell_type": "code", "source": cell} for _ in range(6)]
    kept, everything, notes = notebook_code({"cells": cells})
    assert "def ucb1_choice" in kept and len(everything) <= PARSE_CAP
    assert any("code cell 5 and those after it were skipped" in n for n in notes), notes


def test_01_a_big_exercise_file_scores_nothing_with_the_reason(tmp_path):

    pad = "\n_PAD = [" + "0," * (300 << 9) + "]\n"  # 300 KB of code
    data = _load(tmp_path, "big", pad)
    assert data["tests"] and all(t["score"] == 0 for t in data["tests"])
    assert "more than the 256 KB the grader's checks read" in data["tests"][0]["output"]


# -- 10: links to "." in a student's folder made the privacy check walk 3**40 paths -------------
def test_10_the_privacy_check_follows_no_link_below_the_folder(shared):
    import time

    from mcts_course.grading import sandbox

    bob = shared / "bob"
    bob.mkdir(mode=0o711)
    bob.chmod(0o711)
    (bob / "bandits.py").write_text("X = 1\n")
    (bob / "bandits.py").chmod(0o600)
    for name in "abc":
        os.symlink(".", bob / name)
    os.symlink("/etc/passwd", bob / "passwd")  # readable by all, but not through this folder
    started = time.monotonic()
    assert not sandbox.readable_by_others(bob)
    (bob / "bandits.py").chmod(0o644)
    assert sandbox.readable_by_others(bob)
    assert time.monotonic() - started < 5


# -- 13: empty files pin kernel memory that the tmpfs size cap does not count ---------------------
INODES = """

_made, _error = 0, ""
for _folder in ("/tmp", "/dev/shm"):
    try:
        for _i in range(6000):
            open(f"{_folder}/f{_i}", "w").close()
            _made += 1
    except OSError as _e:
        _error += f"{_folder}: {_e.errno} "


def ucb1_choice(counts, sums, c=2 ** 0.5):
    raise ValueError(f"MADE {_made} {_error}")
"""


def test_13_the_private_folders_hold_a_few_thousand_files_each(tmp_path):
    from mcts_course.grading import confine
    from mcts_course.grading.sandbox import confinement_mode

    if confinement_mode() != "namespaces":
        pytest.skip("the private tmpfs folders need namespaces")
    data = _load(tmp_path, "inodes", INODES)
    said = next(t["output"] for t in data["tests"] if "MADE" in t["output"])
    made = int(said.split("MADE ", 1)[1].split()[0])
    assert made < 2 * 4096 and "/tmp: 28" in said and "/dev/shm: 28" in said, said  # ENOSPC
    assert "nr_inodes=" in confine.SETUP


# -- 09: static checks walked one statement once per name it binds -------------------------------
def test_09_the_delegation_check_walks_each_statement_once(monkeypatch):
    import ast

    from mcts_course.grading import delegation

    names = ", ".join(f"a{i}" for i in range(500))
    code = f"{names} = ({', '.join('0' for _ in range(500))})\n\n"
    code += "def ucb1_choice(counts, sums, c=1.0):\n    return a0 + a1 + a2\n"
    walks: list[ast.AST] = []
    real = ast.walk

    def counted(node):
        walks.append(node)
        return real(node)

    monkeypatch.setattr(delegation.ast, "walk", counted)
    assert delegation.library_delegation(code, "bandits") is None
    assert sum(isinstance(n, ast.Assign) for n in walks) == 1


def test_09_a_notebook_keeps_what_reads_builtins_and_drops_what_reads_the_unknown():
    from mcts_course.grading.sources import notebook_code

    cells = [{"cell_type": "code", "source": "A = 1\nb = (A, int)\nc = rows[0]\n"}]
    kept, _, _ = notebook_code({"cells": cells})
    assert "b = (A, int)" in kept and "rows" not in kept


# -- 07, 14: memory beyond RLIMIT_AS in no process's RSS (a teaching assistant's run) -----------
MEMORY_CALLS = """

import os as _os
import socket as _socket

_said = []
try:
    _os.memfd_create("hold")
    _said.append("memfd made")
except OSError as _e:
    _said.append(f"memfd {_e.errno}")
_a, _b = _socket.socketpair()
try:
    _a.setsockopt(_socket.SOL_SOCKET, _socket.SO_SNDBUF, 4 << 20)
    _said.append("sndbuf set")
except OSError as _e:
    _said.append(f"setsockopt {_e.errno}")


def ucb1_choice(counts, sums, c=2 ** 0.5):
    raise ValueError("SAID " + ", ".join(_said))
"""


def test_07_14_no_memfd_and_no_socket_options_in_the_sandbox(tmp_path):

    data = _load(tmp_path, "memory", MEMORY_CALLS)
    said = next(t["output"] for t in data["tests"] if "SAID" in t["output"])
    assert "SAID memfd 1, setsockopt 1" in said, said  # EPERM both
    assert "no memfd" in data["extra_data"]["confinement"]


# -- 08: loading's limit is CPU seconds, as a question's, not 10 s of wall time -------------------
SLEEPY_LOAD = """

import time as _time

_time.sleep(12)  # 12 s of wall time and no CPU: what a load given a sliver of a core sees
"""

SPINNING_LOAD = """

while True:  # a load that never ends on its own
    pass
"""


def test_08_a_load_that_waits_past_ten_seconds_is_graded(tmp_path):
    from mcts_course.grading.sandbox import confinement_mode

    if confinement_mode() != "namespaces":
        pytest.skip("CPU seconds are counted with namespaces")
    data = _load(tmp_path, "sleepy", SLEEPY_LOAD)
    assert data["extra_data"]["status"] == "graded"
    assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"]), data


def test_08_a_load_that_spins_fails_on_its_cpu_seconds(tmp_path):
    from mcts_course.grading.sandbox import confinement_mode

    if confinement_mode() != "namespaces":
        pytest.skip("CPU seconds are counted with namespaces")
    data = _load(tmp_path, "spinning", SPINNING_LOAD)
    assert data["extra_data"]["status"] == "graded"  # the file's own fault: a 0, graded
    assert all(t["score"] == 0 for t in data["tests"])
    assert "longer than 10 s of CPU time" in data["tests"][0]["output"], data["tests"][0]
