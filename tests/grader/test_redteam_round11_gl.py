"""Red team round 11, helper GL's items: nothing the process answering the held-back tests does
reaches the text a student sees: the helper files it imports (02; now the note names the files
beside the exercise, whatever any process imports), the names of the files the
no-namespace sweep removes (01 B1); and no datagram leaves a student's process for another
local user's abstract socket through a socketpair end (01 A)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

from mcts_course.cli import main
from mcts_course.grading.report import HELPERS_NOTE

SECRET = [3, 5, 7]  # the hidden test's counts: what the submissions below try to carry out

HIDDEN = f"""import pytest


@pytest.mark.points(2, exercise="bandits_secret", exercise_set="bandits", visibility="hidden")
def test_secret_arm(student):
    assert student.ucb1_choice({SECRET}, [1.25, 3.3137, 4.0], 0.0) == 1


@pytest.mark.points(1, exercise="bandits_later", exercise_set="bandits",
                    visibility="after_due_date")
def test_later_arm(student):
    assert student.ucb1_choice([4, 4], [2.7182, 1.0], 0.0) == 0
"""


def _hidden_tests(tmp_path: Path) -> Path:
    folder = tmp_path / "hidden"
    folder.mkdir()
    (folder / "test_secret.py").write_text(HIDDEN)
    return folder


def _grade(sub: Path, tmp_path: Path) -> tuple[dict, str, str]:
    """Grade ``sub`` (its ucb1 tests and the hidden ones): its results.json, the file's text
    and its pytest.log."""
    out = tmp_path / "out"
    tests = _hidden_tests(tmp_path)
    args = ["grade", str(sub), "--out", str(out), "--tests", str(tests)]
    main([*args, "--exercise-set=bandits", "-k", "ucb1 or secret or later"])
    text = (out / sub.name / "results.json").read_text()
    return json.loads(text), text, (out / sub.name / "pytest.log").read_text()


# -- 02: which helpers the held-back tests' process imports ---------------------------------
HELPER_CHANNEL = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer; on the hidden counts, a helper named after them is imported."""
    if list(counts) == [3, 5, 7]:
        import zheld_3_5_7  # noqa: F401
    elif list(counts) == [4, 4]:
        import zheld_4_4  # noqa: F401
    else:
        import zvisible  # noqa: F401
    return _reference_ucb1(counts, sums, c)
'''


@pytest.mark.parametrize("mode", ["namespaces", "no-namespaces"])
def test_what_the_held_back_process_imports_changes_no_note(tmp_path, mode, monkeypatch):
    if mode == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    sub = tmp_path / "mallory"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + HELPER_CHANNEL)
    for name in ("zheld_3_5_7", "zheld_4_4", "zvisible"):
        (sub / f"{name}.py").write_text("")
    data, text, log = _grade(sub, tmp_path)
    held = [t for t in data["tests"] if t["visibility"] != "visible"]
    assert len(held) == 2 and all(t["score"] == t["max_score"] for t in held), data["tests"]
    # the note names every file beside the exercise (the student's own folder, told before
    # any question), not what a process imported: no channel out of the held-back tests
    note = HELPERS_NOTE + '"zheld_3_5_7.py", "zheld_4_4.py", "zvisible.py"'
    assert data["extra_data"]["notes"] == [note], data["extra_data"]["notes"]
    assert data["output"].count(note) == 1, data["output"]


# -- 01 A: a socket pair's datagram end sends to another user's abstract address ------------
SOCKET_CHANNEL = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer; on the hidden counts, every route out through a socket pair."""
    if list(counts) == [3, 5, 7]:
        import socket

        message = repr(list(counts)).encode()
        for kind in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_STREAM):
            for route in ("sendto", "connect", "bind"):
                try:
                    a, b = socket.socketpair(socket.AF_UNIX, kind)
                except OSError:
                    continue
                for name in ({names}):
                    try:
                        if route == "sendto":
                            a.sendto(message, name)
                        elif route == "connect":
                            a.connect(name)
                            a.send(message)
                        else:  # a name of its own, for the listener to send to
                            a.bind(name + "-back")
                    except OSError:
                        pass
    return _reference_ucb1(counts, sums, c)
'''


def _listeners(tag: str) -> tuple[list[str], list]:
    """An abstract datagram socket and an abstract seqpacket listener of the test's own (the
    other local user's, in the attack), never blocking."""
    import socket

    names, socks = [], []
    for kind in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        name = f"\0gl-rt11-{tag}-{kind}"
        s = socket.socket(socket.AF_UNIX, kind)
        s.bind(name)
        if kind == socket.SOCK_SEQPACKET:
            s.listen(4)
        s.setblocking(False)
        names.append(name)
        socks.append(s)
    return names, socks


def _received(socks: list) -> list[str]:
    import socket

    got = []
    for s in socks:
        try:
            if s.type == socket.SOCK_SEQPACKET:
                peer, _ = s.accept()
                got.append("accepted: " + repr(peer.recv(1000)))
            else:
                got.append(repr(s.recv(1000)))
        except BlockingIOError:
            pass
    return got


@pytest.mark.parametrize("mode", ["namespaces", "no-namespaces"])
def test_no_datagram_leaves_a_graded_run_through_a_socket_pair(tmp_path, mode, monkeypatch):
    import os
    import socket

    if mode == "no-namespaces":
        monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
    names, socks = _listeners(f"{os.getpid()}-{mode}")
    try:
        sub = tmp_path / "mallory"
        sub.mkdir()
        channel = SOCKET_CHANNEL.replace("{names}", ", ".join(repr(n) for n in names) + ",")
        (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + channel)
        data, _, _ = _grade(sub, tmp_path)
        held = [t for t in data["tests"] if t["visibility"] != "visible"]
        assert len(held) == 2 and all(t["score"] == t["max_score"] for t in held), data["tests"]
        assert _received(socks) == []
        for name in names:  # nothing bound a name beside the listeners' either
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            with pytest.raises(OSError):
                probe.connect(name + "-back")
            probe.close()
    finally:
        for s in socks:
            s.close()


UNDER_THE_FILTER = """
import ctypes, errno, socket, sys
from mcts_course.grading import kernel

name = "\\0" + sys.argv[1]  # abstract: argv holds no NUL
assert kernel.install_filter()
seen = {}
for kind in ("SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_RAW"):
    try:
        socket.socketpair(socket.AF_UNIX, getattr(socket, kind))
        seen[kind] = "ok"
    except OSError as error:
        seen[kind] = errno.errorcode[error.errno]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK
                         | socket.SOCK_CLOEXEC)
a.send(b"x")  # the harness's own channels: a stream pair, no address
seen["stream pair"] = b.recv(1).decode()
for what, call in (("sendto", lambda: a.sendto(b"y", name)), ("connect", lambda: a.connect(name)),
                   ("bind", lambda: a.bind(name + "-back")), ("listen", lambda: a.listen(1)),
                   ("accept", lambda: a.accept())):
    try:
        call()
        seen[what] = "ok"
    except OSError as error:
        seen[what] = errno.errorcode[error.errno]
print(repr(seen))
"""


def test_the_filter_keeps_stream_pairs_and_refuses_every_address(tmp_path):
    import os
    import subprocess
    import sys

    from mcts_course.grading import kernel

    if kernel._arch() is None or sys.platform != "linux":
        pytest.skip("the seccomp filter is Linux's (x86_64, arm64)")
    names, socks = _listeners(f"{os.getpid()}-filter")
    try:
        script = tmp_path / "under.py"
        script.write_text(UNDER_THE_FILTER)
        done = subprocess.run(
            [sys.executable, str(script), names[0][1:]], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        seen = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our own script's repr)
        assert seen.pop("stream pair") == "x"
        assert seen == dict.fromkeys(seen, "EPERM"), seen
        assert _received(socks) == []
    finally:
        for s in socks:
            s.close()


# -- 01 B1: the names of the files the no-namespace sweep removes --------------------------
LITTER = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer, after a file named after the question in a shared folder."""
    import os

    asked = "-".join(map(str, counts))
    tag = "held-" + asked if asked in ("3-5-7", "4-4") else "visible"
    open(os.path.join({shared!r}, "LEAK-" + tag), "a").close()
    return _reference_ucb1(counts, sums, c)
'''


@pytest.mark.skipif(
    sys.platform != "linux" or not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the no-namespace mode is root's",
)
def test_the_sweep_tells_the_student_counts_of_the_visible_tests_processes_only(tmp_path):
    base = Path(tempfile.mkdtemp(prefix="gl-shared-"))  # every user may enter it
    try:
        os.chmod(base, 0o755)
        shared = base / "tmp"  # stands for /tmp: world-writable, sticky
        shared.mkdir()
        os.chmod(shared, 0o1777)
        sub = base / "mallory"
        sub.mkdir()
        code = (SOLUTIONS / "bandits.py").read_text() + LITTER.replace(
            "{shared!r}", repr(str(shared))
        )
        (sub / "bandits.py").write_text(code)
        out = base / "out"
        tests = _hidden_tests(tmp_path)
        # as on a kernel without Landlock: the files must be written for the sweep to report them
        env = {**os.environ, "MCTS_NO_NAMESPACES": "1", "MCTS_NO_LANDLOCK": "1"}
        env["TMPDIR"] = str(shared)
        command = [sys.executable, "-m", "mcts_course", "grade", str(sub), "--out", str(out)]
        command += [
            "--tests",
            str(tests),
            "--exercise-set=bandits",
            "-k",
            "ucb1 or secret or later",
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        assert list(shared.iterdir()) == []  # all three files were swept
        text = (out / "mallory" / "results.json").read_text()
        data = json.loads(text)
        held = [t for t in data["tests"] if t["visibility"] != "visible"]
        assert len(held) == 2 and all(t["score"] == t["max_score"] for t in held), data["tests"]
        assert "LEAK" not in text and "3-5-7" not in text and "4-4" not in text
        # the student is told what the visible tests' process left: one file, in that folder
        # counted under the swept folder it was found in (shared, or a folder above it)
        swept = data["extra_data"]["swept"]
        assert sum(swept.values()) == 1 and all(shared.is_relative_to(k) for k in swept), swept
        assert "swept after the run: 1 file(s)" in data["extra_data"]["confinement"]
        # the instructor's log names all three
        log = (out / "mallory" / "pytest.log").read_text()
        for tag in ("visible", "held-3-5-7", "held-4-4"):
            assert repr(str(shared / f"LEAK-{tag}")) in log, log
        assert data["extra_data"]["status"] == "graded"
    finally:
        shutil.rmtree(base, ignore_errors=True)


# -- the same principle: a held-back tests' process that SIGKILLs itself --------------------
SELF_KILL = '''

_reference_ucb1 = ucb1_choice


def ucb1_choice(counts, sums, c=2 ** 0.5):
    """The reference's answer; on the hidden counts, a bit of them as a SIGKILL to itself."""
    if list(counts) == [3, 5, 7]:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return _reference_ucb1(counts, sums, c)
'''


def test_a_held_back_process_killed_from_outside_adds_no_note_for_the_student(tmp_path):
    from mcts_course.grading import confine

    if os.geteuid() != 0 or not confine.cgroups_allowed():
        pytest.skip("needs root and cgroups (a SIGKILL from outside is told apart there)")
    sub = tmp_path / "mallory"
    sub.mkdir()
    (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + SELF_KILL)
    data, text, _ = _grade(sub, tmp_path)
    visible = [t for t in data["tests"] if t["visibility"] == "visible"]
    assert visible and all(t["score"] == t["max_score"] for t in visible), data["tests"]
    # the instructor's status still says a process was killed (the batch exits 1) ...
    assert data["extra_data"]["killed_outside"] is True
    assert data["extra_data"]["status"] == "killed"
    # ... but nothing of it reaches the text the student reads
    assert "killed from outside" not in data["output"], data["output"]
    assert "killed from outside" not in " ".join(data["extra_data"].get("notes", []))
