"""Red team round 11, helper GN's item (attack 10): without namespaces (Gradescope, or one
submission per run on an instructor's machine) the student's user id wrote in a world-writable
folder the sweep does not visit (a ``1777`` folder other than ``/tmp``, ``/var/tmp``,
``/dev/shm``, ``/run/lock``): the held-back test's inputs stayed there for the next run, which
printed them in its visible feedback, and for every local account.  Now the student's process
restricts its own file-system writes with Landlock before any student code runs: only its work
folder, its TMPDIR, ``/dev/shm`` and a few devices.  The grading is real (as root)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.points import most
from grading_fixtures.shared_folders import SOLUTIONS, as_account, folder_in_tmp, userns_usable_by

from mcts_course.cli import main
from mcts_course.grading import confine, landlock, sandbox, sweep
from mcts_course.grading.process import StudentProcess
from mcts_course.grading.sets import SETS

as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="a user id per sandbox needs root"
)
with_landlock = pytest.mark.skipif(landlock.abi() < 1, reason="this kernel offers no Landlock")
TA = 65534  # nobody: an account with no privilege, as a teaching assistant's


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder of the test's own that every account may enter (pytest's tmp_path is root's),
    in /tmp; removed afterwards."""
    with folder_in_tmp("gn-r11-", 0o755) as folder:
        yield folder


def _world_writable(folder: Path) -> Path:
    """A folder like ``/var/crash`` or a course's drop folder: any user may make files there."""
    folder.mkdir()
    folder.chmod(0o1777)
    return folder


# One write attempt in a child process: prints "WHAT done" or "WHAT errno N".
ATTEMPT = """
def attempt(what, action):
    try:
        action()
        print(what, "done")
    except OSError as error:
        print(what, "errno", error.errno)
"""

# -- the ruleset itself, in a child process -------------------------------------------------------
# argv: the ABI to apply, the allowed folder, a folder outside it (root's, writable by root, so
# that only Landlock can refuse), a file outside.  Prints one line per attempt.
RULESET = (
    """
import os, sys, multiprocessing
from mcts_course.grading import landlock
version, inside, outside, existing = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
landlock.restrict_writes([inside], version)
"""
    + ATTEMPT
    + """
attempt("inside-file", lambda: open(os.path.join(inside, "a"), "w").write("x"))
attempt("inside-dir", lambda: os.mkdir(os.path.join(inside, "d")))
moved = os.path.join(inside, "d", "a")
attempt("inside-rename", lambda: os.rename(os.path.join(inside, "a"), moved))
attempt("inside-remove", lambda: os.unlink(moved))
attempt("devnull", lambda: open("/dev/null", "w").write("x"))
attempt("semaphore", lambda: multiprocessing.Lock())  # made in /dev/shm
attempt("outside-file", lambda: open(os.path.join(outside, "b"), "w"))
attempt("outside-dir", lambda: os.mkdir(os.path.join(outside, "e")))
attempt("outside-fifo", lambda: os.mkfifo(os.path.join(outside, "f")))
attempt("outside-link", lambda: os.symlink("/etc/passwd", os.path.join(outside, "g")))
attempt("outside-append", lambda: open(existing, "a").write("x"))
attempt("outside-remove", lambda: os.unlink(existing + ".spare"))
open(os.path.join(inside, "h"), "w").close()
attempt("rename-out", lambda: os.rename(os.path.join(inside, "h"), os.path.join(outside, "h")))
attempt("outside-truncate", lambda: os.truncate(existing, 0))
"""
)


def _ruleset(tmp_path: Path, version: int) -> tuple[dict[str, str], Path, Path]:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    tmp_path.mkdir(exist_ok=True)
    inside.mkdir()
    outside.mkdir()
    existing = outside / "existing"
    existing.write_text("kept")
    Path(f"{existing}.spare").write_text("kept")
    done = subprocess.run(
        [sys.executable, "-c", RULESET, str(version), str(inside), str(outside), str(existing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    return said, inside, outside


@with_landlock
def test_the_ruleset_allows_writes_inside_and_refuses_them_outside(tmp_path):
    said, inside, outside = _ruleset(tmp_path, landlock.abi())
    for what in ("inside-file", "inside-dir", "inside-rename", "inside-remove", "devnull"):
        assert said[what] == "done", (what, said)
    assert said["semaphore"] == "done", said  # multiprocessing keeps working
    refused = [w for w in said if w.startswith(("outside-", "rename-out"))]
    assert len(refused) == 8
    for what in refused:
        assert said[what] == "errno 13", (what, said)  # EACCES: root, yet refused
    assert sorted(p.name for p in outside.iterdir()) == ["existing", "existing.spare"]
    assert (outside / "existing").read_text() == "kept"
    assert sorted(p.name for p in inside.iterdir()) == ["d", "h"]


@with_landlock
def test_the_rights_follow_the_abi_the_kernel_knows(tmp_path):
    """Truncation is a right of ABI 3: a ruleset for ABI 2 does not handle it (the kernel would
    refuse a ruleset naming a right it does not know), one for ABI 3 refuses it outside."""
    assert landlock.handled(1) & (landlock.REFER | landlock.TRUNCATE) == 0
    assert landlock.handled(2) & landlock.REFER and not landlock.handled(2) & landlock.TRUNCATE
    assert landlock.handled(3) & landlock.TRUNCATE
    if landlock.abi() < 3:
        pytest.skip("this kernel's Landlock has no truncate right")
    older, _, outside = _ruleset(tmp_path / "v2", 2)
    assert older["outside-truncate"] == "done" and (outside / "existing").read_text() == ""
    assert older["outside-file"] == "errno 13"  # the rights ABI 2 knows are still refused
    newer, _, outside = _ruleset(tmp_path / "v3", 3)
    assert newer["outside-truncate"] == "errno 13" and (outside / "existing").read_text() == "kept"


# -- attack 10, without namespaces --------------------------------------------------------------
PLANT = (
    """
import os, tempfile
"""
    + ATTEMPT
    + """
WW = {ww!r}
attempt("ww-file", lambda: open(WW + "/.cache-%d-1" % os.getuid(), "w").write("([3, 5, 7], ...)"))
attempt("ww-dir", lambda: os.makedirs(WW + "/mine/deeper"))
attempt("ww-fifo", lambda: os.mkfifo(WW + "/fifo"))
attempt("ww-link", lambda: os.symlink("/etc/passwd", WW + "/link"))
attempt("work", lambda: open("mine.txt", "w").write("ok"))
attempt("tmpdir", lambda: os.close(tempfile.mkstemp()[0]))

def report():
    return 0
"""
)


def _plant(ww: Path, public: Path) -> tuple[dict[str, str], str]:
    process = StudentProcess(
        None, "bandits.py", None, ["report"], public, code=PLANT.format(ww=str(ww))
    )
    try:
        printed = process.start()
    finally:
        process.kill()
    said = dict(line.split(" ", 1) for line in printed.splitlines() if " " in line)
    return said, process.confinement()


@pytest.fixture
def public(shared) -> Path:
    (shared / "public").mkdir()
    folder = sandbox.public_package(shared / "public")
    return folder


@as_root
@with_landlock
def test_10_a_world_writable_folder_the_sweep_never_visits_gets_nothing(
    no_namespaces, shared, public, monkeypatch
):
    ww = _world_writable(shared / "ww")
    swept = _world_writable(shared / "swept")  # the sweep's only root: ww is not in it
    monkeypatch.setattr(sweep, "ROOTS", (str(swept),))
    said, line = _plant(ww, public)
    for what in ("ww-file", "ww-dir", "ww-fifo", "ww-link"):
        assert said[what] == "errno 13", (what, said)
    assert said["work"] == "done" and said["tmpdir"] == "done", said
    assert list(ww.iterdir()) == []
    assert f"Landlock (ABI {landlock.abi()}): file-system writes only in its work folder" in line


@as_root
def test_10_without_landlock_the_sweep_is_the_mechanism_and_the_line_says_so(
    no_namespaces, shared, public, monkeypatch
):
    """A kernel without Landlock (or a container refusing it): the writes succeed, the sweep
    removes them from the folders it visits, and the confinement line says which one ran."""
    monkeypatch.setenv(landlock.NO_LANDLOCK_ENV, "1")  # as on such a kernel
    ww = _world_writable(shared / "ww")
    monkeypatch.setattr(sweep, "ROOTS", (str(shared),))
    said, line = _plant(ww, public)
    assert said["ww-file"] == "done" and said["ww-dir"] == "done", said
    assert list(ww.iterdir()) == []
    assert "no Landlock here: it may write in any world-writable folder" in line
    assert "Landlock (ABI" not in line


PROBE = """

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=math.sqrt(2)):
    import os
    try:
        with open({ww!r} + "/.cache-%d" % os.getuid(), "a") as f:
            f.write(repr((counts, sums, c)) + "\\n")
        print("STASH written")
    except OSError as error:
        print("STASH errno", error.errno)
    return _reference_ucb1(counts, sums, c)
"""


@as_root
@with_landlock
def test_10_through_grade_the_inputs_stay_nowhere(no_namespaces, shared):
    """Red team 11's bandits.py, graded by `grade` without namespaces: every call's write into
    the world-writable folder is refused, and the submission keeps its full marks."""
    ww = _world_writable(shared / "ww")
    subs = shared / "subs"
    subs.mkdir(mode=0o700)
    (subs / "stash").mkdir()
    reference = (SOLUTIONS / "bandits.py").read_text()
    (subs / "stash" / "bandits.py").write_text(reference + PROBE.format(ww=str(ww)))
    out = shared / "out"
    command = ["grade", "--out", str(out), "--exercise-set=bandits", "--", str(subs / "stash")]
    assert main(command) == 0
    data = json.loads((out / "stash" / "results.json").read_text())
    outputs = "\n".join(t.get("output", "") for t in data["tests"])
    assert "STASH errno 13" in outputs and "STASH written" not in outputs
    assert data["score"] == most("bandits")
    assert list(ww.iterdir()) == []
    assert "Landlock (ABI" in data["extra_data"]["confinement"]


# -- the reference keeps its full marks in every mode --------------------------------------------
def _reference(where: Path) -> Path:
    sub = where / "subs" / "reference"
    sub.mkdir(parents=True)
    where.joinpath("subs").chmod(0o700)
    for name in SETS:
        shutil.copy(SOLUTIONS / f"{name}.py", sub / f"{name}.py")
    return sub


def _full_marks(where: Path, env: dict[str, str], user: int | None = None) -> dict:
    sub = _reference(where)
    command = [sys.executable, "-m", "mcts_course", "grade", "--out", str(where / "out")]
    command += ["--", str(sub)]
    if user is not None:
        (where / "tmp").mkdir()
        for path in [where, *where.rglob("*")]:
            os.chown(path, user, user)
        command[:0] = as_account(user)
        env = {**env, "HOME": str(where), "TMPDIR": str(where / "tmp")}
    done = subprocess.run(command, env=env, cwd=where, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    data = dict(json.loads((where / "out" / "reference" / "results.json").read_text()))
    lost = [
        (t["name"], t.get("output", "")[:300]) for t in data["tests"] if t["score"] < t["max_score"]
    ]
    assert data["score"] == sum(most(s) for s in SETS) and not lost, lost
    return data


MODES = {
    "root-namespaces": {},
    "root-no-namespaces": {confine.NO_NAMESPACES_ENV: "1"},
    "teaching-assistant": {},  # an ordinary account: a user namespace
}


@as_root
@with_landlock
@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_reference_keeps_full_marks_under_landlock_in_every_mode(mode, shared):
    env = {k: v for k, v in os.environ.items() if k != confine.NO_NAMESPACES_ENV}
    env.update(MODES[mode])
    where = shared / "run"
    where.mkdir(mode=0o700)
    if mode == "teaching-assistant":
        if not userns_usable_by(TA):
            pytest.skip("user namespaces are not available to an ordinary account here")
        data = _full_marks(where, env, user=TA)
    else:
        data = _full_marks(where, env)
    assert f"Landlock (ABI {landlock.abi()})" in data["extra_data"]["confinement"]
