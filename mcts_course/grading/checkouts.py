"""Copies of this repository inside the folders the namespace sandbox shows whole.

The student's root shows, read-only, the interpreter's standard library and the folders of
the shared libraries it loads (:func:`confine.system_view`), not ``/usr`` whole any more: a
checkout, a bare clone or an archive of this repository anywhere in ``/usr`` had shown the
reference solutions to every submission (red teams 34 and 35: 100 of 100 points from a
checkout's ``.git`` objects, from a tarball).  What remains shown whole can still hold a copy
(an instructor's checkout inside the interpreter's own folder): the sandbox covers each copy
found there (:func:`confine.visible`), all but what the student's process needs of it.

The copies are found two ways, once per batch (``grade`` hands them to its runs in
:data:`COPIES_ENV`): from where this package, the grader's package and their distributions
are (walking up to the checkout's root: its ``.git``, else its top ``pyproject.toml``; pip's
``direct_url.json`` names the folder or wheel installed from), and by a walk of the shown
folders for what marks a copy (a ``.git``, a bare clone's ``HEAD``, ``objects`` and ``refs``,
a ``mcts_grader`` folder, a ``mcts_course_grader`` wheel, archive or metadata folder) and for
folders the walk cannot list (a teaching assistant's walk cannot list a 711 folder whose
files the student's code, with the same permissions, opens by name: red team 35, 03).
Nothing is looked for where no grader is installed: a student's own machine holds nothing of
it to hide.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

COPIES_ENV = "MCTS_REPOSITORY_COPIES"  # a JSON list, set by grade: its runs walk nothing
DISTRIBUTIONS = ("mcts-course", "mcts-course-grader")
PACKAGES = ("mcts_course", "mcts_grader")
MARKS = (".git", "mcts_grader")  # names that mark a copy wherever they are
MARK_PREFIX = "mcts_course_grader"  # the grader's wheel, sdist, .egg-info, .dist-info


def _normal(name: str) -> str:
    return name.replace("_", "-").replace(".", "-").lower()


def anchors() -> list[Path]:
    """Where the course's packages and distributions are on this machine: every distribution
    of these names (not only the one found first: inside a run, a checkout's in-tree
    ``.egg-info``, which records no ``direct_url.json``, shadows the environment's
    ``.dist-info``; red team 34, 02), the folder or file pip installed each from, and the
    packages' folders."""
    found: list[Path] = []
    for dist in metadata.distributions():
        if _normal(dist.metadata["Name"] or "") not in DISTRIBUTIONS:
            continue
        found.append(Path(str(dist.locate_file(""))))
        try:
            text = dist.read_text("direct_url.json")
            url = urlparse(json.loads(text).get("url", "")) if text else None
        except (OSError, ValueError, AttributeError):
            url = None
        if url is not None and url.scheme == "file":
            found.append(Path(unquote(url.path)))
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            found.extend(Path(p) for p in spec.submodule_search_locations)
    return found


def repository_root(path: Path) -> Path | None:
    """The checkout ``path`` lies in: the nearest folder above it (or itself) holding a
    ``.git``, else the topmost holding a ``pyproject.toml``; None for neither (an install)."""
    top = None
    for folder in [path, *path.parents]:
        if (folder / ".git").exists():
            return folder
        if (folder / "pyproject.toml").is_file():
            top = folder
    return top


def git_folders(root: Path) -> list[Path]:
    """The folders git keeps ``root``'s objects in when its ``.git`` is a file (a worktree's,
    a submodule's: ``gitdir: PATH``): that folder and its ``commondir``."""
    marker = root / ".git"
    if not marker.is_file():
        return []
    try:
        line = marker.read_text(errors="replace").strip()
    except OSError:
        return []
    if not line.startswith("gitdir:"):
        return []
    folder = (root / line.removeprefix("gitdir:").strip()).resolve()
    found = [folder]
    try:
        common = (folder / "commondir").read_text(errors="replace").strip()
        found.append((folder / common).resolve())
    except OSError:
        pass
    return found


def marked(trees: Iterable[str]) -> Iterator[Path]:
    """Every copy a walk of ``trees`` finds by its marks: a folder holding a ``.git`` (the
    checkout, and the folders a ``.git`` file names), a ``mcts_grader`` folder, an entry
    named like the grader's distribution, and every folder the walk cannot list.  No link is
    followed, no marked folder entered; a checkout's other folders are (a copy may lie in a
    checkout that holds the interpreter)."""
    unlisted: list[Path] = []

    def refused(error: OSError) -> None:
        if error.filename:
            unlisted.append(Path(error.filename))

    for tree in trees:
        for folder, dirs, files in os.walk(tree, onerror=refused):
            yield from unlisted
            unlisted.clear()
            here = Path(folder)
            if ".git" in dirs or ".git" in files:
                yield here
                yield from git_folders(here)
            if "HEAD" in files and {"objects", "refs"} <= set(dirs):  # a bare clone (38, 02)
                yield here
            for name in [*dirs, *files]:
                if name in MARKS or name.startswith(MARK_PREFIX):
                    yield here / name
            dirs[:] = [d for d in dirs if d not in MARKS and not d.startswith(MARK_PREFIX)]
        yield from unlisted
        unlisted.clear()


def grader_package() -> Path | None:
    """The folder of the grader's distribution (``mcts_grader``: reference solutions, grading
    tests) when it is installed, found without importing it (the library never imports it)."""
    try:
        spec = importlib.util.find_spec("mcts_grader")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def find(trees: Iterable[str]) -> tuple[str, ...]:
    """The copies of the repository to cover in roots showing ``trees`` whole: real paths,
    sorted, each once."""
    if grader_package() is None:
        return ()
    trees = [os.path.realpath(t) for t in trees if os.path.isdir(t)]
    found: set[Path] = set()
    for anchor in anchors():
        root = repository_root(anchor.resolve())
        if root is not None:
            found.update([root, *git_folders(root)])
        else:
            found.add(anchor.resolve())  # a wheel's install: the package folder alone
    found.update(marked(sorted(set(trees))))
    return tuple(sorted({os.path.realpath(p) for p in found if os.path.lexists(p)}))


@functools.lru_cache(maxsize=1)
def copies(trees: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`find`'s answer, or the batch's (:data:`COPIES_ENV`) when ``grade`` gave one."""
    given = paths_given(COPIES_ENV)
    return given if given is not None else find(trees)


def paths_given(name: str) -> tuple[str, ...] | None:
    """The paths ``grade`` worked out once for its runs, in the environment variable ``name``
    (a JSON list); None when it gave none."""
    given = os.environ.get(name)
    if given is None:
        return None
    paths = json.loads(given)
    if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
        return tuple(paths)
    raise ValueError(f"{name} is not a list of paths")


def for_runs(env: dict[str, str], trees: Iterable[str]) -> None:
    """Find the copies once, for every run of a batch (a walk of ``/usr`` takes a second or
    more)."""
    env[COPIES_ENV] = json.dumps(list(find(trees)))
