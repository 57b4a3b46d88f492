"""Red team round 8, the kernel surface of the student's processes (helper GF's items): kernel
keys made by one run were read by the next (01), the grader's session keyring was possessed by
the student's code (04), a teaching assistant's keys were read and written (05); as root the
student's code could unshare a user namespace and mount, with a full bounding set (10)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS, as_account, userns_usable_by

from mcts_course.grading import kernel

linux = pytest.mark.skipif(
    sys.platform != "linux" or kernel._arch() is None, reason="seccomp on x86_64/aarch64 Linux"
)
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="the grader's modes as root"
)
SECRET = "gf-login-secret-0xC0FFEE"

# The student's ucb1_choice reports what it can do with kernel keys and namespaces, then fails
# (its visible test's output carries the report).
PROBE = """

def _probe():
    import ctypes
    from mcts_course.grading import kernel
    libc = ctypes.CDLL(None, use_errno=True)
    said = []
    for name in ("/proc/keys", "/proc/key-users"):
        try:
            said.append(name + "=" + repr(open(name).read()[:300]))
        except OSError as error:
            said.append(name + " errno " + str(error.errno))
    said.append("session-read %d errno %d" % (
        kernel.syscall("keyctl", 11, -3, 0, 0), ctypes.get_errno()))  # KEYCTL_READ
    buf = ctypes.create_string_buffer(4096)
    n = libc.syscall(ctypes.c_long(kernel.NUMBERS[kernel._arch()]["keyctl"]), ctypes.c_long(11),
                     ctypes.c_long(-3), buf, ctypes.c_long(4096))
    if n > 0:
        for i in range(0, min(n, 4096), 4):
            serial = int.from_bytes(buf.raw[i:i + 4], "little")
            m = libc.syscall(ctypes.c_long(kernel.NUMBERS[kernel._arch()]["keyctl"]),
                             ctypes.c_long(11), ctypes.c_long(serial), buf, ctypes.c_long(4096))
            said.append("key %d: %r" % (serial, buf.raw[:max(m, 0)]))
    added = libc.syscall(ctypes.c_long(kernel.NUMBERS[kernel._arch()]["add_key"]), b"user",
                         b"gf-left-behind", b"hidden inputs", ctypes.c_long(13),
                         ctypes.c_long(-4))
    said.append("add_key %d errno %d" % (added, ctypes.get_errno()))
    said.append("unshare-userns %d errno %d" % (
        kernel.syscall("unshare", 0x10000000 | 0x20000), ctypes.get_errno()))
    said.append(repr(kernel.status()))
    return "; ".join(said)


def ucb1_choice(counts, sums, c=math.sqrt(2)):
    raise RuntimeError("PROBE " + _probe())
"""

# Stands for the grader's login (pam_keyinit, `keyctl session`): a session keyring of its
# own holding a secret, then `grade`.
LOGIN = """
import ctypes, sys
from mcts_course.grading import kernel
libc = ctypes.CDLL(None, use_errno=True)
assert kernel.syscall("keyctl", 1, None) > 0  # KEYCTL_JOIN_SESSION_KEYRING
key = libc.syscall(ctypes.c_long(kernel.NUMBERS[kernel._arch()]["add_key"]), b"user",
                   b"krb5cc:instructor", SECRET, ctypes.c_long(len(SECRET)), ctypes.c_long(-3))
assert key > 0, ctypes.get_errno()
from mcts_course.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (not pytest's tmp_path, which only root may): the
    teaching assistant's account works in a folder of its own inside it."""
    base = Path(tempfile.mkdtemp(prefix="gf-shared-"))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if base.exists():  # a tree deeper than rmtree's recursion (a failed sweep's)
            from mcts_course.grading import sweep

            fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
            try:
                sweep._empty(fd)
            finally:
                os.close(fd)
            base.rmdir()


def _probe_submission(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + PROBE)
    return folder


def _grade_under_a_login(where: Path, env: dict[str, str], user: int | None = None) -> dict:
    sub = _probe_submission(where / "sub")
    script = where / "login.py"
    script.write_text(f"SECRET = {SECRET.encode()!r}\n" + LOGIN)
    if user is not None:
        (where / "tmp").mkdir()
        for path in [where, *where.rglob("*")]:
            os.chown(path, user, user)
    command = [sys.executable, str(script), "grade", str(sub), "--out", str(where / "out")]
    command += ["--exercise-set=bandits", "-k", "test_ucb1_choice"]
    if user is not None:
        command[:0] = as_account(user)
        env = {**env, "HOME": str(where), "TMPDIR": str(where / "tmp")}
    done = subprocess.run(command, env=env, cwd=where, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads((where / "out" / "sub" / "results.json").read_text()))


def _said(results: dict) -> str:
    outputs = [t.get("output", "") for t in results["tests"]]
    (said,) = [o for o in outputs if "PROBE" in o][:1]
    return str(said.split("PROBE", 1)[1].split("\n")[0])


MODES = {
    "root-namespaces": {},
    "root-no-namespaces": {"MCTS_NO_NAMESPACES": "1"},
    "teaching-assistant": {},  # an ordinary account: a user namespace
}


@linux
@as_root
@pytest.mark.parametrize("mode", sorted(MODES))
def test_01_04_05_the_students_code_neither_sees_nor_makes_kernel_keys(mode, shared):
    env = {**os.environ, **MODES[mode]}
    where = shared / "run"
    where.mkdir(mode=0o700)
    if mode == "teaching-assistant":
        ta = 65534  # nobody: an account with no privilege
        if not userns_usable_by(ta):
            pytest.skip("user namespaces are not available to an ordinary account here")
        results = _grade_under_a_login(where, env, user=ta)
    else:
        results = _grade_under_a_login(where, env)
    said = _said(results)
    # the grader's login keyring and its secret are out of reach (04), and so is /proc/keys
    assert SECRET not in said and "krb5cc" not in said, said
    assert "session-read -1 errno 1" in said, said
    # no key can be made, so none is left for the next run or another account (01, 05)
    assert "add_key -1 errno 1" in said, said
    if mode != "root-no-namespaces" or "/proc/keys=''" in said:
        assert "/proc/keys=''" in said and "/proc/key-users=''" in said, said
    # (10) no user namespace, no mount; no capability could come back through exec
    assert "unshare-userns -1 errno 1" in said, said
    assert "'NoNewPrivs': '1'" in said and "'Seccomp': '2'" in said, said
    assert "'CapBnd': '0000000000000000'" in said, said
    assert "seccomp filter" in results["extra_data"]["confinement"]


# The filter on its own: what it refuses, and the ordinary work an exercise does under it.
UNDER_THE_FILTER = """
import ctypes, errno, os, subprocess, sys, threading
import multiprocessing as mp
from mcts_course.grading import kernel


def call(name, *args):
    result = kernel.syscall(name, *args)
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


def square(x):
    return x * x


if __name__ == "__main__":
    kernel.leave_keyrings()
    if os.geteuid() == 0:
        kernel.drop_capabilities()
    assert kernel.install_filter()
    seen = {
        "add_key": call("add_key", 0, 0, 0, 0, 0),
        "request_key": call("request_key", 0, 0, 0, 0),
        "keyctl": call("keyctl", 0, -3, 0),
        "unshare(NEWUSER)": call("unshare", 0x10000000),
        "unshare(NEWNET)": call("unshare", 0x40000000),
        "unshare(FILES)": call("unshare", 0x400),
        "clone(NEWUSER)": call("clone", 0x10000000 | 17, 0, 0, 0, 0),
        "clone3": call("clone3", 0, 0),
        "setns": call("setns", -1, 0),
        "mount": call("mount", 0, 0, 0, 0, 0),
        "bpf": call("bpf", 0, 0, 0),
        "perf_event_open": call("perf_event_open", 0, 0, -1, -1, 0),
        "ptrace": call("ptrace", 0, 0, 0, 0),
        "io_uring_setup": call("io_uring_setup", 1, 0),
        # red teams 9 and 10, attack 02: without namespaces the network is the machine's, and
        # an abstract Unix socket reaches any user's listener
        "socket(AF_INET)": call("socket", 2, 1, 0),
        "socket(AF_INET6)": call("socket", 10, 2, 0),
        "socket(AF_NETLINK)": call("socket", 16, 3, 0),
        "socket(AF_UNIX)": call("socket", 1, 2, 0),
    }
    import socket

    left, right = socket.socketpair()  # multiprocessing's duplex pipes
    left.send(b"x")
    assert right.recv(1) == b"x"
    done = []
    thread = threading.Thread(target=lambda: done.append("thread"))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    done.append("fork %d" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    done.append(subprocess.run(["/bin/sh", "-c", "echo sh"], capture_output=True,
                               text=True).stdout.strip())
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as pool:
            done.append("%s %s" % (method, pool.map(square, [2, 3])))
    import numpy
    done.append("numpy %d" % numpy.arange(4).sum())
    print(repr(seen))
    print(repr(done))
"""


@linux
def test_10_the_filter_refuses_the_kernel_surface_and_keeps_ordinary_work(tmp_path):
    script = tmp_path / "under.py"
    script.write_text(UNDER_THE_FILTER)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    seen_line, done_line = done.stdout.strip().splitlines()[-2:]
    seen = eval(seen_line)  # noqa: S307 (our own script's repr)
    assert seen.pop("unshare(FILES)") == "ok"  # no CLONE_NEW* flag: allowed
    assert seen.pop("clone3") == "ENOSYS"  # the C library falls back to clone
    assert seen == dict.fromkeys(seen, "EPERM"), seen
    assert eval(done_line) == [  # noqa: S307
        "thread",
        "fork 7",
        "sh",
        "fork [4, 9]",
        "spawn [4, 9]",
        "numpy 6",
    ]


@linux
def test_10_a_system_call_of_another_table_kills_the_process(tmp_path):
    """x32 numbers (x86_64) would reach add_key under another number: the process dies."""
    if kernel._arch() != "x86_64":
        pytest.skip("x32 is x86_64's")
    script = tmp_path / "x32.py"
    script.write_text(
        "import ctypes\nfrom mcts_course.grading import kernel\n"
        "assert kernel.install_filter()\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall(ctypes.c_long(0x40000000 | 248), 0, 0, 0, 0, 0)\n"
        "print('survived')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == -31 and "survived" not in done.stdout  # SIGSYS


# -- 03 (and 01 without namespaces): the sweep after a run, without a depth limit ---------------
LEAVER = """

def _leave():
    import os
    path = {deep!r}
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "secret"), "a") as note:
        note.write("hidden inputs for the next run")
    open(os.path.join({shared!r}, "left-shallow"), "a").close()


_leave()
"""


@as_root
def test_03_without_namespaces_the_sweep_removes_a_deep_tree_and_says_so(shared):
    """The student's id leaves a tree 12 folders deep in the temporary folder of the person
    who runs grade (the batch's runs get a private TMPDIR of their own): it is all removed
    by the runs' own sweeps, counted on the confinement line and listed in pytest.log."""
    tmp = shared / "tmp"  # stands for /tmp: world-writable, sticky
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    deep = tmp.joinpath(*(f"d{k}" for k in range(12)))
    sub = shared / "sub"
    sub.mkdir()
    code = (SOLUTIONS / "bandits.py").read_text()
    (sub / "bandits.py").write_text(code + LEAVER.format(deep=str(deep), shared=str(tmp)))
    out = shared / "out"
    env = {**os.environ, "MCTS_NO_NAMESPACES": "1", "TMPDIR": str(tmp)}
    env["MCTS_NO_LANDLOCK"] = "1"  # the sweep is the second line: as on a kernel without it
    command = [sys.executable, "-m", "mcts_course", "grade", str(sub), "--out", str(out)]
    command += ["--exercise-set=bandits", "-k", "test_ucb1_choice"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(tmp.iterdir()) == []  # nothing of the student's id is left, however deep
    data = json.loads((out / "sub" / "results.json").read_text())
    line = data["extra_data"]["confinement"]
    assert "swept after the run: 0 file" not in line and "swept after the run" in line, line
    # results.json counts what was removed in each folder (a folder with all it holds as one);
    # the names, the student's choice, are in pytest.log alone (red team 11, 01 B1)
    # counted under the swept folder it was found in: TMPDIR, or /tmp when TMPDIR lies in it
    swept = data["extra_data"]["swept"]
    assert sum(swept.values()) == 2 and all(tmp.is_relative_to(k) for k in swept), swept
    # as a word: the copy's hex digest may hold "d0" by chance (CI of stop 38)
    assert not re.search(r"\bd0\b|left-shallow", json.dumps(data)), data
    log = (out / "sub" / "pytest.log").read_text()
    assert f"removed {str(tmp / 'd0')!r}" in log
    assert data["extra_data"]["status"] == "graded"


def _folder_chain(top: Path, depth: int, owner: int) -> None:
    """Folders ``depth`` deep under ``top``, a file at the bottom, all ``owner``'s (made
    through descriptors: the path would be longer than the kernel takes)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for k in range(depth):
            os.mkdir(f"n{k}", dir_fd=fd)
            os.chown(f"n{k}", owner, owner, dir_fd=fd)
            inner = os.open(f"n{k}", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        made = os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o666, dir_fd=fd)
        os.fchown(made, owner, owner)
        os.close(made)
    finally:
        os.close(fd)


@as_root
def test_03_the_sweep_has_no_depth_limit_and_never_recurses(shared):
    from mcts_course.grading import sweep

    uid = 1_799_990_001
    # world-writable folders of others nested 30 deep, the student's tree 1500 deep in the
    # last one (deeper than Python's recursion limit)
    where = shared
    for k in range(30):
        where = where / f"w{k}"
        where.mkdir()
        os.chmod(where, 0o1777)
    _folder_chain(where, 1500, uid)
    _folder_chain(shared / "w0", 2, 54321)  # another owner's: stays
    found = sweep.sweep({uid}, roots=(str(shared),))
    assert not (where / "n0").exists()
    assert found.files == 1 and found.left == 0 and not found.cut, found
    assert (shared / "w0" / "n0" / "n1" / "bottom").exists()


@as_root
def test_03_a_sweep_that_stops_at_its_bound_marks_the_run(shared, monkeypatch):
    from mcts_grader.batch import SWEEP_INCOMPLETE, run_status

    from mcts_course.grading import sweep

    uid = 1_799_990_002
    for k in range(20):
        (shared / f"f{k}").mkdir()
    (shared / "f19" / "mine").write_text("x")
    os.chown(shared / "f19" / "mine", uid, uid)
    monkeypatch.setattr(sweep, "ENTRIES", 10)
    monkeypatch.setattr(sweep, "TOTAL", sweep.Swept())
    monkeypatch.setattr(sweep, "RUNS", [0])
    found = sweep.sweep({uid}, roots=(str(shared),))
    assert found.cut and sweep.incomplete()
    assert "not everything was looked at" in sweep.summary()
    tests = [{"max_score": 1.0, "score": 1.0}]
    data = {"tests": tests, "extra_data": {"sweep_incomplete": sweep.summary()}}
    assert run_status(0, False, data) == SWEEP_INCOMPLETE
    assert run_status(0, False, {"tests": tests, "extra_data": {}}) == "graded"


@linux
@as_root
def test_01_the_sweep_invalidates_the_kernel_keys_its_ids_left(monkeypatch):
    """Without the filter (an older grader's leftover, or a kernel path the filter missed):
    keys the id owns, in its persistent user keyring, are invalidated and counted."""
    import ctypes
    import threading

    from mcts_course.grading import sweep

    uid = 1_799_990_003
    made: list[int] = []

    def as_the_student() -> None:  # the raw call changes this thread's ids alone
        assert kernel.syscall("setresuid", -1, uid, -1) == 0
        libc = ctypes.CDLL(None, use_errno=True)
        number = ctypes.c_long(kernel.NUMBERS[kernel._arch()]["add_key"])
        for name in (b"gf-stash", b"gf-private"):
            made.append(
                libc.syscall(number, b"user", name, b"data", ctypes.c_long(4), ctypes.c_long(-4))
            )
        kernel.syscall("keyctl", 5, made[1], 0x3F000000)  # SETPERM: possessor only
        kernel.syscall("setresuid", -1, 0, -1)

    thread = threading.Thread(target=as_the_student)
    thread.start()
    thread.join()
    assert all(serial > 0 for serial in made), made
    monkeypatch.setattr(sweep, "REMOVED", [])
    found = sweep.sweep({uid}, roots=())
    assert found.keys >= 2, found  # its user keyring too, where it exists
    for serial in made:  # KEYCTL_DESCRIBE: gone
        assert kernel.syscall("keyctl", 6, serial, 0, 0) < 0
    assert any("gf-stash" in line for line in sweep.REMOVED)


# -- 07: Gradescope's submission metadata ------------------------------------------------------
METADATA_READER = """

def ucb1_choice(counts, sums, c=math.sqrt(2)):
    try:
        text = open({path!r}).read()
    except OSError as error:
        raise RuntimeError("METADATA errno %d" % error.errno) from None
    raise RuntimeError("METADATA READ " + text)
"""


@as_root
def test_07_the_gradescope_metadata_is_closed_before_the_students_code_runs(shared):
    """The layout of Gradescope's image (AUTOGRADER_ROOT, no namespaces): the metadata holds
    the group's e-mails and earlier results; the student's id cannot read it."""
    root = shared / "ag"
    (root / "submission").mkdir(parents=True)
    (root / "results").mkdir()
    metadata = root / "submission_metadata.json"
    metadata.write_text(
        json.dumps(
            {
                "assignment": {"due_date": "2026-01-01T23:59:00.000000-08:00"},
                "users": [{"email": "secret-student@example.edu"}],
                "previous_submissions": [{"score": 99}],
            }
        )
    )
    os.chmod(metadata, 0o644)  # as Gradescope writes it
    code = (SOLUTIONS / "bandits.py").read_text()
    reader = METADATA_READER.format(path=str(metadata))
    (root / "submission" / "bandits.py").write_text(code + reader)
    env = {
        **os.environ,
        "MCTS_NO_NAMESPACES": "1",
        "AUTOGRADER_ROOT": str(root),
        "MCTS_GRADESCOPE_SUBMISSION": str(root / "submission"),
        "MCTS_GRADESCOPE_RESULTS": str(root / "results" / "results.json"),
        "MCTS_GRADESCOPE_TESTS": str(root / "no-tests"),
    }
    env.pop("MCTS_GRADESCOPE_METADATA", None)
    command = [sys.executable, "-m", "mcts_course", "grade", "--gradescope"]
    command += ["--exercise-set=bandits", "-ktest_ucb1_choice"]
    done = subprocess.run(command, env=env, cwd=shared, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (root / "results" / "results.json").read_text()
    assert "secret-student" not in text and "METADATA errno 13" in text, text
    assert oct(metadata.stat().st_mode & 0o777) == oct(0o600)
    # the due date was read before: the due date's zone still reaches the feedback
    assert json.loads(metadata.read_text())["previous_submissions"] == [{"score": 99}]


def test_07_run_autograder_names_the_metadata_it_closes():
    from mcts_grader.gradescope import RUN_AUTOGRADER

    assert 'MCTS_GRADESCOPE_METADATA="$ROOT/submission_metadata.json"' in RUN_AUTOGRADER
