"""Red team 10's attack 03 (helper GJ): a class stripped in memory, its full file on disk.

Every graded run's package copy kept the full source files while the run's process stripped,
in memory, what its exercise set may not use (:mod:`mcts_course.grading.narrow`).  A
submission found the stripped ``MCTSAgent`` (a ``type.__subclasses__`` walk), asked
``inspect.getsourcefile`` for its file and ``exec``'d the text: a working UCT with no search
written (ttt_mcts 13/39); the same with ``games/connect4.py`` gave ``is_win`` (6/18), also
without namespaces, where the batch's copy in the temporary folder was readable by any user.
Now each set has its own copy, whose files hold what the set may use (the text agrees with the
live modules), and a run reads only its own set's copy.  The grading is real (as root)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_fixtures.batches import private
from grading_fixtures.points import most
from grading_fixtures.shared_folders import SOLUTIONS
from mcts_grader.batch import grade

from mcts_course.grading import confine, sandbox
from mcts_course.grading.narrow import GAMES, SKELETON, cuts
from mcts_course.grading.sets import SETS

ATTACKS = Path(__file__).resolve().parent / "attacks" / "round10_gj"
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="graded runs as root"
)
MODES = {"namespaces": False, "no-namespaces": True}


@pytest.fixture
def mode(request, monkeypatch):
    if MODES[request.param]:
        monkeypatch.setenv(confine.NO_NAMESPACES_ENV, "1")
    confine.namespaces_allowed.cache_clear()
    yield request.param
    confine.namespaces_allowed.cache_clear()


# What a module keeps: its own names, and each class's it defines (a subprocess per view).
SHAPE = """
import importlib, json, sys
sys.path[:0] = json.loads(sys.argv[1])  # the copy, numpy's folder
from mcts_course.grading.narrow import narrow
narrow(sys.argv[2] or None)
shape = {}
for name in sys.argv[3:]:
    module = importlib.import_module(name)
    shape[name] = {"": sorted(vars(module))}
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == name:
            shape[name][value.__name__] = sorted(set(vars(value)) - {"__abstractmethods__"})
print(json.dumps(shape))
"""
MODULES = [*GAMES, SKELETON]


def _shape(root: Path, set_name: str) -> dict:
    """The names ``root``'s copy keeps once ``narrow(set_name)`` ran ("": nothing narrowed)."""
    import numpy

    folders = json.dumps([str(root), str(Path(numpy.__file__).parents[1])])
    command = [sys.executable, "-I", "-S", "-c", SHAPE, folders, set_name, *MODULES]
    done = subprocess.run(
        command, cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    return sandbox.public_package(tmp_path_factory.mktemp("public"))


@pytest.mark.parametrize("set_name", sorted(SETS))
def test_a_sets_copy_holds_the_text_of_what_its_process_keeps(copies, set_name):
    """The set's files, imported as they are, define exactly what the full copy keeps once
    narrow() has stripped it in memory: the file a class came from is that class."""
    view = sandbox.set_view(copies, set_name)
    from_text = _shape(view, "")
    from_memory = _shape(copies, set_name)
    assert from_text == from_memory
    text = (view / "mcts_course" / "agents" / "mcts.py").read_text()
    c4 = (view / "mcts_course" / "games" / "connect4.py").read_text()
    base = (view / "mcts_course" / "games" / "base.py").read_text()
    if set_name == "bandits":  # its given code runs the whole skeleton and its playouts
        assert not cuts(set_name)
        assert "def search(" in text and "def backpropagate(" in text and "def rollout(" in base
    else:
        assert "def search(" not in text and "def backpropagate(" not in text
        assert "def rollout(" not in base and "def _playout(" not in c4
        assert "def __init__(" not in text.split("class MCTSAgent")[1]
    assert ("def four_in_a_row(" in c4) == (set_name != "connect4")


def test_the_copies_are_closed_to_other_users(copies):
    """Another set's copy holds what this set may not use: no user but the grader may enter
    the folder of the copies (a run reads its own set's, bound into its root or copied for
    its user id alone)."""
    assert stat.S_IMODE(copies.stat().st_mode) == 0o700
    assert not sandbox.readable_by_others(copies / "sets" / "bandits" / "mcts_course")


def _submission(base: Path, name: str, attack: str, as_file: str) -> Path:
    folder = base / name
    folder.mkdir(parents=True)
    shutil.copyfile(ATTACKS / attack, folder / as_file)
    return folder


# the 13 points the attack took: the search tests of ttt_backprop and the player's of ttt_player
SEARCH_TESTS = ("search_counts", "search_takes_the_win", "search_blocks", "search_expand")
PLAYER_TESTS = ("player_interface", "player_beats_random", "player_draws_perfect")


@as_root
@pytest.mark.parametrize("mode", sorted(MODES), indirect=True)
def test_03_exec_of_the_skeletons_file_gives_no_search(tmp_path, mode):
    sub = _submission(private(tmp_path / "subs"), "v5exec", "v5exec_ttt_mcts.py.txt", "ttt_mcts.py")
    (result,) = grade([sub], sets=["ttt_mcts"])
    assert result.status == "graded", result.status
    aimed = [o for o in result.outcomes if any(t in o.test for t in SEARCH_TESTS + PLAYER_TESTS)]
    assert len(aimed) == 7, [o.test for o in result.outcomes]
    assert [o.test for o in aimed if o.score] == []
    # failed for the stripped text (the exec'd MCTSAgent has no __init__), not by luck
    said = " ".join(o.output for o in aimed)
    assert "Agent.__init__() got an unexpected keyword argument" in said, said[:1500]


@as_root
@pytest.mark.parametrize("mode", sorted(MODES), indirect=True)
def test_03_exec_of_the_connect_four_file_gives_no_is_win(tmp_path, mode):
    sub = _submission(private(tmp_path / "subs"), "iswin", "iswin_connect4.py.txt", "connect4.py")
    (result,) = grade([sub], sets=["connect4"])
    assert result.status == "graded", result.status
    is_win = [o for o in result.outcomes if "is_win" in o.test]
    assert len(is_win) == 5, [o.test for o in result.outcomes]
    assert [o.test for o in is_win if o.score] == []
    assert result.score == 0
    said = " ".join(o.output for o in result.outcomes)
    assert "four_in_a_row" in said, said[:1500]  # the file has no such function any more


# A ttt_mcts submission (the reference) whose best_action first looks for a readable copy of
# the full skeleton among this batch's folders in the temporary folder (its copies of the
# package, the copies made for another run's user id).  Copies this grader did not make (a
# checkout, a copy some user left in /tmp) are readable without namespaces: the confinement
# line says so.  And the installed package (here, the checkout the tests run from), whose
# games hold the playouts: the process imports its set's copy, never the installed package,
# which is hidden (or made unreadable by Gradescope's setup.sh) as a whole.
LOOK = """

import glob as _glob

_right_best_action = best_action


def best_action(root):
    found = []
    for folder in ({batch!r}, "mcts-sandboxes-*/*-package"):
        pattern = {where!r} + "/" + folder + "/**/agents/mcts.py"
        found += _glob.glob(pattern, recursive=True)
    found += [{package!r} + "/games/base.py", {package!r} + "/games/tictactoe.py"]
    for path in found:
        try:
            text = open(path).read()
        except OSError:
            continue
        if "def backpropagate(" in text or "def rollout(" in text or "def _playout(" in text:
            raise RuntimeError("LEAK " + path)
    return _right_best_action(root)
"""


@as_root
@pytest.mark.parametrize("mode", sorted(MODES), indirect=True)
def test_03_no_other_copy_of_the_full_skeleton_is_readable(tmp_path, mode):
    folder = private(tmp_path / "subs") / "looker"
    folder.mkdir()
    code = (SOLUTIONS / "ttt_mcts.py").read_text()
    (folder / "ttt_mcts.py").write_text(
        code
        + LOOK.format(
            where=tempfile.gettempdir(),
            batch=f"mcts-public-{os.getpid()}-*",
            package=str(sandbox.PACKAGE),
        )
    )
    (result,) = grade([folder], sets=["ttt_mcts"])
    said = " ".join(o.output for o in result.outcomes)
    assert "LEAK" not in said, said[:1500]
    assert result.score == most("ttt_mcts"), [
        (o.test, o.output) for o in result.outcomes if not o.passed
    ]


@as_root
@pytest.mark.parametrize("mode", sorted(MODES), indirect=True)
def test_the_honest_bandits_keep_the_whole_skeleton(tmp_path, mode):
    """Exercise 7's given code runs MCTSAgent's search and playouts: its set's copy keeps them."""
    folder = private(tmp_path / "subs") / "honest"
    folder.mkdir()
    shutil.copyfile(SOLUTIONS / "bandits.py", folder / "bandits.py")
    (result,) = grade([folder], sets=["bandits"])
    assert result.status == "graded"
    assert result.score == most("bandits"), [o.output for o in result.outcomes if not o.passed]


@as_root
def test_03_a_teaching_assistants_run_reads_only_its_sets_copy():
    """The teaching assistant's mode (an ordinary account: a user namespace): the copies are
    the assistant's, and the run's root shows its own set's copy alone."""
    from grading_fixtures.shared_folders import as_account, userns_usable_by

    ta = 65534  # nobody: an account with no privilege
    if not userns_usable_by(ta):
        pytest.skip("user namespaces are not available to an ordinary account here")
    base = Path(tempfile.mkdtemp(prefix="gj-r10-ta-"))
    base.chmod(0o755)  # the assistant's folder inside it is its own
    try:
        where = base / "ta"
        (where / "tmp").mkdir(parents=True)
        (where / "sub").mkdir(mode=0o700)
        look = LOOK.format(
            where=str(where / "tmp"), batch="mcts-public-*", package=str(sandbox.PACKAGE)
        )
        code = (SOLUTIONS / "ttt_mcts.py").read_text() + look
        (where / "sub" / "ttt_mcts.py").write_text(code)
        for path in [where, *where.rglob("*")]:
            os.chown(path, ta, ta)
        command = [
            *as_account(ta),
            sys.executable,
            "-m",
            "mcts_course",
            "grade",
            str(where / "sub"),
        ]
        command += ["--out", str(where / "out"), "--exercise-set=ttt_mcts"]
        env = {**os.environ, "HOME": str(where), "TMPDIR": str(where / "tmp")}
        env.pop(confine.NO_NAMESPACES_ENV, None)
        done = subprocess.run(
            command, env=env, cwd=where, capture_output=True, text=True, timeout=900, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((where / "out" / "sub" / "results.json").read_text())
        said = " ".join(t.get("output", "") for t in results["tests"])
        assert "LEAK" not in said, said[:1500]
        assert results["score"] == most("ttt_mcts"), said[:1500]
    finally:
        shutil.rmtree(base, ignore_errors=True)
