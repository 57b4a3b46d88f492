"""What of an instructor's ``--tests`` tree the Gradescope builder checks and packs.

The builder has no list of submissions to compare the tree with (``grade`` refuses a
submission inside ``--tests``: :func:`mcts_grader.batch._refuse_tests_overlap`), and a course
folder given whole may hold an unzipped export (``course/export/alice/{bandits.py,
test_mine.py}``): every file is then the instructor's, so the ownership checks pass, and the
student's ``test_mine.py`` would run as root in the builder's pre-run and ship to every
Gradescope submission as a hidden test (red team 9's attack 01).  So a tree holding what a
submission holds (an exercise file, an exercise notebook, any notebook) is refused, and of the
rest only the test files pytest collects and the helper modules they import are copied, checked
and packed: data files, ``conftest.py`` (the grading plugin loads none) and stray modules stay
behind.
"""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

from mcts_course.errors import UsageError
from mcts_course.grading.report import one_line
from mcts_course.grading.sets import SETS


def submission_like(path: Path) -> bool:
    """Whether a file is one a student hands in: an exercise file (``bandits.py``...), an
    exercise chapter (``17_tictactoe_exercises.md`` or ``.py``) or a notebook."""
    exercise_files = {f"{s.name}.py" for s in SETS.values()}
    chapters = {s.notebook for s in SETS.values()}
    return path.name in exercise_files or path.stem in chapters or path.suffix == ".ipynb"


def _files(tests: Path) -> list[Path]:
    if tests.is_dir():
        return sorted(p for p in tests.rglob("*") if "__pycache__" not in p.parts)
    return [tests]


def refuse_submissions(tests: Path) -> None:
    """UsageError naming the files of ``tests`` (a file or a folder) that a submission holds:
    hidden tests are the instructor's code, run unconfined before any grading."""
    found = [p for p in _files(tests) if p.is_file() and submission_like(p)]
    if found:
        shown = ", ".join(one_line(str(p)) for p in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise UsageError(
            f"--tests {one_line(str(tests))} holds what a submission holds ({shown}{more}): "
            "hidden tests run unconfined before anything is graded; give a folder holding "
            "your test files only (and the helper modules they import)"
        )


def is_test_file(path: Path) -> bool:
    """A file pytest collects by its default names."""
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith("_test"))


def _read_tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes())  # bytes: a BOM or a coding cookie as Python reads
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None  # the check reports a file that does not import


def _roots(path: Path, top: Path) -> list[Path]:
    """The folders an import in ``path`` is looked up from, as pytest's default import mode
    puts them on ``sys.path``: the first folder above the file that is no package, and ``top``."""
    folder = path.parent
    while folder != top and (folder / "__init__.py").exists():
        folder = folder.parent
    return [folder, top]


def _module(root: Path, dotted: list[str]) -> list[Path]:
    """The files of module ``dotted`` under ``root`` (its packages' ``__init__.py`` too), or
    none when it is not there."""
    found: list[Path] = []
    folder = root
    for i, part in enumerate(dotted):
        package = folder / part / "__init__.py"
        module = folder / f"{part}.py"
        if package.is_file():
            found.append(package)
            folder = folder / part
        elif module.is_file() and i == len(dotted) - 1:
            return [*found, module]
        else:
            return found if i else []
    return found


def _imported(path: Path, top: Path) -> list[Path]:
    """The files of ``top`` that ``path`` imports (absolute and relative imports; a name
    ``from m import x`` may be a submodule)."""
    tree = _read_tree(path)
    if tree is None:
        return []
    found: list[Path] = []
    for node in ast.walk(tree):
        names: list[list[str]] = []
        roots = _roots(path, top)
        if isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = (node.module or "").split(".") if node.module else []
            if node.level:  # relative: from the file's own package, up level - 1
                start = path.parent
                for _ in range(node.level - 1):
                    start = start.parent
                if start != top and top not in start.parents:
                    continue
                roots = [start]
            names = [[*base, alias.name] for alias in node.names] + ([base] if base else [])
        for root in roots:
            for dotted in names:
                found += _module(root, dotted)
    return found


def selected(tests: Path) -> list[Path]:
    """The files of ``tests`` to check and pack: its test files, the helper modules they
    import (and those import), and the ``__init__.py`` of the packages they lie in."""
    if not tests.is_dir():
        return [tests]
    chosen = [p for p in _files(tests) if p.is_file() and is_test_file(p)]
    todo = list(chosen)
    seen = set(chosen)
    while todo:
        path = todo.pop()
        more = list(_imported(path, tests))
        folder = path.parent
        while (folder / "__init__.py").is_file():  # its packages, up to the tree's own
            more.append(folder / "__init__.py")
            if folder == tests:
                break
            folder = folder.parent
        for found in more:
            if found not in seen and found.suffix == ".py":
                seen.add(found)
                todo.append(found)
    return sorted(seen)


def packed_copy(tests: Path, folder: Path) -> tuple[Path, list[Path]]:
    """``tests`` (refused if it holds a submission's files) copied into ``folder`` (made here,
    the caller's own), its selected files only: ``(the copy, the files left behind)``."""
    if not tests.exists():
        raise UsageError(f"--tests {one_line(str(tests))}: no such file or folder")
    refuse_submissions(tests)
    folder.mkdir(mode=0o700)
    place = folder / "0"
    place.mkdir(mode=0o700)
    copy = place / Path(os.path.abspath(tests)).name
    files = selected(tests)
    if not tests.is_dir():
        shutil.copyfile(tests, copy)
        return copy, []
    copy.mkdir(mode=0o700)
    for path in files:
        target = copy / path.relative_to(tests)
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    left = [p for p in _files(tests) if p.is_file() and p not in set(files)]
    return copy, left
