"""Red team round 34: a checkout of this repository under ``/usr``, which every namespace
sandbox shows whole, gave the reference solutions to a submission holding no exercise code:
through ``.git``'s objects (02, 08: 100 of 100 points), ``grader/build/lib`` (02) and, with the
grader installed from a wheel, ``grader/mcts_grader`` itself (05).  Inside a run, the
checkout's in-tree ``.egg-info`` shadowed the distribution that records where the grader was
installed from, so the earlier mask never applied to an editable install (02)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from grading_fixtures.asking import CALL, namespaced

from mcts_course.grading import checkouts, confine


def _checkout(top: Path) -> dict[str, Path]:
    """A checkout's parts that hold the reference solutions, and its virtual environment."""
    parts = {
        "object": top / ".git" / "objects" / "ab" / "cdef0123",
        "package": top / "grader" / "mcts_grader" / "solutions" / "bandits.py",
        "build": top / "grader" / "build" / "lib" / "mcts_grader" / "solutions" / "bandits.py",
        "site": top / ".venv" / "lib" / "python3.11" / "site-packages",
    }
    for name, path in parts.items():
        if name == "site":
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"SECRET-{name}\n")
    (top / "pyproject.toml").write_text("[project]\nname = 'mcts-course'\n")
    (top / "grader" / "pyproject.toml").write_text("[project]\nname = 'mcts-course-grader'\n")
    return parts


def test_a_checkout_in_a_shown_tree_is_covered_all_but_its_environment(tmp_path):
    tree = tmp_path / "usr"
    top = tree / "local" / "src" / "course"
    parts = _checkout(top)
    found = checkouts.find([str(tree)])
    assert str(top) in found
    site = str(parts["site"])
    masks: list[str] = []
    for path in found:
        masks += confine.cover(path, [str(tree), site], [str(tree)])
    for name in ("object", "package", "build"):
        assert any(confine._within(str(parts[name]), m) for m in masks), (name, masks)
    assert not any(confine._within(site, m) for m in masks), masks  # the environment stays
    assert confine.cover(str(top), [str(tree), site], ["/elsewhere"]) == []  # not shown


def _dist(location: Path, url: str | None) -> SimpleNamespace:
    text = json.dumps({"url": url, "dir_info": {}}) if url else None
    return SimpleNamespace(
        metadata={"Name": "mcts-course-grader"},
        locate_file=lambda _: location,
        read_text=lambda _: text,
    )


def test_02_every_distribution_of_the_grader_is_an_anchor(tmp_path, monkeypatch):
    top = tmp_path / "checkout"
    _checkout(top)
    wheel = tmp_path / "other" / "dist" / "mcts_course_grader-0.1-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    (tmp_path / "other" / "pyproject.toml").write_text("")
    # the run finds the in-tree .egg-info first, which records nothing of where it came from
    dists = [_dist(top / "grader", None), _dist(tmp_path / "site", wheel.as_uri())]
    monkeypatch.setattr(checkouts.metadata, "distributions", lambda: dists)
    found = checkouts.find([])
    assert str(top) in found and str(tmp_path / "other") in found, found


def test_grade_hands_the_copies_to_its_runs(tmp_path, monkeypatch):
    _checkout(tmp_path / "course")
    env: dict[str, str] = {}
    checkouts.for_runs(env, [str(tmp_path)])
    monkeypatch.setenv(checkouts.COPIES_ENV, env[checkouts.COPIES_ENV])
    checkouts.copies.cache_clear()
    try:
        assert str(tmp_path / "course") in checkouts.copies(("/nowhere",))
    finally:
        checkouts.copies.cache_clear()


READER = """
PATHS = {paths!r}

def f(x):
    found = []
    for path in PATHS:
        try:
            found.append(open(path).read().strip())
        except OSError as error:
            found.append(type(error).__name__)
    return " ".join(found)
"""


def _shown_tree() -> Path:
    """A folder every sandbox shows whole (the interpreter's, the shared libraries')."""
    return Path(confine.whole_trees()[-1])


@namespaced
@pytest.mark.skipif(os.geteuid() != 0, reason="writes under /usr and the interpreter's folder")
@pytest.mark.parametrize("where", ["usr", "shown"])
def test_02_05_08_a_checkout_shows_nothing_to_the_student(started, monkeypatch, where):
    """Under /usr (not shown: red team 35's unmarked copies, a tarball among them, 02) and
    inside a folder the sandbox shows whole, where the walk finds it and the mask covers it."""
    parent = Path("/usr/local/share") if where == "usr" else _shown_tree()
    top = parent / f"mcts-rt34-{uuid.uuid4().hex[:8]}"
    parts = _checkout(top)
    (top / "main.tar.gz").write_text("SECRET-archive\n")  # no name the walk knows
    monkeypatch.delenv(checkouts.COPIES_ENV, raising=False)  # this process walks
    monkeypatch.delenv(confine.VIEW_ENV, raising=False)  # and works out the view
    checkouts.copies.cache_clear()
    confine.system_view.cache_clear()
    try:
        paths = [str(parts[name]) for name in ("object", "package", "build")]
        if where == "usr":
            paths.append(str(top / "main.tar.gz"))
        process = started(READER.format(paths=paths))
        reply, _ = process.exchange(CALL, 5.0, lambda m: {}, "f")
        assert "SECRET" not in str(reply), reply
        assert "ok" in reply, reply
    finally:
        checkouts.copies.cache_clear()
        confine.system_view.cache_clear()
        shutil.rmtree(top)


def test_03_a_folder_the_walk_cannot_list_is_covered(tmp_path, monkeypatch):
    """A teaching assistant's walk cannot list a 711 folder, whose files the student's code
    (with the same permissions) opens by name (red team 35, 03): such a folder is covered."""
    closed = tmp_path / "tree" / "closed"
    (closed / "checkout").mkdir(parents=True)
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(closed):
            raise PermissionError(13, "Permission denied", str(closed))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert str(closed) in checkouts.find([str(tmp_path / "tree")])


def test_the_system_is_shown_by_what_the_interpreter_loads():
    """The view holds the interpreter, its standard library and its libraries' folders, and
    neither /usr whole nor any folder above the interpreter's standard library."""
    view = confine.system_view()
    assert not {"/usr", "/usr/local", "/usr/share", "/usr/local/src", "/bin"} & set(view)
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    assert any(confine._within(stdlib, p) for p in view)
    assert os.path.realpath(sys.executable) in view or any(
        confine._within(os.path.realpath(sys.executable), p) for p in view
    )


def test_a_worktree_s_objects_are_covered_where_they_are(tmp_path):
    """A worktree's ``.git`` is a file naming its folder in the main checkout's ``.git``, whose
    ``commondir`` holds the objects: both are covered, wherever they lie."""
    main = tmp_path / "elsewhere" / "main"
    folder = main / ".git" / "worktrees" / "w"
    (main / ".git" / "objects").mkdir(parents=True)
    folder.mkdir(parents=True)
    (folder / "commondir").write_text("../..\n")
    tree = tmp_path / "usr"
    worktree = tree / "src" / "w"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {folder}\n")
    found = checkouts.find([str(tree)])
    assert {str(worktree), str(folder), str(main / ".git")} <= set(found), found


def test_without_ldd_the_view_holds_the_libraries_this_process_loaded(monkeypatch):
    real = confine.shutil.which
    monkeypatch.setattr(
        confine.shutil, "which", lambda name, path=None: None if name == "ldd" else real(name)
    )
    with open("/proc/self/maps") as maps:
        libc = next(m.split()[-1] for m in maps if "/libc.so" in m or "/libc-" in m)
    folders = {os.path.dirname(os.path.realpath(p)) for p in confine._libraries([sys.executable])}
    assert os.path.dirname(os.path.realpath(libc)) in folders, folders


@namespaced
@pytest.mark.skipif(os.geteuid() != 0, reason="writes in the interpreter's folder")
def test_hidden_tests_in_a_shown_folder_are_refused(tmp_path):
    """Red teams 35, 04 and 37, 03: an instructor's test given alone is covered, but not its
    neighbours (next week's tests, the data it loads): grade refuses such a folder."""
    import subprocess

    folder = _shown_tree() / f"mcts-rt37-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        test = folder / "test_hidden.py"
        test.write_text("import pytest\n\n\n@pytest.mark.points(1, exercise='ucb1')\n")
        (folder / "test_week2.py").write_text("# next week\n")
        submission = tmp_path / "sub"
        submission.mkdir()
        (submission / "bandits.py").write_text("")
        done = subprocess.run(
            [sys.executable, "-m", "mcts_course", "grade", "--exercise-set=bandits"]
            + ["--out", str(tmp_path / "out"), "--tests", str(test), "--", str(submission)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2, done.stderr
        assert "every student's sandbox shows" in done.stderr, done.stderr
    finally:
        shutil.rmtree(folder)


def test_38_02_a_bare_clone_is_found_by_its_layout(tmp_path):
    bare = tmp_path / "tree" / "course.git"
    (bare / "objects" / "pack").mkdir(parents=True)
    (bare / "refs" / "heads").mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    assert str(bare) in checkouts.find([str(tmp_path / "tree")])


def test_38_03_only_the_c_library_s_folder_is_shown_whole():
    """Another library's folder (pyenv's lib/ beside libpython, /usr/local/lib) held a zip of
    the repository (red team 38, 03): such a library is shown alone."""
    with open("/proc/self/maps") as maps:
        libc = next(m.split()[-1] for m in maps if "/libc.so" in m or "/libc-" in m)
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    allowed = {os.path.dirname(os.path.realpath(libc)), stdlib, confine.LOCALES}
    extra = [t for t in confine.whole_trees() if not any(confine._within(t, a) for a in allowed)]
    assert extra == [], extra
