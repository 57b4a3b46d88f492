"""Red team round 6's notes, and round 5's left-overs: without namespaces a student's user id
left files in nested world-writable folders and System V segments behind (05, 07, 09); the
direct pytest route read the current folder's configuration; a folder with both NAME.py and
NAME.ipynb said nothing of which was graded (13); the grader's players lent to ``play_game``
answered after the call (round 5, 03); ``--out`` under a folder another user may rename in
(round 5, 15)."""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import folder_in_tmp

from mcts_course.grading import landlock, sandbox, sweep
from mcts_course.grading.process import StudentProcess

as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="a user id per sandbox needs root"
)
OTHER = 54321  # a user id that is neither the grader's nor the sandbox's


@pytest.fixture
def public() -> Iterator[Path]:
    # in /tmp, not pytest's tmp_path: the sandbox's user must read it
    folder = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _segments(key: int) -> list[str]:
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return [line for line in lines if line.split() and int(line.split()[0]) == key]


PLANT = """
import ctypes, os
os.makedirs({nested!r} + '/mine/deeper', exist_ok=True)
open({nested!r} + '/mine/deeper/note', 'w').write('for the next submission')
open({nested!r} + '/planted.pth', 'w').write('import os')
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
SEGMENT = libc.shmget({key}, 4096, 0o1000 | 0o600)  # IPC_CREAT
print('segment', SEGMENT)
import resource
print('mqueue', resource.getrlimit(resource.RLIMIT_MSGQUEUE))  # no POSIX queue either
def report():
    return 0
"""


@as_root
def test_without_namespaces_what_the_students_id_leaves_is_swept(
    no_namespaces, public, monkeypatch
):
    # the sweep is the second line: tested as on a kernel without Landlock (which would refuse
    # these writes: test_redteam_round11_gn.py)
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    with folder_in_tmp("rt6-sweep-", 0o755) as root:  # the sweep's only root here
        shared = root / "shared"  # stands for /tmp
        nested = shared / "a" / "b"  # a world-writable folder nested in it
        nested.mkdir(parents=True)
        for folder in (shared, shared / "a", nested):
            os.chmod(folder, 0o1777)
        theirs = nested / "theirs.txt"
        theirs.write_text("another user's")
        os.chown(theirs, OTHER, OTHER)
        monkeypatch.setattr(sweep, "ROOTS", (str(root),))
        key = random.randrange(1 << 20, 1 << 30)
        process = StudentProcess(
            None,
            "bandits.py",
            None,
            ["report"],
            public,
            code=PLANT.format(nested=str(nested), key=key),
        )
        try:
            printed = process.start()
            assert "segment -1" not in printed and "segment" in printed, printed
            assert (nested / "planted.pth").exists() and _segments(key)  # the attack worked
            assert "mqueue (0, 0)" in printed
        finally:
            process.kill()
        assert not (nested / "planted.pth").exists()
        assert not (nested / "mine").exists()
        assert _segments(key) == []
        assert theirs.read_text() == "another user's"  # another owner's file stays
        line = process.confinement()
        assert "swept after the run" in line
        assert sweep.TOTAL.files >= 2 and sweep.TOTAL.ipc >= 1


# -- 13: NAME.py and NAME.ipynb in one folder -----------------------------------------------------
REPO = Path(__file__).resolve().parents[2]


def _notebook(code: str) -> str:
    import json

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    return json.dumps(
        {"cells": [{**cell, "source": code}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    )


def test_a_py_file_graded_beside_a_notebook_of_its_name_is_said(tmp_path):
    """the stub bandits.py is graded (as always), and the student and the instructor are told
    that bandits.ipynb beside it (the reference, worked in the notebook) was not"""
    import json

    from mcts_grader.batch import grade

    both = tmp_path / "subs" / "both"
    both.mkdir(parents=True)
    os.chmod(both, 0o700)
    (both / "bandits.py").write_text((REPO / "exercises" / "bandits.py").read_text())
    solved = (REPO / "grader" / "mcts_grader" / "solutions" / "bandits.py").read_text()
    (both / "bandits.ipynb").write_text(_notebook(solved))
    only = tmp_path / "subs" / "only"
    only.mkdir()
    os.chmod(only, 0o700)
    (only / "bandits.py").write_text((REPO / "exercises" / "bandits.py").read_text())
    out = tmp_path / "out"
    results = grade([both, only], out, sets=["bandits"], n_jobs=1, pytest_args=["-k", "ucb1"])
    assert [r.score for r in results] == [0, 0]  # the stub was graded in both
    data = json.loads((out / "both" / "results.json").read_text())
    said = '"bandits.py" was graded, not "bandits.ipynb" beside it'
    assert any(said in note for note in data["extra_data"]["notes"])
    assert said in data["output"]  # the student's top-level feedback
    assert all(said in test["output"] for test in data["tests"])  # each failure's message
    alone = json.loads((out / "only" / "results.json").read_text())
    assert "notes" not in alone["extra_data"] and said not in alone["output"]


# -- round 5, 03: the grader's players lent to a call -----------------------------------------
KEEPS = """
KEPT = []

def play_game(first, second):
    KEPT.extend([first, second])
    return first.select_action(None)

def play_later():
    return KEPT[0].select_action(None)
"""


class _Player:
    name = "MCTS(100)"

    def __init__(self) -> None:
        self.moves = 0

    def select_action(self, state: object) -> int:
        self.moves += 1
        return 4


def test_players_lent_to_a_call_are_revoked_when_it_returns():
    from mcts_course.grading.notebook import NotebookTransport
    from mcts_course.grading.process import StudentError
    from mcts_course.grading.proxies import Connection, Student

    namespace: dict = {"__name__": "keeps_players"}
    exec(compile(KEEPS, "<keeps>", "exec"), namespace)
    connection = Connection(NotebookTransport(namespace))
    connection.begin_test(5.0)
    student = Student(connection, {"play_game", "play_later"})
    first, second = _Player(), _Player()
    assert student.play_game(first, second) == 4  # lent for the call: it answers
    assert first.moves == 1
    with pytest.raises(StudentError, match="unknown object"):
        student.play_later()  # the same test, a later call: the player no longer answers
    assert first.moves == 1 and connection.lent == {}


# -- round 5, 15: --out under a folder another user may rename in ------------------------------
@as_root
def test_an_output_folder_under_a_folder_others_may_rename_in_is_refused(tmp_path, capsys):
    from grading_fixtures.shared_folders import honest

    from mcts_course.cli import main

    sub = honest(tmp_path / "alice")
    with folder_in_tmp("rt5-out-", 0o755) as base:
        theirs = base / "theirs"  # a teaching assistant's folder, say
        theirs.mkdir()
        os.chown(theirs, OTHER, OTHER)
        out = theirs / "mine" / "out"
        one = ["--exercise-set=bandits", "-k", "ucb1"]
        assert main(["grade", str(sub), "--out", str(out), *one]) == 2
        err = capsys.readouterr().err
        assert f"--out {out}: {theirs} belongs to user id {OTHER}" in err
        assert not (theirs / "mine").exists()
        os.chown(theirs, 0, 0)
        os.chmod(theirs, 0o777)  # anyone may rename in it (not sticky)
        assert main(["grade", str(sub), "--out", str(out), *one]) == 2
        assert "may be written by others (mode 777)" in capsys.readouterr().err
        os.chmod(theirs, 0o755)  # once it is the grader's alone, the same command grades
        assert main(["grade", str(sub), "--out", str(out), *one]) == 0
        assert (out / "grades.csv").exists()


# -- one check of the --tests paths, for the copy and the pre-run ---------------------------------
def test_a_missing_tests_path_is_named_on_one_printable_line(tmp_path):
    from mcts_grader.vet import BadTests, hidden_copy, vet

    ghost = tmp_path / "hidden\x1b[2J\nPASSED everything"  # a name made to fake output
    for check in (lambda: hidden_copy([ghost], tmp_path / "copy"), lambda: vet([ghost])):
        with pytest.raises(BadTests) as caught:
            check()
        message = str(caught.value)
        assert message.startswith("--tests ") and message.endswith(": no such file or folder")
        assert "\n" not in message and "\x1b" not in message and "hidden" in message
    assert not (tmp_path / "copy").exists()


# -- a busy machine: check() cells take their time limits' scale from the environment ------------
def test_the_time_scale_of_a_notebooks_check_comes_from_the_environment(monkeypatch, capsys):
    from mcts_course.grading.notebook import check
    from mcts_course.grading.plugin import SCALE_ENV

    namespace: dict = {"__name__": "__main__"}
    exec(
        compile((REPO / "grader/mcts_grader/solutions/bandits.py").read_text(), "b", "exec"),
        namespace,
    )
    monkeypatch.setenv(SCALE_ENV, "1")
    full = check("bandits", namespace, show_failures=False)
    assert full.outcomes and all(o.passed for o in full.outcomes)
    monkeypatch.setenv(SCALE_ENV, "0.0001")  # out of the range grading allows (red team 55, 28)
    capsys.readouterr()
    assert check("bandits", namespace, show_failures=False).outcomes == []
    assert "--timeout-scale must be a number from 0.1 to 100" in capsys.readouterr().err
    # allowed here, a budget no answer meets: the scale was applied
    monkeypatch.setattr(sandbox, "TIMEOUT_SCALES", (1e-6, 100.0))
    starved = check("bandits", namespace, show_failures=False)
    assert starved.outcomes and not all(o.passed for o in starved.outcomes)
    monkeypatch.setenv(SCALE_ENV, "fast")
    capsys.readouterr()
    assert check("bandits", namespace, show_failures=False).outcomes == []
    assert f"{SCALE_ENV}='fast': expected a number" in capsys.readouterr().err


# -- a batch killed with SIGKILL: its folders are found and removed by the next ------------------
def test_a_killed_batchs_folders_are_removed_by_the_next(tmp_path, monkeypatch):
    import subprocess

    from mcts_grader import batch

    from mcts_course.grading import leftovers

    monkeypatch.setattr(leftovers, "GRACE", 0.0)  # old enough: only the lock protects them
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid no process has now
    stale = [
        leftovers.make(f"mcts-public-{gone.pid}-", tmp_path),
        leftovers.make(f"mcts-grader-{gone.pid}-", tmp_path),
    ]
    for folder in stale:
        (folder / "mcts_course").mkdir(parents=True)
        leftovers.release(folder)  # as the kernel does when a grader dies, however it dies
    running = leftovers.make(f"mcts-public-{gone.pid}-", tmp_path)  # held: a batch under way
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("not the grader's to remove")
    link = tmp_path / f"mcts-public-{gone.pid}-link1234"
    link.symlink_to(target)
    theirs = tmp_path / f"mcts-grader-{gone.pid}-theirs12"  # another user's folder of that name
    if os.geteuid() == 0:
        theirs.mkdir()
        (theirs / leftovers.MARK).touch()
        os.chown(theirs, OTHER, OTHER)
    assert batch.remove_stale_folders(tmp_path) == sorted(p.name for p in stale)
    assert not any(p.exists() for p in stale)
    assert running.is_dir() and link.is_symlink() and (target / "keep").exists()
    assert theirs.is_dir() or os.geteuid() != 0
    leftovers.remove(running)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with batch._batch_env() as (private, env):  # this batch's own folders carry its pid
        assert private.name.startswith(f"mcts-grader-{os.getpid()}-")
        assert Path(env["MCTS_GRADING_PUBLIC"]).name.startswith(f"mcts-public-{os.getpid()}-")
