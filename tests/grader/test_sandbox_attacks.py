"""Attacks on the grader's sandbox (issue 16, part 1), each a submission that tries one class of
weakness; each test asserts what the attack got: nothing, 0 points for it, others' grades right.

The attacks that need a grader running as root (as on Gradescope) skip otherwise.  Submissions
report what they saw through files in a folder every user may write (they are graded as other
users), created per test."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import mcts_grader
import pytest
from mcts_grader.batch import grade

from mcts_course.grading import invocation, sandbox
from mcts_course.grading.process import StudentProcess
from mcts_course.grading.sandbox import SandboxError

SOLUTIONS = Path(mcts_grader.__file__).parent / "solutions"
GRADER_TESTS = Path(mcts_grader.__file__).parent / "tests"
REFERENCE = (SOLUTIONS / "bandits.py").read_text() if os.access(SOLUTIONS, os.R_OK) else ""
as_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0,
    reason="the attack needs the grader as root on Linux, as on Gradescope",
)


@pytest.fixture
def drop():
    """A folder every user may write, where a submission reports what its attack got."""
    folder = Path(tempfile.mkdtemp(prefix="attack-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def submission(folder: Path, prelude: str = "", name: str = "bandits") -> Path:
    """A submission folder whose bandits.py is the reference, then ``prelude`` (the attack)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(REFERENCE + "\n" + prelude)
    return folder


def full_marks() -> float:
    from grading_fixtures.points import most

    return most("bandits")


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


# -- 1. links: nothing root opens can be a student's link ---------------------------------------
def test_a_link_to_the_solutions_gets_nothing(tmp_path):
    sub = tmp_path / "linker"
    sub.mkdir()
    (sub / "bandits.py").symlink_to(SOLUTIONS / "bandits.py")
    (result,) = grade([sub], sets=["bandits"])
    assert result.score == 0
    assert all("symbolic link" in o.output for o in result.outcomes)


def test_a_link_to_a_root_only_file_leaks_nothing(tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("TOP_SECRET_LINE = (\n")  # a syntax error would quote this line
    secret.chmod(0o600)
    sub = tmp_path / "leaker"
    sub.mkdir()
    (sub / "bandits.py").symlink_to(secret)
    (result,) = grade([sub], sets=["bandits"])
    assert result.score == 0
    assert not any("TOP_SECRET" in o.output for o in result.outcomes)


@as_root
def test_links_planted_in_the_work_folder_get_nothing(tmp_path):
    """The student's process replaces every file it can find in its folder (and where the log
    used to be) by links to a root-only file and to the solutions, then dies: root must not
    read, chown or quote them."""
    secret = tmp_path / "shadow"
    secret.write_text("TOP_SECRET_LINE\n")
    secret.chmod(0o600)
    attack = f"""
import os
for name in os.listdir(".") + ["bandits.log", "submission_bandits.log"]:
    try:
        os.unlink(name)
    except OSError:
        pass
    os.symlink({str(secret)!r}, name)
os.symlink({str(SOLUTIONS / "bandits.py")!r}, "solution.py")
os._exit(1)
"""
    (result,) = grade([submission(tmp_path / "s", attack)], sets=["bandits"])
    assert result.score == 0
    text = "\n".join(o.output for o in result.outcomes)
    assert "exited with status 1" in text  # the attack ran to its end
    assert "TOP_SECRET" not in text and "def ucb1_choice" not in text
    info = secret.stat()
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o600)
    assert secret.read_text() == "TOP_SECRET_LINE\n"


@as_root
def test_the_solutions_are_out_of_reach_by_path(tmp_path):
    """The student's code opens the reference solutions, the tests and an instructor's hidden
    test (in a folder every user may read) by their absolute paths (the grader's interpreter
    tells where the package is), and reports what it got in its import error; an honest
    submission of the same batch gets full marks, the hidden test's point included."""
    hidden = Path(tempfile.mkdtemp(prefix="hidden-", dir="/tmp"))
    hidden.chmod(0o755)
    (hidden / "test_hidden.py").write_text(
        "import pytest\n\n\n@pytest.mark.points(1, exercise='bandits')\n"
        "def test_secret(student):\n    assert student.has('ucb1_choice')  # SECRET_HIDDEN\n"
    )
    (hidden / "test_hidden.py").chmod(0o644)
    paths = [SOLUTIONS / "bandits.py", GRADER_TESTS / "test_bandits.py", hidden / "test_hidden.py"]
    attack = f"""
seen = []
for path in {[str(p) for p in paths]!r}:
    try:
        seen.append(open(path).read())
    except OSError as error:
        seen.append(type(error).__name__)
raise RuntimeError("REPORT " + repr(seen))
"""
    subs = [
        submission(tmp_path / "subs" / "attacker", attack),
        submission(tmp_path / "subs" / "honest"),
    ]
    try:
        grades = {g.name: g for g in grade(subs, sets=["bandits"], extra_tests=[hidden], n_jobs=2)}
    finally:
        import shutil

        shutil.rmtree(hidden, ignore_errors=True)
    text = "\n".join(o.output for o in grades["attacker"].outcomes)
    report = text.split("REPORT ", 1)[1].split("\n", 1)[0]
    seen = eval(report)
    assert all(s in ("PermissionError", "FileNotFoundError") for s in seen), seen
    assert "SECRET_HIDDEN" not in text and "def ucb1_choice" not in text
    assert grades["honest"].score == full_marks() + 1  # the hidden test ran, and passed


# -- 2. isolation inside a batch --------------------------------------------------------------
@as_root
def test_submissions_of_a_batch_cannot_reach_each_other(tmp_path):
    """Graded side by side, the attacker tries to kill, list and read every other process it
    can see, and the victim's code by its path; the victim answers normally."""
    victim = """
import time
time.sleep(1.0)  # alive while the attacker looks
"""
    attacker = f"""
import os, signal, time
time.sleep(0.3)
got = {{}}
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) in (os.getpid(), 1):
        continue
    pid = int(name)
    for what, act in [
        ("kill", lambda: os.kill(pid, signal.SIGKILL)),
        ("cwd", lambda: os.listdir(f"/proc/{{pid}}/cwd")),
        ("environ", lambda: open(f"/proc/{{pid}}/environ").read()),
    ]:
        try:
            act()
            got[f"{{what}} {{pid}}"] = "done"
        except OSError as error:
            got[f"{{what}} {{pid}}"] = type(error).__name__
try:
    open({str(tmp_path / "victim" / "bandits.py")!r}).read()
    got["code"] = "done"
except OSError as error:
    got["code"] = type(error).__name__
raise RuntimeError("REPORT " + repr(got))
"""
    subs = [submission(tmp_path / "victim", victim), submission(tmp_path / "attacker", attacker)]
    grades = {g.name: g for g in grade(subs, sets=["bandits"], n_jobs=2)}
    text = "\n".join(o.output for o in grades["attacker"].outcomes)
    got = eval(text.split("REPORT ", 1)[1].split("\n", 1)[0])
    assert "done" not in got.values(), got
    assert got["code"] in ("PermissionError", "FileNotFoundError")
    assert grades["victim"].score == full_marks()


CLEARS_ITS_BOARDS = """
import sys

_is_win = is_win


def is_win(board, player):
    answer = _is_win(board, player)
    # only the boards the grader hands over, not its own search's (frame 1: the server's
    # wrapper of every student function; frame 2: who called it)
    if sys._getframe(2).f_globals.get("__name__", "").startswith("mcts_course.grading"):
        for column in board:
            column.clear()  # synced back into the grader's copy of the board: a cached one?
    return answer
"""


HIDDEN_PROBE = """
import pytest


@pytest.mark.points(1, exercise="connect4", visibility="visible")
def test_a_board_given_comes_back_emptied(student):
    board = [[0, 1], [1], [], [], [], [], []]
    student.is_win(board, 0)
    assert board == [[] for _ in range(7)]
"""


def test_a_submission_cannot_change_the_tests_inputs_for_the_next(tmp_path):
    """A submission empties every board it is given, hoping to empty the grader's cached boards
    for the next submission.  It is held: a call hands the student's process copies and brings
    no change back (unless a test asks for them with ``keeping``), so even an instructor's test
    sees its board unchanged; and each submission is graded in a pytest process of its own, so
    the honest submission graded next gets full marks on the real boards."""
    reference = (SOLUTIONS / "connect4.py").read_text()
    first = tmp_path / "subs" / "clearer"
    first.mkdir(parents=True)
    (first / "connect4.py").write_text(reference + CLEARS_ITS_BOARDS)
    second = tmp_path / "subs" / "honest"
    second.mkdir()
    (second / "connect4.py").write_text(reference)
    probe = tmp_path / "hidden" / "test_probe.py"
    probe.parent.mkdir()
    probe.write_text(HIDDEN_PROBE)
    grades = {
        g.name: g
        for g in grade(
            [first, second],
            sets=["connect4"],
            n_jobs=1,
            extra_tests=[probe.parent],
            check_tests=False,  # the probe fails on the reference by design
        )
    }
    by_name = {g: {o.name.split(" [")[0]: o for o in grades[g].outcomes} for g in grades}
    probe_name = "test_a_board_given_comes_back_emptied"
    # a call works on copies (red team 3, 17): the grader's own board stays as it was
    assert not by_name["clearer"][probe_name].passed
    assert not by_name["honest"][probe_name].passed
    shipped = [o for o in grades["honest"].outcomes if o.name != probe_name]
    assert shipped and all(o.passed for o in shipped), [o.output for o in shipped]


@as_root
def test_a_daemon_does_not_survive_its_grading(tmp_path):
    attack = """
import os, time
if os.fork() == 0:
    try:
        os.setsid()  # leaves the process group the grader kills
    except PermissionError:  # the filter refuses it (red team 39, 01)
        pass
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)
time.sleep(0.2)
"""
    before = sandbox.registered_uids()
    (result,) = grade([submission(tmp_path / "s", attack)], sets=["bandits"])
    uids = sandbox.registered_uids() - before
    assert uids  # the sandboxes' user ids: what the daemon runs as
    assert all(sandbox.processes_of(uid) == [] for uid in uids)
    assert result.score == full_marks()  # the daemon itself costs nothing


# -- 3. one submission cannot stop the batch ----------------------------------------------------
HOSTILE_REPLIES = {
    # a list holding itself: printing or comparing it never ends
    "cycle": "{'ok': [{'$same': 0}]}",
    # 2**150 elements in a few kilobytes, by sharing
    "blowup": "{'ok': blowup()}",
    # nesting deeper than any decoder's stack
    "deep": "RAW:" + repr("[" * 200_000 + "]" * 200_000),
    # an integer with more digits than int() accepts
    "digits": "RAW:" + repr('{"ok": ' + "7" * 5000 + "}"),
    # a tree whose child is its own root
    "tree": "{'ok': {'$n': 0}, 'nodes': [{'c': [[0, 0]], 'up': None}]}",
}


def hostile(kind: str) -> str:
    """A submission that answers every question with ``kind``, written straight on its
    channel (past its own side's encoder)."""
    reply = HOSTILE_REPLIES[kind]
    return f"""
import gc, io, json, os, stat, sys
server = sys.modules["mcts_course.grading.server"]

def blowup():
    value = [1, 1]
    data, k = value, 0
    for _ in range(150):
        data, k = [{{"$same": k}}, {{"$same": k}}], k + 1
    return data

def outbox():
    for o in gc.get_objects():
        if isinstance(o, io.TextIOWrapper) and o.writable() and o.fileno() > 2:
            return o

def evil(self, request):
    if request.get("op") == "release":
        return {{"ok": None}}
    reply = {reply}
    if isinstance(reply, str):
        out = outbox()
        out.write(reply[4:] + "\\n")
        out.flush()
        return {{"ok": None, "calls": []}}
    return reply

server.Server.handle = evil
"""


@pytest.mark.parametrize("kind", sorted(HOSTILE_REPLIES))
def test_hostile_replies_cost_only_their_sender(tmp_path, kind):
    subs = [submission(tmp_path / "honest"), submission(tmp_path / kind, hostile(kind))]
    for sub in subs:
        sub.chmod(0o700)
    grades = {g.name: g for g in grade(subs, sets=["bandits"], n_jobs=2)}
    assert grades[kind].score == 0
    assert grades["honest"].score == full_marks()
    assert all(len(o.output) < 25_000 for o in grades[kind].outcomes)


def test_a_crash_while_loading_is_reported_as_a_crash(tmp_path):
    """A file that ends its process while loading (os._exit) gets 0 points with its exit
    status, not a time-out, and costs the honest submission of the same batch nothing: the
    process closes its pipe before the kernel reports it gone, and the grader must not read
    that moment as the loading time running out."""
    crasher = submission(tmp_path / "crasher", "import os\nos._exit(3)\n")
    subs = [submission(tmp_path / "honest"), crasher]
    for sub in subs:
        sub.chmod(0o700)
    grades = {g.name: g for g in grade(subs, sets=["bandits"], n_jobs=2)}
    assert grades["crasher"].score == 0
    assert grades["honest"].score == full_marks()
    for outcome in grades["crasher"].outcomes:
        assert "exited with status 3" in outcome.output, outcome.output
        assert "took longer" not in outcome.output


def test_a_full_pipe_does_not_block_the_grader(tmp_path):
    """The student's process keeps its channel from the grader open but never reads it again,
    with the pipe shrunk to one page: the grader's next request cannot be written."""
    attack = """
import fcntl, gc, io, os, sys
server = sys.modules["mcts_course.grading.server"]
honest = server.Server.handle

def inbox():
    for o in gc.get_objects():
        if isinstance(o, io.TextIOWrapper) and o.readable() and o.fileno() > 2:
            return o

def evil(self, request):
    fd = inbox().fileno()
    fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ: one page
    keep = os.dup(fd)  # the pipe stays open...
    r, w = os.pipe()
    os.dup2(r, fd)  # ...but what the process reads from now on is another, empty pipe
    evil.keep = (keep, w)
    return honest(self, request)

server.Server.handle = evil
"""
    # The honest neighbour is graded at the same time by a grader of its own, with the normal
    # time budgets (a batch has one --timeout-scale, and two batches in one process would share
    # its registry of sandbox ids); only the attacker's budgets are halved, so that its blocked
    # requests time out sooner.  With both at half, a loaded machine (load 10) cost the honest
    # neighbour marks it had earned.
    honest = submission(tmp_path / "honest")
    out = tmp_path / "out-honest"
    command = [sys.executable, "-m", "mcts_course", "grade", str(honest), "--out", str(out)]
    neighbour = subprocess.Popen(
        [*command, "--exercise-set=bandits"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        (plug,) = grade(
            [submission(tmp_path / "plug", attack)], sets=["bandits"], timeout_scale=0.5
        )
    finally:
        log, _ = neighbour.communicate(timeout=900)
    assert neighbour.returncode == 0, log
    assert json.loads((out / "honest" / "results.json").read_text())["score"] == full_marks()
    assert plug.score < full_marks()


# -- 5. fail closed -------------------------------------------------------------------------
@as_root
def test_no_student_code_runs_when_the_sandbox_cannot_start(tmp_path, drop, monkeypatch):
    """The interpreter missing from the student's root (namespaces: not among what it shows;
    without them: not mounted where it lives): the pytest run stops with the refusal (exit
    status REFUSED, the reason in its output, not a warning among "Captured stderr"), and the
    submission's code never ran.  In this process, so that the patched sandbox is the one the
    plugin uses."""
    from mcts_course.grading import confine
    from mcts_course.grading.plugin import REFUSED

    if sandbox.confinement_mode() == "namespaces":
        monkeypatch.setattr(confine, "visible", lambda *args, **kwargs: [])
    elif sandbox.exposed():
        monkeypatch.setattr(sandbox, "exposed", lambda: [])
    else:
        pytest.skip("every user can run this interpreter here: nothing to withhold")
    attack = f"open({str(drop / 'ran')!r}, 'w').write('as root?')"
    sub = submission(tmp_path / "s", attack)
    results = tmp_path / "results.json"
    args = invocation.pytest_args(
        sub, sets=["bandits"], results_json=results, options=["-q"], rootdir=tmp_path
    )
    assert pytest.main(args) == REFUSED
    assert "refuses to grade" in json.loads(results.read_text())["refused"]
    assert not (drop / "ran").exists()


@as_root
def test_a_refusal_in_a_run_stops_the_batch(tmp_path, drop, monkeypatch):
    """A run that cannot confine student code (here: no user id to give its sandbox) makes
    ``grade`` raise SandboxError and write no grade, none of the batch's code having run."""
    monkeypatch.setenv("MCTS_GRADING_UIDS", "not-a-range")
    attack = f"open({str(drop / 'ran')!r}, 'w').write('as root?')"
    subs = [submission(tmp_path / "subs" / n, attack) for n in ("a", "b")]
    out = tmp_path / "out"
    with pytest.raises(SandboxError, match="MCTS_GRADING_UIDS"):
        grade(subs, out, sets=["bandits"], n_jobs=2)
    assert not (drop / "ran").exists()
    assert not (out / "grades.csv").exists()
    assert not any(out.rglob("results.json"))


# -- 6. hard limits, few processes -------------------------------------------------------------
@as_root
def test_limits_are_hard_and_forks_are_capped(public):
    attack = """
import os, resource, time

def report():
    report = {}
    for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
        kind = getattr(resource, name)
        report[name] = resource.getrlimit(kind)[1]
        try:
            resource.setrlimit(kind, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            report[name + " raised"] = True
        except (ValueError, OSError):
            report[name + " raised"] = False
    forks = 0
    for _ in range(500):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        forks += 1
    report["forks"] = forks
    return report
"""
    process = StudentProcess(None, "limits.py", None, ["report"], public, code=attack)
    process.start()
    uid = process.box.uid if process.box else None
    try:
        request = {
            "op": "call",
            "name": "report",
            "many": False,
            "nodes": [],
            "calls": [[[], {"$d": []}]],
        }
        reply, _ = process.exchange(request, 30.0, lambda m: {}, "report")
    finally:
        process.kill()
    report = {k: v for k, v in reply["ok"]["$d"]}
    import resource

    for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
        assert report[name] != resource.RLIM_INFINITY
        assert report[name + " raised"] is False
    from mcts_course.grading.server import NPROC

    assert 0 < report["forks"] < NPROC
    assert uid is not None and sandbox.processes_of(uid) == []


@pytest.fixture
def public():
    # not under pytest's tmp_path: its folders are closed to the sandbox's user
    folder = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    folder.chmod(0o755)
    yield folder
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


# -- 7. no student time outside a test ---------------------------------------------------------
def test_the_student_process_is_stopped_between_questions():
    """A thread started at import would compute between tests: the process is stopped
    whenever the grader is not waiting for an answer."""
    code = "import threading\n\ndef spin():\n    while True:\n        pass\n\n"
    code += "threading.Thread(target=spin, daemon=True).start()\n\ndef f(x):\n    return x + 1\n"
    # not under pytest's tmp_path: its folders are closed to the sandbox's user
    public = sandbox.public_package(Path(tempfile.mkdtemp(prefix="public-", dir="/tmp")))
    public.chmod(0o755)
    process = StudentProcess(None, "spin.py", None, ["f"], public, code=code)
    try:
        process.start()
        assert _idle(process.server_pid)
        reply, _ = process.exchange(
            {"op": "call", "name": "f", "many": False, "calls": [[[1], {"$d": []}]], "nodes": []},
            5.0,
            lambda m: {},
            "f",
        )
        assert reply["ok"] == 2
        assert _idle(process.server_pid)
    finally:
        process.kill()
        import shutil

        shutil.rmtree(public, ignore_errors=True)


def _idle(pid: int) -> bool:
    """Whether ``pid`` (its spinning thread included) gets no CPU time for half a second:
    stopped (SIGSTOP) or frozen (its cgroup's freezer)."""
    import time

    def ticks() -> int:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    before = ticks()
    time.sleep(0.5)
    return ticks() - before <= 1


def _state(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("State:"):
            return line.split()[1]
    return ""


# -- also: the checkout keeps its permissions; the output folder cannot be prepared ------------
@as_root
def test_grading_as_root_changes_no_permission_of_the_checkout(tmp_path):
    private = sandbox.private_files()
    before = {p: p.stat().st_mode for p in private}
    grade([submission(tmp_path / "s")], sets=["bandits"])
    assert {p: p.stat().st_mode for p in private} == before


def test_a_prepared_output_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "s").symlink_to(elsewhere)  # what a student could leave where results will go
    with pytest.raises(SandboxError, match="not a folder of its own"):
        grade([submission(tmp_path / "s")], out, sets=["bandits"])
    assert list(elsewhere.iterdir()) == []
