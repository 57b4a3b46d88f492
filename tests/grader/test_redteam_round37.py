"""Red team round 37: a hidden test's compiled copy beside it (``__pycache__``, 0644, written by
an earlier pytest run or by the grading run itself) held the test's inputs, which a submission
read back with ``marshal`` for a held-back point, without namespaces (04, 07) and in a folder
the sandbox shows (03: now refused, test_redteam_round34); an allowed library installed with
no file list (Debian's packages) was missing from the sandbox, and a correct submission that
imports it scored 0 (06)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from grading_fixtures.asking import CALL, namespaced
from grading_fixtures.batches import graded_file
from grading_fixtures.shared_folders import SOLUTIONS
from test_redteam_round31 import HIDDEN

from mcts_course.grading import confine

TWIN = "test_secret.cpython-311-pytest-9.2.0.pyc"
READER = f"""

def ucb1_choice(counts, sums, c=2 ** 0.5):
    try:
        found = open(FOLDER + "/__pycache__/{TWIN}").read()
    except OSError as error:
        found = type(error).__name__
    raise RuntimeError("READ " + found)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="a user id per submission: as root")
def test_04_07_a_hidden_test_s_compiled_copy_is_hidden_with_it(tmp_path, no_namespaces):
    folder = Path(tempfile.mkdtemp(prefix="mcts-rt37-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        test = folder / "test_secret.py"
        test.write_text(HIDDEN)
        test.chmod(0o600)
        (folder / "__pycache__").mkdir(mode=0o755)
        (folder / "__pycache__" / TWIN).write_text("SECRET-PYC-37")
        (folder / "__pycache__" / TWIN).chmod(0o644)
        code = (SOLUTIONS / "bandits.py").read_text() + f"\nFOLDER = {str(folder)!r}\n" + READER
        options = ("--tests", str(test), "--exercise-set=bandits", "-k", "test_ucb1_choice")
        data = graded_file(tmp_path, "reader", "bandits.py", code, *options)
        written = sorted(p.name for p in (folder / "__pycache__").iterdir())
    finally:
        shutil.rmtree(folder)
    said = " ".join(t["output"] for t in data["tests"])
    assert "READ" in said, said  # the probe ran, in a visible test
    assert "SECRET-PYC-37" not in said, said
    assert written == [TWIN], written  # the grading run wrote no compiled copy of its own


def test_06_a_library_without_a_file_list_is_shown_by_its_top_level_names(monkeypatch):
    numpy = confine.metadata.distribution("numpy")

    class Listless:
        metadata = numpy.metadata
        requires = numpy.requires
        files = None

        def locate_file(self, path):
            return numpy.locate_file(path)

        def read_text(self, name):
            return "numpy\n" if name == "top_level.txt" else numpy.read_text(name)

    real = confine.metadata.distributions
    monkeypatch.setattr(
        confine.metadata,
        "distributions",
        lambda: [Listless() if d.metadata["Name"] == "numpy" else d for d in real()],
    )
    confine.allowed_entries.cache_clear()
    try:
        found = confine.allowed_entries()
    finally:
        confine.allowed_entries.cache_clear()
    site = os.path.realpath(str(numpy.locate_file("")))
    assert "numpy" in found.get(site, []), found


POOL = """
def f(x):
    from joblib import Parallel, delayed
    return sum(Parallel(n_jobs=2)(delayed(abs)(-i) for i in range(4)))
"""


@namespaced
def test_02_joblib_s_default_pool_works_in_the_sandbox(started):
    """joblib, an allowed library, starts its workers with the interpreter, which did not get
    the student's process's paths: a submission using its default pool failed (02)."""
    pytest.importorskip("joblib")
    reply, _ = started(POOL).exchange(CALL, 60.0, lambda m: {}, "f")
    assert reply.get("ok") == 6, reply
