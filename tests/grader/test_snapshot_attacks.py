"""A submission read once (issue 24, red-team attack 05): its owner swapping a folder of it for
a symbolic link while it is graded reaches nothing outside it.

The attack folder ``attacks/toctou`` is the red team's: its exercise file sits in a subfolder
``d``; its ``ucb1`` loops, so its first test times out and the grader starts a new student
process for the next test.  Between the two starts the test (playing the student) moves ``d``
away and puts a link to a root-only folder in its place.  Before the snapshot, each start
re-resolved the folder and root copied the link's target beside the student's code, which
printed it into the results (``/etc/shadow``, the hidden tests)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from mcts_grader.batch import grade

from mcts_course.grading import sandbox, snapshot
from mcts_course.grading.snapshot import SnapshotError

ATTACKS = Path(__file__).parent / "attacks"
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0,
    reason="the attack needs the grader as root on Linux, as on Gradescope",
)


def _parent(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(status.split("\nPPid:\t", 1)[1].split("\n", 1)[0])


def sandbox_processes() -> list[int]:
    """This test's processes running as a sandbox's user id (a student's code started); other
    graders on the machine have sandboxes too."""
    low, high = sandbox.uid_range()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
            except OSError:
                continue
            pid = int(entry)
            if low <= uid <= high:
                while pid > 1 and pid != os.getpid():
                    pid = _parent(pid)
                if pid == os.getpid():
                    found.append(int(entry))
    return found


def swap_when_started(folder: Path, target: Path, done: threading.Event) -> None:
    """As the student: once the first student process runs, ``folder`` becomes a link."""
    deadline = time.monotonic() + 120
    while not sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.02)
    folder.rename(folder.with_name(".d"))
    folder.symlink_to(target)
    done.set()


@as_root
def test_a_folder_swapped_for_a_link_while_graded_leaks_nothing(tmp_path):
    sub = tmp_path / "a05"
    shutil.copytree(ATTACKS / "toctou", sub)
    secret = tmp_path / "hidden-private"  # the instructor's hidden tests, root only
    secret.mkdir(mode=0o700)
    (secret / "shadow").write_text("root:SECRET-SHADOW-LINE:20228:0:99999:7:::\n")
    (secret / "conftest.py").write_text("# SECRET-CONFTEST-TEXT\n")
    (secret / "answers.json").write_text('{"SECRET-DATA-TEXT": 1}\n')
    done = threading.Event()
    swapper = threading.Thread(target=swap_when_started, args=(sub / "d", secret, done))
    swapper.start()
    try:
        (result,) = grade([sub], tmp_path / "out", sets=["ttt_mcts"])
    finally:
        swapper.join()
    assert done.is_set() and (sub / "d").is_symlink()  # the swap happened during the run
    # the next process did start (its test was not "not run") and saw only the submission
    started = [o for o in result.outcomes if "could not be loaded" in o.output]
    text = "\n".join(o.output for o in result.outcomes)
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            text += path.read_text(errors="replace")
    assert "SECRET" not in text, started
    assert "SIBLINGS" not in text  # no file beside the code but its own


def test_the_copy_is_private_and_holds_no_link(tmp_path):
    sub = tmp_path / "sub"
    (sub / "d").mkdir(parents=True)
    (sub / "d" / "ttt_mcts.py").write_text("X = 1\n")
    (sub / "helper.py").write_text("Y = 2\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    (sub / "linked").symlink_to(outside)  # a linked folder is not followed
    (sub / "bandits.py").symlink_to(outside / "secret.txt")  # a linked file is refused
    snap = snapshot.take(sub)
    copied = sorted(str(p.relative_to(snap.root)) for p in snap.root.rglob("*"))
    assert copied == ["d", "d/ttt_mcts.py", "helper.py"]
    assert oct(snap.root.stat().st_mode & 0o777) == "0o700"
    assert "symbolic link" in snap.refused[snap.root / "bandits.py"]
    # what the copy had stays, whatever happens to the submission after
    shutil.rmtree(sub / "d")
    (sub / "d").symlink_to(outside)
    assert (snap.root / "d" / "ttt_mcts.py").read_text() == "X = 1\n"
    sources = snapshot.submission_sources(sub)
    assert sources["bandits"].refused and "symbolic link" in sources["bandits"].refused
    assert "ttt_mcts" not in sources  # d is now a link: not followed


def test_a_link_the_student_could_plant_on_the_path_is_refused(tmp_path):
    """A link on the way to the submission is followed only where no one but the grader
    could have made it."""
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)  # others may write: a link here could be anyone's
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "sub").mkdir()
    (tmp_path / "real" / "sub" / "bandits.py").write_text("Z = 3\n")
    (open_folder / "via").symlink_to(tmp_path / "real")
    with pytest.raises(SnapshotError, match="symbolic link"):
        snapshot.take(open_folder / "via" / "sub")
    (tmp_path / "mine").symlink_to(tmp_path / "real")  # the grader's own folder: followed
    snap = snapshot.take(tmp_path / "mine" / "sub")
    assert (snap.target / "bandits.py").read_text() == "Z = 3\n"
