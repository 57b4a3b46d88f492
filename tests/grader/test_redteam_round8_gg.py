"""Red team round 8, helper GG's items: the library's code brought along as a copy or compiled
(12), the leftover-cgroup sweep and a live grader in another pid namespace (08), hard links
(06), the copy limits (11), hidden test items pytest does not collect (02)."""

from __future__ import annotations

import json
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grading_fixtures.shared_folders import SOLUTIONS

import mcts_course.games.connect4 as library_connect4
from mcts_course.cli import main
from mcts_course.grading.report import HELPERS_NOTE

ROOT = Path(__file__).resolve().parents[2]
ATTACK_12_IS_WIN = '''

def is_win(board, player):
    """Four in a row (my helper module does the bit tricks)."""
    import c4rules

    b = 0
    for col in range(COLS):
        for row, d in enumerate(board[col]):
            if d == player:
                b |= 1 << (col * 7 + row)
    return bool(c4rules.four_in_a_row(b))
'''


def _results(out: Path, name: str) -> dict:
    return json.loads((out / name / "results.json").read_text())


def _c4_delegating(folder: Path) -> Path:
    """Attack 12's connect4.py: the reference with is_win handed to ``c4rules`` (beside it)."""
    folder.mkdir(parents=True)
    (folder / "connect4.py").write_text((SOLUTIONS / "connect4.py").read_text() + ATTACK_12_IS_WIN)
    return folder


class TestAttack12LibraryCopyOrCompiledHelper:
    def test_a_copy_of_the_librarys_rules_beside_the_exercise_gets_no_points(self, tmp_path):
        sub = _c4_delegating(tmp_path / "c4py")
        (sub / "c4rules.py").write_text(Path(library_connect4.__file__).read_text())
        out = tmp_path / "o"
        args = ["grade", str(sub), "--out", str(out), "--exercise-set=connect4", "-k", "is_win"]
        main(args)
        tests = _results(out, "c4py")["tests"]
        assert tests and all(t["score"] == 0 for t in tests), tests
        said = tests[0]["output"]
        assert '"c4rules.py" holds a copy of the library\'s own code' in said, said
        assert "mcts_course.games.connect4" in said

    def test_the_path_hook_finds_source_only_in_the_submissions_folder(self, tmp_path):
        (tmp_path / "mine.py").write_text("X = 1\n")
        (tmp_path / "other.py").write_text("Y = 2\n")
        py_compile.compile(str(tmp_path / "other.py"), cfile=str(tmp_path / "compiled.pyc"))
        code = (
            "import sys\n"
            "from mcts_course.grading import server\n"
            f"server.source_only({str(tmp_path)!r}); sys.path.insert(0, {str(tmp_path)!r})\n"
            "import mine\n"
            "try:\n    import compiled\nexcept ImportError:\n    print('refused')\n"
            "print(mine.X)\n"
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert run.stdout.split("\n")[:2] == ["refused", "1"], run

    @pytest.mark.parametrize("mode", ["namespaces", "no-namespaces"])
    def test_a_sourceless_pyc_beside_the_exercise_is_not_imported(
        self, tmp_path, mode, monkeypatch
    ):
        if mode == "no-namespaces":
            monkeypatch.setenv("MCTS_NO_NAMESPACES", "1")
        sub = _c4_delegating(tmp_path / "c4pyc")
        py_compile.compile(library_connect4.__file__, cfile=str(sub / "c4rules.pyc"))
        out = tmp_path / "o"
        args = ["grade", str(sub), "--out", str(out), "--exercise-set=connect4", "-k", "is_win"]
        main(args)
        tests = _results(out, "c4pyc")["tests"]
        assert tests and all(t["score"] == 0 for t in tests), tests
        assert "No module named 'c4rules'" in json.dumps(tests)

    def test_a_stub_that_imports_the_compiled_reference_earns_nothing(self, tmp_path):
        sub = tmp_path / "pyc"
        sub.mkdir()
        stub = (ROOT / "exercises" / "bandits.py").read_text()
        (sub / "bandits.py").write_text(
            stub + "\ntry:\n    from helpers2 import *\nexcept ImportError:\n    pass\n"
        )
        (sub / "h.py").write_text((SOLUTIONS / "bandits.py").read_text())
        py_compile.compile(str(sub / "h.py"), cfile=str(sub / "helpers2.pyc"))
        (sub / "h.py").unlink()
        out = tmp_path / "o"
        main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
        tests = _results(out, "pyc")["tests"]
        assert tests and all(t["score"] == 0 for t in tests), tests

    @pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
    def test_a_native_extension_beside_the_exercise_is_not_loaded(self, tmp_path):
        import sysconfig

        sub = tmp_path / "native"
        sub.mkdir()
        c_file = tmp_path / "helpers3.c"
        c_file.write_text(
            "#include <Python.h>\n"
            'static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "helpers3", 0, -1, 0};\n'
            "PyMODINIT_FUNC PyInit_helpers3(void) { return PyModule_Create(&m); }\n"
        )
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        include = sysconfig.get_paths()["include"]
        built = subprocess.run(
            [
                "cc",
                "-shared",
                "-fPIC",
                f"-I{include}",
                str(c_file),
                "-o",
                str(sub / f"helpers3{suffix}"),
            ],
            capture_output=True,
        )
        if built.returncode != 0:
            pytest.skip("no Python headers to build an extension")
        reference = (SOLUTIONS / "bandits.py").read_text()
        (sub / "bandits.py").write_text(reference + "\nimport helpers3\n")
        out = tmp_path / "o"
        main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
        tests = _results(out, "native")["tests"]
        assert tests and all(t["score"] == 0 for t in tests), tests
        assert "No module named 'helpers3'" in json.dumps(tests)

    def test_the_source_loader_still_runs_honest_helpers_and_says_which(self, tmp_path):
        sub = tmp_path / "helped"
        sub.mkdir()
        reference = (SOLUTIONS / "bandits.py").read_text()
        (sub / "mymath.py").write_text("def twice(x):\n    return 2 * x\n")
        (sub / "bandits.py").write_text(
            reference + "\n\n_old = ucb1_choice\n\n\ndef ucb1_choice(*a, **k):\n"
            "    from mymath import twice\n\n    return twice(_old(*a, **k)) // 2\n"
        )
        out = tmp_path / "o"
        main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
        data = _results(out, "helped")
        assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"]), data
        assert HELPERS_NOTE + '"mymath.py"' in data["extra_data"]["notes"]

    def test_no_stub_reference_or_lab_module_matches_a_protected_definition(self):
        from mcts_course.grading.copies import library_copy
        from mcts_course.grading.sets import SETS

        files = [*(ROOT / "exercises").glob("*.py"), *SOLUTIONS.glob("*.py")]
        files += list((ROOT / "lab").rglob("*.py"))
        assert len(files) > 10
        for set_name in SETS:
            for path in files:
                assert library_copy(path.read_text(), set_name) is None, (set_name, path)

    def test_renamed_reformatted_copies_are_still_copies(self):
        from mcts_course.grading.copies import library_copy

        # the library's four_in_a_row, renamed, without its docstring and type hints, spaced
        lines4 = (
            "def lines4(b):\n    l0,l1,l2,l3 = _LANES\n\n"
            "    return bool(b*l0 & b*l1 & b*l2 & b*l3)\n"
        )
        found = library_copy(lines4, "connect4") or ""
        assert "lines4 (a copy of mcts_course.games.connect4.four_in_a_row)" in found, found
        assert library_copy(lines4, "bandits") is None  # the rules are connect4's alone
        honest_lines = lines4.replace("_LANES", "MY_LANES").replace("b*l3", "b*l3 & 1")
        assert library_copy(honest_lines, "connect4") is None


VICTIM = """
import subprocess, sys, time
from pathlib import Path
from mcts_course.grading.confine import Cage

cage = object.__new__(Cage)
cage.memory_mb, cage.cgroups, cage.locks, cage._watching = 64, {}, [], None
cage._make_cgroups(sys.argv[1])
student = subprocess.Popen(["sleep", "300"])
for folder in set(cage.cgroups.values()):
    (folder / "cgroup.procs").write_text(str(student.pid))
print("ready", flush=True)
time.sleep(300)
"""


def _dead_pid() -> int:
    """A pid that no process of this pid namespace has (as a grader's in another one)."""
    import os

    for pid in range(4_000_000, 3_990_000, -1):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            continue
    raise AssertionError("no free pid")


def _swept_once_released(confine, name: str) -> bool:
    """Sweep until the cgroup ``name`` is gone (at most 10 s).  A grader killed with SIGKILL
    releases its lock only once the kernel has torn the process down, and in a pid namespace
    that ends after the waited-for ``unshare``: a sweep a moment earlier rightly leaves it."""
    import time

    # until the folder is gone, not only reported removed: the kernel may still be tearing the
    # cgroup down when a sweep reports it (a full run of this stop saw the folder a moment later)
    for _ in range(100):
        confine.remove_stale()
        if not (confine._own_cgroup("memory") / name).exists():
            return True
        time.sleep(0.1)
    return False


class TestAttack08SweepByLockNotPid:
    @pytest.fixture
    def victim(self):
        import os
        import signal

        from mcts_course.grading import confine

        if os.geteuid() != 0 or not confine.cgroups_allowed() or not shutil.which("unshare"):
            pytest.skip("needs root, cgroups and unshare")
        name = f"{_dead_pid()}-box-rt8victim"
        command = ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", VICTIM]
        proc = subprocess.Popen(
            [*command, name], stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            folder = confine._own_cgroup("memory") / f"mcts-{name}"
            yield proc, folder
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            confine.GRACE, old = 0.0, confine.GRACE
            try:
                _swept_once_released(confine, f"mcts-{name}")
            finally:
                confine.GRACE = old

    def test_a_live_grader_in_another_pid_namespace_keeps_its_cgroups(self, victim, monkeypatch):
        from mcts_course.grading import confine

        proc, folder = victim
        monkeypatch.setattr(confine, "GRACE", 0.0)  # old enough: only the lock protects it
        students = (folder / "cgroup.procs").read_text().split()
        assert students
        assert folder.name.removeprefix("mcts-") not in confine.remove_stale()
        assert folder.is_dir() and (folder / "cgroup.procs").read_text().split() == students

    def test_a_leftover_whose_grader_died_is_removed_with_its_processes(self, victim, monkeypatch):
        import os
        import signal

        from mcts_course.grading import confine

        proc, folder = victim
        students = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        os.killpg(proc.pid, signal.SIGKILL)  # the grader, not its student (in the cgroup)
        proc.wait()
        assert folder.name not in confine.remove_stale()  # too young: between mkdir and lock?
        monkeypatch.setattr(confine, "GRACE", 0.0)
        assert _swept_once_released(confine, folder.name)
        assert not folder.exists()
        for pid in students:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)


class TestAttack06HardLinksAndStrangersFiles:
    @pytest.fixture
    def student_folder(self, tmp_path):
        import os

        if os.geteuid() != 0:
            pytest.skip("needs root (a folder of another user, a link to a root-only file)")
        secret = tmp_path / "root-only.txt"
        secret.write_text("root:*:the shadow line\n")
        secret.chmod(0o600)
        sub = tmp_path / "sub"
        sub.mkdir()
        (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        for path in (sub, sub / "bandits.py"):
            os.chown(path, 65534, 65534)  # nobody's: the student's
        return sub, secret

    def test_a_hard_link_to_a_root_only_file_is_not_copied(self, student_folder):
        import os

        from mcts_course.grading import snapshot

        sub, secret = student_folder
        os.link(secret, sub / "notes.txt")  # as fs.protected_hardlinks=0 lets anyone do
        snap = snapshot.take(sub)
        assert not (snap.target / "notes.txt").exists()
        assert "hard link" in snap.refused[snap.target / "notes.txt"]
        assert (snap.target / "bandits.py").read_text().startswith('"""')

    def test_an_exercise_file_that_is_a_hard_link_gets_no_points_with_the_reason(
        self, student_folder
    ):
        import os

        from mcts_course.grading import snapshot

        sub, secret = student_folder
        (sub / "bandits.py").unlink()
        os.link(secret, sub / "bandits.py")
        found = snapshot.submission_sources(sub)["bandits"]
        assert "hard link" in found.refused and "0 points" in found.refused
        alone = snapshot.submission_sources(sub / "bandits.py")["bandits"]  # one file given
        assert "hard link" in alone.refused

    def test_a_file_of_another_owner_in_the_students_folder_is_not_copied(self, student_folder):
        from mcts_course.grading import snapshot

        sub, _ = student_folder
        (sub / "given.py").write_text("X = 1\n")  # root's, in nobody's folder
        snap = snapshot.take(sub)
        assert not (snap.target / "given.py").exists()
        assert "belongs to user 0" in snap.refused[snap.target / "given.py"]
        assert (snap.target / "bandits.py").exists()


def _deep_with_notes(sub: Path) -> Path:
    where = sub / "a" / "b" / "c" / "d" / "e" / "f" / "g"
    where.mkdir(parents=True)
    (where / "notes.txt").write_text("1\n")
    return sub


class TestAttack11CopyLimitsNeverHideTheExercise:
    @pytest.mark.parametrize("layout", ["many-files", "deep"])
    def test_the_exercise_beyond_a_limit_is_graded_and_the_cut_is_said(self, tmp_path, layout):
        from mcts_course.grading import snapshot

        if layout == "deep":  # a file beyond the depth, not an exercise: that is a cut
            deeper = snapshot.take(_deep_with_notes(tmp_path / "deep-notes"))
            assert any("6 levels" in why for why in deeper.cut), deeper.cut

        sub = tmp_path / layout
        if layout == "many-files":  # a data folder (or a venv without a dot) before the code
            (sub / "aa").mkdir(parents=True)
            for i in range(snapshot.FILES + 100):
                (sub / "aa" / f"d{i:05d}.txt").write_text("1\n")
            where = sub / "zz"
        else:  # a zipped home folder: Downloads/course/mcts-course/exercises/...
            where = sub / "a" / "b" / "c" / "d" / "e" / "f" / "g"
        where.mkdir(parents=True)
        (where / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text())
        out = tmp_path / "o"
        code = main(["grade", str(sub), "--out", str(out), "--exercise-set=bandits", "-k", "ucb1"])
        data = _results(out, layout)
        assert data["tests"] and all(t["score"] == t["max_score"] for t in data["tests"]), data
        if layout == "deep":  # nothing but the exercise file lay beyond the limit: no cut
            assert data["extra_data"]["status"] == "graded" and code == 0
            assert "copy_cut" not in data["extra_data"]
            return
        assert data["extra_data"]["status"] == "incomplete copy" and code == 1
        said = " ".join(data["extra_data"]["copy_cut"])
        assert "2,000 files" in said, said
        assert said in " ".join(data["extra_data"]["notes"]) and "Note: the copy" in data["output"]
        assert "note: the copy" in (out / layout / "pytest.log").read_text()
        grades = (out / "grades.csv").read_text()
        assert f"{layout},incomplete copy," in grades, grades

    def test_a_submission_within_the_limits_says_nothing(self, tmp_path):
        from mcts_course.grading import snapshot

        sub = tmp_path / "small"
        (sub / "data").mkdir(parents=True)
        (sub / "data" / "x.txt").write_text("1\n")
        (sub / "bandits.py").write_text("X = 1\n")
        snap = snapshot.take(sub)
        assert snap.cut == [] and (snap.target / "data" / "x.txt").exists()


HIDDEN_02 = """import pytest

MARK = dict(exercise_set="bandits", visibility="visible")


@pytest.mark.points(1, exercise="h_base", **MARK)
def test_base(student):
    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1
"""
INIT_CLASS = """

class TestWithInit:
    def __init__(self):
        pass

    @pytest.mark.points(1, exercise="h_initclass", **MARK)
    def test_in_class(self, student):
        assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1
"""
TWICE = """

@pytest.mark.points(1, exercise="h_dup", **MARK)
def test_dup(student):
    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1


@pytest.mark.points(1, exercise="h_dup2", **MARK)
def test_dup(student):
    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1
"""
NOT_TEST = """

@pytest.mark.points(3, exercise="h_helper", **MARK)
def check_helper(student):
    assert student.ucb1_choice([1, 1], [0.0, 1.0], 0.0) == 1
"""


class TestAttack02HiddenTestsPytestDoesNotCollect:
    def test_each_dropped_test_stops_the_vet_naming_it_and_why(self, tmp_path):
        from mcts_grader.vet import BadTests, vet

        hidden = tmp_path / "hidden"
        hidden.mkdir(mode=0o700)
        (hidden / "test_init.py").write_text(HIDDEN_02 + INIT_CLASS)
        (hidden / "test_twice.py").write_text(HIDDEN_02 + TWICE)
        (hidden / "test_name.py").write_text(HIDDEN_02 + NOT_TEST)
        with pytest.raises(BadTests) as stopped:
            vet([hidden], scratch=tmp_path)
        said = str(stopped.value)
        assert "test_init.py" in said and "__init__" in said, said
        assert "test_twice.py::test_dup is defined 2 times" in said, said
        assert "test_name.py::check_helper has a points marker" in said, said
        assert "name it test_*" in said

    def test_the_dropped_items_are_found_from_the_ast(self, tmp_path):
        from mcts_grader.vet import dropped

        hidden = tmp_path / "hidden"
        hidden.mkdir()
        (hidden / "test_a.py").write_text(HIDDEN_02 + INIT_CLASS + TWICE + NOT_TEST)
        found = {"items": ["hidden/test_a.py::test_base", "hidden/test_a.py::test_dup"]}
        faults = dropped([hidden], found)
        assert any(
            "TestWithInit::test_in_class its class TestWithInit has __init__" in f for f in faults
        )
        assert any("test_a.py::test_dup is defined 2 times" in f for f in faults)
        assert any("check_helper has a points marker" in f for f in faults)
        assert not any("test_base" in f for f in faults)
        clean = {"items": ["hidden/test_a.py::test_base"]}
        (hidden / "test_a.py").write_text(HIDDEN_02)
        assert dropped([hidden], clean) == []


SLOW_FIRST_CALL = """

import time as _time

_real_ucb1 = ucb1_choice
_CALLS = []


def ucb1_choice(counts, sums, c=math.sqrt(2)):
    if not _CALLS:
        _CALLS.append(1)
        _time.sleep(10)  # the neighbour's sweep (or any program) kills it meanwhile
    return _real_ucb1(counts, sums, c)
"""


def _namespace_pid(pid: int) -> int | None:
    """``pid``'s number in its own pid namespace (the last of ``NSpid``)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


def _descendants_in_a_box(top: int) -> list[int]:
    """Pids of python processes below ``top`` in a sandbox's cgroup (this test's students)."""
    import os

    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat_line = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat_line.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found = []
    for pid in parents:
        up, seen = pid, 0
        while up in parents and up != top and seen < 64:
            up, seen = parents[up], seen + 1
        if up != top:
            continue
        try:
            box = "-box-" in Path(f"/proc/{pid}/cgroup").read_text()
            python = Path(f"/proc/{pid}/comm").read_text().startswith("python")
        except OSError:
            continue
        if box and python and _namespace_pid(pid) != 1:  # not the grader's own first process
            found.append(pid)
    return found


class TestAttack08KilledFromOutside:
    def test_a_sigkill_the_grader_did_not_send_makes_the_run_killed(self, tmp_path):
        import os
        import signal
        import threading
        import time

        from mcts_course.grading import confine

        if os.geteuid() != 0 or not confine.cgroups_allowed():
            pytest.skip("needs root and cgroups (the caps' own SIGKILLs are told apart there)")
        sub = tmp_path / "victim"
        sub.mkdir()
        (sub / "bandits.py").write_text((SOLUTIONS / "bandits.py").read_text() + SLOW_FIRST_CALL)
        killed: list[int] = []

        def neighbour() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not killed:
                pids = _descendants_in_a_box(os.getpid())
                if pids:
                    time.sleep(2.0)  # loaded, inside its first call
                    for pid in _descendants_in_a_box(os.getpid()):
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                time.sleep(0.05)

        thread = threading.Thread(target=neighbour)
        thread.start()
        out = tmp_path / "o"
        args = ["--exercise-set=bandits", "-k", "test_ucb1_choice", "--timeout-scale", "10"]
        code = main(["grade", str(sub), "--out", str(out), *args])
        thread.join()
        assert killed
        data = _results(out, "victim")
        assert data["extra_data"]["status"] == "killed" and code == 1, data
        assert "killed from outside the grader" in " ".join(data["extra_data"]["notes"])
        assert "sent neither by the grader nor by a cap" in data["tests"][0]["output"]
