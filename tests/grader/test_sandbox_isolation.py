"""Isolation by mechanism (issue 24, parts B and C): each test is a hostile submission that a
grader running as root (as on Gradescope, or an instructor's batch) must hold.  The attacks
report what they got through the grading channel itself (a function the test calls), so that
nothing but the sandbox decides what they can reach: a detached process filling the temporary
folders, System V shared memory outliving the run, a ``setsid`` daemon computing between
questions, TCP to a loopback listener, an abstract unix socket from one sandbox to the next,
other processes in ``/proc``, and files beside an instructor's hidden test."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcts_course.grading import sandbox
from mcts_course.grading.process import StudentProcess


def _namespaces_here() -> bool:
    """Whether this machine lets root unshare (asked of the tool, not of the code under test)."""
    if sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    command = ["unshare", "--mount", "--ipc", "--net", "--pid", "--fork", "true"]
    return subprocess.run(command, capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(
    not _namespaces_here(), reason="the attacks need a grader as root where unshare works"
)


@pytest.fixture(scope="module")
def public() -> Iterator[Path]:
    # not under pytest's tmp_path: its folders are closed to the sandbox's user
    folder = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def start(code: str, public: Path, name: str = "attack.py") -> StudentProcess:
    process = StudentProcess(None, name, None, ["report"], public, code=code)
    process.start()
    return process


def ask(process: StudentProcess, *args: object, budget: float = 60.0) -> object:
    """Call the submission's ``report(*args)``; return its answer as plain data."""
    request = {"op": "call", "name": "report", "many": False, "nodes": []}
    request["calls"] = [[list(args), {"$d": []}]]
    reply, _ = process.exchange(request, budget, lambda m: {}, "report")
    assert "ok" in reply, reply
    return plain(reply["ok"])


def plain(value: object) -> object:
    """The protocol's encoding of dicts ({"$d": pairs}) undone."""
    if isinstance(value, dict) and "$d" in value:
        return {k: plain(v) for k, v in value["$d"]}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


# -- C. one submission cannot cost its neighbours anything ---------------------------------------
FILL = """
import os, json

def report(marker):
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()  # detached: it outlives the question, fills on
        except PermissionError:  # the filter refuses it (red team 39, 01)
            pass
        written = {}
        for folder in ("/tmp", "/var/tmp", "/dev/shm", "."):
            total = 0
            for k in range(30):  # at most 300 MB a folder: the test must not fill a real disk
                try:
                    with open(os.path.join(folder, f"{marker}-{k}"), "wb") as f:
                        for _ in range(10):
                            f.write(b"x" * (1 << 20))
                            total += 1 << 20
                except OSError:
                    break
            written[folder] = total
        os.write(w, json.dumps(written).encode())
        import time
        while True:
            time.sleep(1)
    os.close(w)
    return json.loads(os.read(r, 10000))
"""


def test_a_detached_process_filling_the_temporary_folders_costs_no_neighbour(public):
    marker = f"mcts-fill-{random.randrange(10**9)}"
    attacker = start(FILL, public)
    try:
        written = ask(attacker, marker)
        assert isinstance(written, dict)
        # what it could write is capped by the sandbox, not by the attack's own bound
        assert all(size < 100 << 20 for size in written.values()), written
        shared = [Path(f) for f in ("/tmp", "/var/tmp", "/dev/shm")]
        leaked = [p for folder in shared for p in folder.glob(f"{marker}-*")]
        assert leaked == []  # nothing on the grader's own file systems
        # the neighbour, graded while the filler lives, writes and answers as usual
        neighbour = start(
            "import os\ndef report():\n"
            "    with open('/tmp/mine', 'wb') as f:\n        f.write(b'y' * (8 << 20))\n"
            "    return os.path.getsize('/tmp/mine')\n",
            public,
        )
        try:
            assert ask(neighbour) == 8 << 20
        finally:
            neighbour.kill()
    finally:
        attacker.kill()
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            for path in Path(folder).glob(f"{marker}-*"):
                path.unlink()


SHM = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)

def report(key):
    ids = []
    for k in range(4):
        shmid = libc.shmget(key + k, 8 << 20, 0o1000 | 0o666)  # IPC_CREAT
        ids.append(shmid if shmid >= 0 else -ctypes.get_errno())
    return ids
"""


def _segments(key: int) -> list[int]:
    """The ids of the host's System V segments with keys ``key``...``key + 3``."""
    ids = []
    for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]:
        fields = line.split()
        if key <= int(fields[0]) < key + 4:
            ids.append(int(fields[1]))
    return ids


def test_system_v_shared_memory_does_not_outlive_the_run(public):
    key = random.randrange(1 << 24, 1 << 30)
    process = start(SHM, public)
    try:
        ids = ask(process, key)
        assert isinstance(ids, list) and all(isinstance(i, int) and i >= 0 for i in ids), ids
    finally:
        process.kill()
    left = _segments(key)
    for shmid in left:  # do not leave the old code's segments on the machine
        subprocess.run(["ipcrm", "-m", str(shmid)], check=False)
    assert left == []


DAEMON = """
import os, time

def report():
    if os.fork() == 0:
        try:
            os.setsid()  # out of the process group the grader stops between questions
        except PermissionError:  # the filter refuses it (red team 39, 01)
            pass
        if os.fork() == 0:
            while True:  # a CPU daemon: computes on a neighbour's time
                pass
        os._exit(0)
    time.sleep(0.2)
    return os.getpid()
"""


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def test_a_setsid_daemon_computes_nothing_between_questions_and_dies_with_the_run(public):
    process = start(DAEMON, public)
    uid = process.box.uid if process.box else None
    assert uid is not None
    try:
        ask(process)
        pids = sandbox.processes_of(uid)
        assert len(pids) >= 2  # the server and its daemon
        before = _cpu_ticks(pids)
        time.sleep(1.5)  # between questions: the submission is paused
        spent = (_cpu_ticks(pids) - before) / os.sysconf("SC_CLK_TCK")
        assert spent < 0.05, f"{spent:.2f} s of CPU between questions"
    finally:
        process.kill()
    time.sleep(0.1)
    assert sandbox.processes_of(uid) == []


NET = """
import socket

def report(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return "connected"
    except OSError as error:
        return type(error).__name__ + ": " + str(error)
"""


def test_no_tcp_to_a_loopback_listener(public):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.5)
    process = start(NET, public)
    try:
        got = ask(process, listener.getsockname()[1])
        with pytest.raises(TimeoutError):
            listener.accept()[0].close()
        assert isinstance(got, str) and got != "connected", got
    finally:
        process.kill()
        listener.close()


LISTENS = """
import socket
name = "\\0mcts-attack-{tag}"
try:  # the seccomp filter refuses socket() itself: then nobody listens at all
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(5)
    state = "listening"
except OSError as error:
    state = type(error).__name__

def report():
    return state
"""

CONNECTS = """
import socket

def report():
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(2)
        client.connect("\\0mcts-attack-{tag}")
        return "connected"
    except OSError as error:
        return type(error).__name__
"""


def test_no_abstract_unix_socket_from_one_sandbox_to_the_next(public):
    tag = random.randrange(10**9)
    first = start(LISTENS.format(tag=tag), public)
    try:
        assert ask(first) in ("listening", "PermissionError")
        second = start(CONNECTS.format(tag=tag), public)
        try:
            assert ask(second) in ("ConnectionRefusedError", "FileNotFoundError", "PermissionError")
        finally:
            second.kill()
    finally:
        first.kill()


PROC = """
import os

def report(secret):
    seen = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        entry = {"pid": name}
        for what in ("cmdline", "environ"):
            try:
                with open(f"/proc/{name}/{what}", "rb") as f:
                    entry[what] = f.read().replace(b"\\0", b" ").decode(errors="replace")
            except OSError as error:
                entry[what] = type(error).__name__
        seen.append(entry)
    return seen
"""


def test_proc_shows_no_other_process(public, monkeypatch):
    secret = f"mcts-secret-{random.randrange(10**9)}"
    monkeypatch.setenv("MCTS_ATTACK_SECRET", secret)  # the grading job's environment
    process = start(PROC, public)
    try:
        seen = ask(process, secret)
    finally:
        process.kill()
    assert isinstance(seen, list) and seen  # it saw itself, at least
    text = json.dumps(seen)
    assert secret not in text
    assert "pytest" not in text and "test_sandbox_isolation" not in text
    # only the sandbox's own processes: its launcher's shell and the student's process
    assert len(seen) <= 3, [e["cmdline"][:80] for e in seen]


# -- B. nothing of the instructor's hidden tests --------------------------------------------------
def test_files_beside_a_hidden_test_are_not_readable(tmp_path):
    """``--tests FILE``: the hidden test's folder (readable by every user, as a checkout is)
    holds a conftest.py, a data file and bytecode; the submission reads them by their absolute
    paths and reports what it got in its import error (0 points: the report is the point)."""
    from mcts_grader.batch import grade

    hidden = Path(tempfile.mkdtemp(prefix="hidden-", dir="/tmp"))
    try:
        hidden.chmod(0o755)
        test = hidden / "test_hidden.py"
        test.write_text(
            "import pytest\n\n\n@pytest.mark.points(1, exercise='bandits')\n"
            "def test_secret(student):\n    assert student.has('ucb1_choice')  # SECRET_TEST\n"
        )
        (hidden / "conftest.py").write_text("# SECRET_CONFTEST\n")
        (hidden / "answers.txt").write_text("SECRET_DATA\n")
        (hidden / "__pycache__").mkdir()
        (hidden / "__pycache__" / "test_hidden.cpython-311.pyc").write_text("SECRET_CACHE\n")
        for path in [*hidden.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        paths = [str(p) for p in hidden.rglob("*") if p.is_file()]
        attack = (
            "import os\nseen = {}\n"
            f"for path in {paths!r} + [{str(hidden)!r}]:\n"
            "    try:\n"
            "        seen[path] = os.listdir(path) if os.path.isdir(path) else open(path).read()\n"
            "    except OSError as error:\n"
            "        seen[path] = type(error).__name__\n"
            "raise RuntimeError('REPORT ' + repr(seen))\n"
        )
        sub = tmp_path / "s"
        sub.mkdir()
        (sub / "bandits.py").write_text(attack)
        (result,) = grade([sub], sets=["bandits"], extra_tests=[test])
    finally:
        shutil.rmtree(hidden, ignore_errors=True)
    text = "\n".join(o.output for o in result.outcomes)
    assert "REPORT" in text  # the attack ran and reported
    assert "SECRET" not in text


# -- which confinement each mode gets, and what is refused ---------------------------------------
def _honest(folder: Path) -> Path:
    import mcts_grader

    folder.mkdir(parents=True)
    solutions = Path(mcts_grader.__file__).parent / "solutions"
    (folder / "bandits.py").write_text((solutions / "bandits.py").read_text())
    return folder


def test_the_confinement_is_said_in_the_report_and_the_results(tmp_path):
    from mcts_grader.batch import pytest_command

    results = tmp_path / "results.json"
    command = pytest_command(_honest(tmp_path / "s"), results, options=["--exercise-set=bandits"])
    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    header = [line for line in run.stdout.splitlines() if line.startswith("confinement: ")]
    assert header and header[0].startswith("confinement: namespaces (mount, ipc, net, pid, uts)")
    assert "cgroup (memory, pids, cpu, cpuacct, freezer)" in header[0]
    data = json.loads(results.read_text())
    assert "confinement: " + data["extra_data"]["confinement"] == header[0]
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) > 0


def test_without_namespaces_a_batch_is_refused(tmp_path, no_namespaces):
    from mcts_grader.batch import grade

    subs = [_honest(tmp_path / "subs" / n) for n in ("a", "b")]
    out = tmp_path / "out"
    with pytest.raises(sandbox.SandboxError, match="cannot be graded together"):
        grade(subs, out, sets=["bandits"], n_jobs=2)
    assert not (out / "grades.csv").exists()


def test_without_namespaces_one_submission_is_graded_by_user_id(tmp_path, no_namespaces):
    from mcts_grader.batch import grade

    out = tmp_path / "out"
    (result,) = grade([_honest(tmp_path / "subs" / "s")], out, sets=["bandits"])
    data = json.loads((out / "s" / "results.json").read_text())
    assert data["extra_data"]["confinement"].startswith("user id and permissions only")
    assert result.score == result.max_score > 0


def test_an_ordinary_user_without_namespaces_is_refused_unless_unconfined(monkeypatch):
    """A teaching assistant's account where user namespaces are off: no student code runs
    unless the grader said --unconfined, and then the report says what that means."""
    from mcts_course.grading import confine

    monkeypatch.setattr(confine, "mode", lambda: "none")
    monkeypatch.setattr(sandbox, "is_root", lambda: False)
    monkeypatch.delenv(sandbox.UNCONFINED_ENV, raising=False)
    assert sandbox.grader_package() is not None  # a grader's machine
    with pytest.raises(sandbox.SandboxError, match="--unconfined"):
        sandbox.Sandbox()
    monkeypatch.setenv(sandbox.UNCONFINED_ENV, "1")
    box = sandbox.Sandbox()
    try:
        assert box.uid is None and box.cage is None
        assert "can read and change whatever you can" in sandbox.confinement()
    finally:
        box.close()


MEMORY = """
import os

def report(megabytes, count):
    pipes, children = [], []
    for _ in range(count):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
            except PermissionError:  # the filter refuses it (red team 39, 01)
                pass
            data = bytearray(megabytes << 20)  # each under the per-process cap...
            for k in range(0, len(data), 4096):
                data[k] = 1  # ...and really used
            os.write(w, b"ok")
            import time
            time.sleep(30)
            os._exit(0)
        os.close(w)
        pipes.append(r)
        children.append(pid)
    for r in pipes:  # each has filled its memory, or died trying
        os.read(r, 2)
    # Count the survivors, not the reports: the memory killer may take a child that already
    # reported, to make room for the last one.
    return sum(os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in children)
"""


def test_memory_is_capped_for_the_whole_submission(public):
    """Three detached processes of 200 MB each, under a cap of 256 MB a process: together they
    pass the submission's cap (256 MB and its temporary folders), so not all of them live."""
    process = StudentProcess(None, "memory.py", None, ["report"], public, 256, code=MEMORY)
    process.start()
    try:
        alive = ask(process, 200, 3)
    finally:
        process.kill()
    assert isinstance(alive, int) and alive < 3
