"""The pytest plugin that grades a submission, enabled by installing the package (it is
registered through the ``pytest11`` entry point)::

    python -m pytest -c /dev/null --pyargs mcts_course.grading --submission=exercises/
    python -m pytest -c /dev/null hidden/ --submission=alice/ --results-json=out/alice/results.json

(``-c /dev/null``, or a folder with no configuration file above it: a run with
``--submission`` that read one is refused, see :func:`_refuse_configuration`.)

It provides:

* ``--submission=PATH`` (with ``=``: pytest reads a separate PATH as a path of tests when it
  chooses its rootdir, and the run is refused): the student's files (a folder, a ``.py``
  file or a notebook); no path of it may be collected (the run stops: pytest would import
  it, in this process);
  ``--exercise-set SET`` and ``--exercise NAME`` keep the tests of a set or of an exercise,
  ``--timeout-scale X`` multiplies every time limit, ``--memory-mb MB`` caps the student's
  process, ``--results-json FILE`` and ``--grades-csv FILE`` write Gradescope's results.json
  and a one-row grades.csv; ``--phase visible`` or ``--phase held-back`` grades only those
  tests (``mcts-course grade`` runs both, every visible run of a batch first, and merges them),
  and the results.json then says how many held-back tests there are
  (``extra_data.held_back_tests``), written even when the run graded none;
* the ``points(value, exercise=..., hint=..., timeout=..., visibility=...)`` marker: what a
  test is worth, the hint shown when it fails, the student's time it allows (seconds of the
  student's code only: the test's own work is free; CPU seconds of all its processes wherever
  it runs in namespaces, with a wall-clock backstop, see :mod:`mcts_course.grading.clock`)
  and its Gradescope visibility (tests
  outside this package, an instructor's hidden tests, default to ``after_due_date``);
* the ``student`` fixture: the submission's names, ``student.select_child(root, 1.4)`` asking
  the student's process (:mod:`mcts_course.grading.remote`); one process per exercise set,
  started at its first test and again after it died;
* the ``submission_seed`` fixture: a seed from the hash of the code graded (the alpha-beta
  tests draw their positions from it: reproducible, and unknown to a table of answers);
* fail closed: when the student's code cannot be confined (as root: a user id of its own,
  :mod:`mcts_course.grading.sandbox`), the run stops at once with exit status
  :data:`REFUSED` and the reason, and grades nothing;
* the verdict of each graded test: a failure reads as the curated message with its hint (no
  traceback of the grader), a test needing a function that timed out or crashed above is
  skipped as "not run" at once, and the points table closes the terminal summary.

Nothing here runs unless a test carries the ``points`` marker: the plugin is loaded by every
pytest run of the environment, the project's own tests included.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from mcts_course.grading.invocation import (
    PACKAGE,
    contract,
    grader_packages,
    reference_test_packages,
    test_folders,
)
from mcts_course.grading.report import (
    HELD_BACK_TESTS,
    HELPER_FILES,
    Outcome,
    atomic_write,
    grades_csv,
    helper_names,
    helpers_note,
    json_text,
    one_line,
    points_table,
    printable,
    results_json,
    run_notes,
)
from mcts_course.grading.sandbox import MEMORY_MB
from mcts_course.grading.sets import SET_OF, SETS

if TYPE_CHECKING:  # imported when a test needs it: the plugin loads in every pytest run
    from mcts_course.grading.runner import SetRun

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def shipped_folders() -> tuple[Path, ...]:
    """The course's own grading tests: the public checks shipped here, and the test packages
    another distribution (the grader's tests that need the reference) declares by entry point
    (:func:`~mcts_course.grading.invocation.test_folders`)."""
    return test_folders(reference=True)


SHIPPED = shipped_folders()


def is_shipped(path: Path) -> bool:
    return any(path.is_relative_to(folder) for folder in SHIPPED)


# What a grading run collects of its own (never a submission's, wherever it is installed): the
# course's tests, and this package (``--pyargs mcts_course.grading`` collects its folder).
TRUSTED = (*SHIPPED, Path(__file__).resolve().parent)
OWN_PACKAGES = (PACKAGE, *reference_test_packages())


HIDDEN_VISIBILITY = "after_due_date"  # an instructor's tests: seen after the due date only
OUTPUT_CAP = 20_000  # characters of one test's feedback (a message may quote student data)
# ``--phase``: a batch grades each submission in two runs, every visible phase of the batch
# before any held-back one (mcts_grader.batch)
PHASES = ("visible", "held-back")
REFUSED = 75  # the exit status of a run that refused to grade (student code not confinable)
# The instructor's hidden tests as given to ``grade`` (the runs grade with a copy): hidden from
# the student's process as well (red team 31, 09), set by mcts_grader.batch
ORIGINALS_ENV = "MCTS_ORIGINAL_TESTS"
SCALE_ENV = "MCTS_TIMEOUT_SCALE"  # the default of --timeout-scale
PUBLIC_ENV = "MCTS_GRADING_PUBLIC"  # a batch's public copy of the package, made once by grade()
# the pid of the ``grade`` that started this run: a run whose grade is gone stops (red team 55)
GRADER_PID_ENV = "MCTS_GRADER_PID"
# seconds a run has after SIGTERM to close its sandboxes, before SIGKILL: sent by grade, or
# by the run itself once its grade is gone
STOP_GRACE = 10.0


def capped(text: str) -> str:
    """``text`` cut to :data:`OUTPUT_CAP` characters, saying how much was cut, and printable:
    a message may quote what the student's code printed, which is no one's terminal control."""
    text = printable(text)
    if len(text) <= OUTPUT_CAP:
        return text
    return text[:OUTPUT_CAP] + f"\n... ({len(text) - OUTPUT_CAP} characters cut)"


@dataclass(frozen=True)
class Points:
    """A graded test's ``points`` marker, checked."""

    value: float
    exercise: str
    set_name: str
    name: str
    hint: str = ""
    timeout: float = 3.0
    visibility: str = "visible"


def read_marker(item: pytest.Item, scale: float = 1.0) -> Points | str:
    """The item's ``points`` marker as Points, or the reason it is unusable (a message)."""
    mark = item.get_closest_marker("points")
    assert mark is not None
    shipped = is_shipped(Path(str(item.path)).resolve())
    doc = (getattr(getattr(item, "function", None), "__doc__", None) or "").strip().splitlines()
    name = doc[0] if doc else getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)  # a parametrized test's (pytest.Function)
    if callspec is not None:
        name += f" [{callspec.id}]"

    def build(
        value: float,
        exercise: str | None = None,
        *,
        hint: str = "",
        timeout: float = 3.0,
        visibility: str | None = None,
        exercise_set: str | None = None,
    ) -> Points:
        if exercise is None:
            raise TypeError("exercise= is required")
        set_name = exercise_set or SET_OF.get(exercise)
        if set_name not in SETS:
            raise ValueError(
                f"exercise {exercise!r} is not one of the course's: give exercise_set= one "
                f"of {', '.join(SETS)}"
            )
        visibility = visibility or ("visible" if shipped else HIDDEN_VISIBILITY)
        if visibility not in VISIBILITIES:
            raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}")
        return Points(float(value), exercise, set_name, name, hint, timeout * scale, visibility)

    try:
        return build(*mark.args, **mark.kwargs)
    except (TypeError, ValueError) as error:
        return f"bad @pytest.mark.points(...) on {item.name}: {error}"


POINTS = pytest.StashKey[Any]()  # item -> Points, or the marker's error
TURN = pytest.StashKey[tuple[Any, ...]]()  # item -> (SetRun, Connection or None) of its test
SETUP_SECONDS = pytest.StashKey[float]()
GRADING = pytest.StashKey["Grading"]()
# Set by a notebook's check(): set name -> a SetRun on the notebook's own functions.
IN_PROCESS = pytest.StashKey[Callable[[str], Any]]()
UNCONFINED_BEFORE = pytest.StashKey[str | None]()  # the variable before --unconfined set it


class Grading:
    """One pytest run grading one submission: its exercise sets and the graded tests' outcomes."""

    def __init__(self, config: pytest.Config):
        self.config = config
        option = config.getoption
        self.submission: str | None = option("submission")
        self.scale: float = option("timeout_scale")
        # a phase of grade's (PHASES): only the visible tests, or only the held-back ones
        self.phase: str | None = option("phase")
        self.held_back = 0  # held-back tests collected, for a phase's results.json
        self.graded_sets: set[str] = set()  # the sets selected, before grade's phases split
        self.outcomes: dict[str, Outcome] = {}  # node id -> outcome, in the order run
        self.runs: dict[str, SetRun] = {}  # set name -> SetRun
        self.cpu: dict[str, float] = {}  # set name -> its tests' time limits, summed
        self.last: dict[str, str] = {}  # node id of a set's last test -> the set
        self.boundary: dict[str, str] = {}  # node id of a set's last visible test -> the set
        self.started = time.monotonic()
        # seconds until the first held-back test: results.json's execution_time stops there,
        # or the run's length would tell how long the held-back tests' process took (a
        # sleep per bit of its inputs costs no CPU; red team 13, 05)
        self.visible_seconds: float | None = None
        self._tmp: Path | None = None  # this run's own public copy's folder (leftovers.make)
        self._sources: dict[Any, Any] | None = None
        self._public: Path | None = None
        self.refused: str = ""  # why grading was refused (SandboxError), if it was
        self.cut: list[str] = []  # the copy limits that left files of the submission out
        self.digest: list[str] = []  # the fingerprint of the copy graded (snapshot.digest)
        # what the sweeps removed before the first held-back test (sweep.Counts): all the
        # student is told of them; the held-back tests' process leaves what it likes
        self.swept_visible: Any = None
        from mcts_course.grading import phases

        # a batch's held-back phases, one at a time (grading.phases; none when run alone)
        self.phases = phases.Phases(None)
        if self.submission is not None:
            self.phases = phases.from_environment()

    @property
    def in_process(self) -> Callable[[str], Any] | None:
        return self.config.stash.get(IN_PROCESS, None)

    @property
    def active(self) -> bool:
        return self.submission is not None or self.in_process is not None

    def sources(self) -> dict[Any, Any]:
        if self._sources is None:
            # read once, into a private copy, before any student code runs (a folder its
            # owner swaps for a link later changes nothing: see grading.snapshot)
            from mcts_course.grading.snapshot import submission_sources

            self._sources = (
                submission_sources(self.submission, self.cut, self.digest)
                if self.submission
                else {}
            )
        return self._sources

    def run_for(self, set_name: str) -> SetRun:
        """The set's SetRun, made at its first test."""
        if set_name not in self.runs:
            if self.in_process is not None:
                self.runs[set_name] = self.in_process(set_name)
            else:
                self.runs[set_name] = self._process_run(set_name)
        return self.runs[set_name]

    def public_root(self) -> Path:
        """The copy of the package (without solutions and tests) the student's process
        imports: the batch's (``$MCTS_GRADING_PUBLIC``, made by ``grade``) or one of this run's
        own, in the system's temporary folder (the student's user must reach it)."""
        if self._public is None:
            from mcts_course.grading import leftovers
            from mcts_course.grading.sandbox import SandboxError, public_package

            given = os.environ.get(PUBLIC_ENV)
            if given:
                info = os.lstat(given)
                if (
                    not stat.S_ISDIR(info.st_mode)
                    or info.st_uid != os.geteuid()
                    or (info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
                ):
                    raise SandboxError(f"{PUBLIC_ENV}={given}: not a folder of the grader's alone")
                try:  # held while this run uses it: a sweep leaves it, even if the batch is killed
                    leftovers.hold(given)
                except OSError as error:
                    raise SandboxError(f"{PUBLIC_ENV}={given}: {error.strerror}") from None
                self._public = Path(given)
            else:
                # root's alone from its mkdir (public_package closes it at the end anyway; open
                # a moment, a stranger could take its lock and keep it after a SIGKILL, red
                # team 14, 05); held: swept if this run is killed
                self._tmp = leftovers.make("mcts-grade-", mode=0o700)
                self._public = public_package(self._tmp)
        return self._public

    def _process_run(self, set_name: str) -> SetRun:
        from mcts_course.grading.runner import process_run

        run = process_run(
            self.sources().get(set_name),
            set_name,
            self.public_root(),
            self.config.getoption("memory_mb"),
            int(self.cpu.get(set_name, 0) + 60),
        )
        if self.cut and set_name not in self.sources():  # the file may lie beyond a limit
            run.why += "\nNote: " + "; ".join(self.cut)
        return run

    def close(self) -> None:
        for run in self.runs.values():
            run.close()
        self.phases.close()
        if self._tmp is not None:
            from mcts_course.grading import leftovers

            leftovers.remove(self._tmp)
            self._tmp = None

    def results(self) -> dict[Any, Any]:
        if self.refused:  # no grade at all: the caller (grade) raises SandboxError with this
            return {"refused": self.refused, "tests": [], "score": 0}
        seconds = self.visible_seconds
        data = results_json(
            list(self.outcomes.values()),
            time.monotonic() - self.started if seconds is None else seconds,
        )
        files = {s: str(src.origin or src.path) for s, src in self.sources().items()}
        from mcts_course.grading import sweep
        from mcts_course.grading.runner import helper_files
        from mcts_course.grading.sandbox import confinement
        from mcts_course.grading.sources import choice_notes

        told = self.swept_visible or sweep.counts()
        data["extra_data"] = {"files": files, "confinement": confinement(told)}
        if told.runs:  # how many entries the sweeps removed in each folder (the names, which
            # the held-back tests' process could choose, are in pytest.log, the instructor's)
            data["extra_data"]["swept"] = told.by_folder
        if sweep.RUNS[0]:  # all the sweeps, held-back tests' included: the batch's status
            if sweep.incomplete():  # not "graded": the batch exits 1 (mcts_grader.batch)
                data["extra_data"]["sweep_incomplete"] = sweep.summary()
        choices = {one_line(n) for s in self.sources().values() for n in choice_notes(s)}
        # code beside the exercise files, for the instructor to read too: named from the
        # folder the sandbox copies, whatever the process says it imported (red team 48, 05)
        found = self.sources()
        exercises = [found[n].path for n in self.graded_sets | set(self.runs) if n in found]
        helpers = helper_names(h for n in self.runs for h in helper_files(found.get(n), exercises))
        if helpers:  # the names, for grade's merge of its two phases (report.merge_results)
            data["extra_data"][HELPER_FILES] = helpers
        if any(getattr(run, "killed_outside", lambda: False)() for run in self.runs.values()):
            # not a crash of the student's code: the batch's status is "killed" (exit 1)
            data["extra_data"]["killed_outside"] = True
        from mcts_course.grading.clock import UNDER_LOAD

        stopped = [o.name for o in self.outcomes.values() if o.status == UNDER_LOAD]
        stopped += [
            f"loading the {name} file"
            for name, run in self.runs.items()
            if getattr(run, "load_under_load", False)
        ]
        if stopped:  # the backstop fired: not a grade (the batch's status says so, exit 1)
            data["extra_data"]["under_load"] = stopped
        if self.cut:  # a grade on part of the submission: the batch's status says so too
            data["extra_data"]["copy_cut"] = list(self.cut)
        if self.digest:  # the batch's two phases must have graded the same files
            data["extra_data"]["copy_digest"] = self.digest[0]
        refused = sorted({one_line(s.refused) for s in self.sources().values() if s.refused})
        if refused:  # a link, a second name, another owner's file: maybe not the student's doing
            data["extra_data"]["refused_files"] = refused
        if self.phase is not None:  # how many held-back tests there are (a phase of grade's)
            data["extra_data"][HELD_BACK_TESTS] = self.held_back
        notes = run_notes(
            choices,
            helpers_note(helpers),
            any(run.killed_outside(visible_only=True) for run in self.runs.values()),
            len(stopped),
            self.cut,
        )
        if notes:  # the instructor's results.json and the student's output both say it
            data["extra_data"]["notes"] = notes
            data["output"] += "".join(f"\nNote: {note}" for note in notes)
        return data


# -- options and marker ----------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcts-course", "grading a submission (mcts_course.grading)")
    group.addoption(
        "--submission",
        metavar="PATH",
        help="the student's files to grade: a folder, a .py file or a notebook",
    )
    group.addoption(
        "--exercise-set",
        action="append",
        metavar="SET",
        help=f"only the tests of this exercise set ({', '.join(SETS)}); may be repeated",
    )
    group.addoption(
        "--exercise",
        action="append",
        metavar="NAME",
        help="only the tests of this exercise (e.g. ttt_backprop); may be repeated",
    )
    group.addoption(
        "--timeout-scale",
        type=float,
        default=None,
        metavar="X",
        help=f"multiply every test's time limit by X (a slow machine; default ${SCALE_ENV} or 1)",
    )
    group.addoption(
        "--memory-mb",
        type=int,
        default=MEMORY_MB,
        metavar="MB",
        help=f"memory cap of the process running the student's code (default {MEMORY_MB})",
    )
    group.addoption(
        "--unconfined",
        action="store_true",
        help="where this account can confine nothing (not root, no user namespaces): run the "
        "student's code as your own user, unconfined (it can read and change whatever you can)",
    )
    group.addoption(
        "--phase",
        choices=PHASES,
        default=None,
        help="grade only the visible tests, or only the held-back ones (mcts-course grade runs "
        "every submission's visible phase before any submission's held-back phase); the "
        "results.json says how many held-back tests there are",
    )
    group.addoption("--results-json", metavar="FILE", help="write Gradescope's results.json")
    group.addoption("--grades-csv", metavar="FILE", help="write this submission's grades.csv")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """A run that grades a submission loads no conftest.py, wherever pytest would find one: the
    current folder's and every folder's above it (a stranger's ``/tmp/conftest.py`` above a run
    in ``/tmp``), a submission's, or one beside the hidden tests.  Runs before pytest loads the
    first one; pytest's own ``--noconftest`` does the rest."""
    submission = getattr(early_config.known_args_namespace, "submission", None)
    if submission is not None:
        early_config.known_args_namespace.noconftest = True
        _refuse_configuration(early_config, submission)


def _refuse_configuration(config: pytest.Config, submission: str) -> None:
    """Refuse a run that grades ``submission`` if pytest read a configuration file (it did so
    before any plugin, and may have loaded the plugins its ``addopts`` name: only the user can
    prevent that, by never starting pytest where a stranger wrote one) or if its rootdir is the
    submission's folder or lies in it.  The course's own front ends pass ``-c /dev/null``."""
    folder = Path(submission).resolve()
    inipath = config.inipath
    if inipath is not None and str(inipath) != os.devnull:
        if Path(inipath).resolve().is_relative_to(folder):  # through a loose PATH argument
            raise pytest.UsageError(
                f"{inipath} belongs to the submission: write --submission={submission}"
            )
        raise pytest.UsageError(
            f"pytest read {inipath}; run from a folder of your own or pass -c /dev/null"
        )
    if folder.is_dir() and config.rootpath.resolve().is_relative_to(folder):
        if "--submission" in config.invocation_params.args:
            # pytest chose its rootdir before any plugin's option was known: it took the
            # separate PATH for a test path
            raise pytest.UsageError(
                f"write --submission={submission} (with '='): pytest takes a separate PATH for "
                "a path of tests when it chooses its rootdir, before it knows this option"
            )
        raise pytest.UsageError(
            f"pytest's rootdir {config.rootpath} is in the submission {submission}: run from a "
            "folder of your own (pytest reads a folder's configuration before any plugin)"
        )


SUBMISSION_PATHS = pytest.StashKey[tuple[Path, ...]]()


def _submission_paths(config: pytest.Config) -> tuple[Path, ...]:
    """The submission as given (absolute) and with its links resolved: a path pytest collects
    through either lies in it.  A one-file submission (a ``.py`` or ``.ipynb``) counts as its
    whole folder: the files beside it are the student's too (a ``test_*.py``, an
    ``__init__.py``), and pytest would import them in this process."""
    if SUBMISSION_PATHS not in config.stash:
        submission = config.getoption("submission", None)
        given = config.invocation_params.dir / submission if submission is not None else None
        paths: tuple[Path, ...] = ()
        if given is not None:
            paths = (Path(os.path.abspath(given)), given.resolve())
            if not given.is_dir():
                paths = tuple(p.parent for p in paths)
        config.stash[SUBMISSION_PATHS] = paths
    return config.stash[SUBMISSION_PATHS]


def _in_submission(config: pytest.Config, path: Path) -> bool:
    """Whether ``path`` (a path pytest collects, as given or through its links) is the
    submission or lies in it.  The course's own tests and this package are not, even in a
    submission that holds this package's checkout (an editable install: they are the code
    already running)."""
    submission = _submission_paths(config)
    if not submission:
        return False
    seen = (Path(os.path.abspath(path)), path.resolve())
    if all(any(p.is_relative_to(t) for t in TRUSTED) for p in seen):
        return False
    return any(p.is_relative_to(s) for p in seen for s in submission)


def _collecting_the_submission(path: Path, config: pytest.Config) -> str:
    return (
        f"refused: {path} is the submission or lies in it (--submission="
        f"{config.getoption('submission')}; a one-file submission's folder counts as the "
        "submission): pytest would import its files (its __init__.py, "
        "its test files) in this process, unconfined. Name only the tests on the command line: "
        "the plugin runs the submission's code in its sandbox"
    )


def _refuse_collected_args(config: pytest.Config) -> None:
    """Stop a grading run before any collection if a path it would collect (a positional
    argument, or the current folder when there is none) is the submission, lies in it or holds
    it; for ``--pyargs``, a package found in it.  pytest imports what it collects, in this
    process: the submission's files would run as the grader's user, unconfined."""
    submission = _submission_paths(config)
    if not submission:
        return
    for arg in config.args:
        name = arg.split("::")[0]
        path = config.invocation_params.dir / name
        if config.option.pyargs and not path.exists():
            import importlib.util

            if any(name == n or name.startswith(n + ".") for n in OWN_PACKAGES):
                continue  # the course's own tests: the collection hooks watch their folders
            top = name.split(".")[0]
            try:  # a top-level name is only located, never imported
                spec = importlib.util.find_spec(top) if top.isidentifier() else None
            except (ImportError, ValueError):
                spec = None
            places = [*(spec.submodule_search_locations or ()), spec.origin] if spec else []
            if any(p and _in_submission(config, Path(p)) for p in places):
                raise pytest.UsageError(_collecting_the_submission(Path(name), config))
            continue
        holds = any(s.is_relative_to(p) for s in submission for p in (path, path.resolve()))
        if _in_submission(config, path) or (holds and path.is_dir()):
            raise pytest.UsageError(_collecting_the_submission(path, config))


def _refuse_shown_tests(config: pytest.Config) -> None:
    """Stop a grading run whose instructor's tests (a positional path, or an original the batch
    graded a copy of) lie in a folder every namespace sandbox shows whole (the interpreter's):
    the test given is covered there, but not its neighbours, next week's tests and the data
    they load (red teams 35, 04 and 37, 03)."""
    from mcts_course.grading import confine, sandbox

    if sandbox.confinement_mode() not in ("namespaces", "userns"):
        return
    originals = [o for o in os.environ.get(ORIGINALS_ENV, "").split(os.pathsep) if o]
    given = [config.invocation_params.dir / a.split("::")[0] for a in config.args] + [
        Path(o) for o in originals
    ]
    trees, sites = confine.whole_trees(), confine.site_folders()
    for path in given:
        if not path.exists() or is_shipped(path.resolve()):
            continue
        real = os.path.realpath(path)
        if any(confine._within(real, t) for t in trees) and not any(
            confine._within(real, s) for s in sites
        ):
            raise pytest.UsageError(
                "tests in a folder every student's sandbox shows, whose other files students' "
                f"code would read: move them elsewhere ({path} in {_shown_folder(real, trees)})"
            )


def _shown_folder(path: str, trees: tuple[str, ...]) -> str:
    from mcts_course.grading.confine import _within

    return max((t for t in trees if _within(path, t)), key=len)


def _stop_collecting(path: Path, config: pytest.Config) -> None:
    """The second line of :func:`_refuse_collected_args`: a path pytest reaches while it
    collects (an entry of a folder it walks, a file, a module) that lies in the submission
    stops the run, before the module is imported.  (The folders above a path given to pytest
    are collected too, as plain folders never imported: see pytest_collect_directory.)"""
    if _in_submission(config, path):
        pytest.exit(
            _collecting_the_submission(path, config), returncode=pytest.ExitCode.USAGE_ERROR
        )


def _on_the_way(path: Path, config: pytest.Config) -> bool:
    """Whether pytest reaches ``path`` to collect it: a path given to pytest lies in it, is it,
    or holds it.  (pytest lists every entry of each folder above a path given to it, and
    collects only those on the way down.)"""
    seen = (Path(os.path.abspath(path)), path.resolve())
    for arg in config.args:
        given = config.invocation_params.dir / arg.split("::")[0]
        if not given.exists():
            continue
        for g in (Path(os.path.abspath(given)), given.resolve()):
            if any(g.is_relative_to(p) or p.is_relative_to(g) for p in seen):
                return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not _in_submission(config, collection_path):
        return None
    if _on_the_way(collection_path, config):
        _stop_collecting(collection_path, config)
    return True  # an entry listed beside the way down (an editable checkout's): never collected


@pytest.hookimpl(tryfirst=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> None:
    _stop_collecting(file_path, parent.config)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> None:
    _stop_collecting(module_path, parent.config)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """In a run that grades a submission, a folder outside the run's own (its rootdir: the
    grader's folder, which holds the copy of the hidden tests) is collected as a plain folder,
    never as a package whose ``__init__.py`` pytest imports to set it up: pytest collects every
    folder above a test, and a stranger may have put an ``__init__.py`` in one of them (``/tmp``
    above the grader's folder).  The tests' own modules still import as their packages do."""
    config = parent.config
    if config.getoption("submission", None) is None or not (path / "__init__.py").is_file():
        return None
    if path.resolve().is_relative_to(config.rootpath.resolve()):
        return None
    return pytest.Dir.from_parent(parent, path=path)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "points(value, exercise=..., hint='', timeout=3, visibility=..., exercise_set=None): "
        "a grading test worth `value` points for `exercise` (mcts_course.grading)",
    )
    submission = config.getoption("submission")
    if submission is not None and not Path(submission).exists():
        raise pytest.UsageError(f"--submission={submission}: no such file or folder")
    _refuse_collected_args(config)
    if submission is not None:
        _refuse_shown_tests(config)
        # no compiled copy of a hidden test beside it, written while this run collects it
        sys.dont_write_bytecode = True
        try:  # a grader older than its tests would blame every student for its missing loop
            contract("mcts_search")
        except RuntimeError as error:
            raise pytest.UsageError(str(error)) from None
    if config.getoption("timeout_scale") is None:  # a notebook's check() has no option
        config.option.timeout_scale = _scale_from_environment()
    from mcts_course.grading.sandbox import limits_problem

    problem = limits_problem(config.getoption("timeout_scale"), config.getoption("memory_mb"))
    if problem is not None:
        raise pytest.UsageError(problem)
    if config.getoption("unconfined"):
        from mcts_course.grading.sandbox import UNCONFINED_ENV

        config.stash[UNCONFINED_BEFORE] = os.environ.get(UNCONFINED_ENV)
        os.environ[UNCONFINED_ENV] = "1"  # read by this run's sandboxes, until its end
    config.stash[GRADING] = Grading(config)
    if submission is not None and threading.current_thread() is threading.main_thread():
        # The batch grader stops a run with SIGTERM (a refusal elsewhere, its time cap): leave
        # as after Ctrl-C, so that the sessions' end closes the sandboxes (kills their
        # processes) instead of dying with them still running.
        signal.signal(signal.SIGTERM, _interrupted)
        grader = os.environ.get(GRADER_PID_ENV, "")
        if grader.isdigit():
            threading.Thread(target=_stop_without, args=(int(grader),), daemon=True).start()


def _scale_from_environment() -> float:
    """``$MCTS_TIMEOUT_SCALE`` (a slow or busy machine: a notebook's ``check()`` cells take no
    option), else 1."""
    text = os.environ.get(SCALE_ENV, "").strip()
    try:
        return float(text) if text else 1.0
    except ValueError:
        raise pytest.UsageError(f"{SCALE_ENV}={text!r}: expected a number") from None


def pytest_unconfigure(config: pytest.Config) -> None:
    if UNCONFINED_BEFORE in config.stash:  # --unconfined holds for this run only
        from mcts_course.grading.sandbox import UNCONFINED_ENV

        before = config.stash[UNCONFINED_BEFORE]
        if before is None:
            os.environ.pop(UNCONFINED_ENV, None)
        else:
            os.environ[UNCONFINED_ENV] = before


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _stop_without(grader: int) -> None:
    """Stop this run once the ``grade`` that started it is gone (its parent changed): a grader
    killed with SIGKILL (``kill -9``, a scheduler's hard limit) runs no handler, and its runs
    went on starting sandboxes for the students' code, unsupervised, with nowhere to write their
    results, and held the account's phase lock, so that its next batch waited for them without
    a word (red team 55, 08).  As ``grade`` stops a run: SIGTERM (the sessions' end closes the
    sandboxes), then SIGKILL after a grace."""
    while os.getppid() == grader:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(STOP_GRACE)
    os.kill(os.getpid(), signal.SIGKILL)


def pytest_report_header(config: pytest.Config) -> list[str]:
    grading = config.stash[GRADING]
    if grading.submission is None:
        return []
    found = ", ".join(
        f"{s}: {src.origin or src.path}"
        + (f" ({src.beside} beside it not graded)" * bool(src.beside))
        for s, src in grading.sources().items()
    )
    from mcts_course.grading.sandbox import confinement

    return [
        f"submission: {grading.submission} ({found or 'no exercise file found'})",
        f"confinement: {confinement()}",
    ]


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    grading = config.stash[GRADING]
    graded = [item for item in items if item.get_closest_marker("points") is not None]
    if not graded:
        return
    for item in graded:
        item.stash[POINTS] = read_marker(item, grading.scale)
    exercises, sets = config.getoption("exercise"), config.getoption("exercise_set")
    known = {p.exercise for p in (i.stash[POINTS] for i in graded) if isinstance(p, Points)}
    unknown = sorted(set(exercises or ()) - known)
    if unknown:  # a typo would otherwise deselect every test and grade nothing, quietly
        raise pytest.UsageError(
            f"unknown exercise {', '.join(unknown)}; "
            f"the tests here grade: {', '.join(sorted(known))}"
        )
    if exercises or sets:
        keep = [i for i in items if not _is_graded(i) or _wanted(i, exercises, sets)]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    # the sets this grading grades, in both of grade's phases (a file graded as its exercise
    # is no helper file, whichever phase runs its tests)
    grading.graded_sets = {s for s in map(_set_of, items) if s is not None}
    needing = [i for i in items if "student" in getattr(i, "fixturenames", ())]
    if needing and not grading.active and not config.option.collectonly:
        raise pytest.UsageError(
            "the grading tests need a submission: python -m pytest --pyargs "
            "mcts_course.grading --submission=PATH (a folder such as exercises/, a .py file or "
            "a notebook)"
        )
    collected = list(items)  # the other phase's tests' files are hidden all the same
    if grading.phase is not None:
        # a phase of grade's: its own tests only (the tests without points go with the visible)
        held = [i for i in items if _held_back(i)]
        grading.held_back = len(held)
        keep = held if grading.phase == "held-back" else [i for i in items if not _held_back(i)]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    items[:] = held_back_last(items)
    last: dict[str, str] = {}  # set -> the node id of its last test
    for item in items:
        points = item.stash.get(POINTS, None)
        if isinstance(points, Points):
            grading.cpu[points.set_name] = grading.cpu.get(points.set_name, 0) + points.timeout
            last[points.set_name] = item.nodeid
    grading.last = {nodeid: set_name for set_name, nodeid in last.items()}
    # a set's process goes after its last visible test when held-back tests follow: those
    # start a fresh one, which has seen no visible test
    visible: dict[str, str] = {}
    later = set()
    for item in items:
        set_name = _set_of(item)
        if set_name is not None and not _held_back(item):
            visible[set_name] = item.nodeid
        elif set_name is not None:
            later.add(set_name)
    grading.boundary = {nodeid: s for s, nodeid in visible.items() if s in later}
    if grading.submission is not None:
        from mcts_course.grading import process, sandbox

        # The instructor's test files are hidden from the student's process like the package's
        # own tests (a mount over them, as root): no permission of theirs is changed.
        # The folders given on the command line go too (a hidden test's helpers and data), but
        # not one holding this package or the interpreter (`pytest . --submission ...`).
        hidden = {str(i.path) for i in collected if not is_shipped(Path(str(i.path)))}
        originals = [o for o in os.environ.get(ORIGINALS_ENV, "").split(os.pathsep) if o]
        for arg in [*config.args, *originals]:
            path = Path(arg.split("::")[0]).resolve()
            needed = (
                *(f.parent for f in SHIPPED),
                Path(sys.prefix).resolve(),
                Path(sys.base_prefix).resolve(),
            )
            if path.exists() and not any(n.is_relative_to(path) for n in needed):
                hidden.add(str(path))
        # and their compiled copies beside them (an earlier run's pytest left them 0644, the
        # constants of a hidden test's inputs in them: red team 37, 04 and 07)
        files = [Path(h) for h in hidden if h.endswith(".py")]
        hidden.update(str(twin) for twin in sandbox.compiled_twins(files))
        # The grader's package (reference solutions, its tests) goes whole: a checkout's copy
        # is readable by every user, and the student's code may know its path.
        hidden.update(str(folder) for folder in grader_packages())
        process.EXTRA_PRIVATE[:] = sorted(hidden)


def _held_back(item: pytest.Item) -> bool:
    return stage(item) > 0


def stage(item: pytest.Item) -> int:
    """0 for a visible test, 1 for a test shown later (after_due_date, after_published), 2 for
    a hidden one: the order the tests run in, and each stage has processes of its own."""
    points = item.stash.get(POINTS, None)
    return _stage(points.visibility) if isinstance(points, Points) else 0


def _stage(visibility: str) -> int:
    return {"visible": 0, "hidden": 2}.get(visibility, 1)


def _set_of(item: pytest.Item) -> str | None:
    points = item.stash.get(POINTS, None)
    return points.set_name if isinstance(points, Points) else None


def held_back_last(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items with every held-back test (hidden, after_due_date, after_published) after
    every visible one, and the hidden ones last, stable within each.  The student's process
    answers a set's tests one after the other and may remember the arguments it was called
    with: a held-back test run before a visible one would hand its inputs to code whose errors
    and prints the visible test shows; a hidden test's, to a test shown after the due date (red
    team 30, 02), so each stage has a process of its own (:meth:`SetRun.student`)."""
    return sorted(items, key=stage)


def _is_graded(item: pytest.Item) -> bool:
    return POINTS in item.stash


def _wanted(item: pytest.Item, exercises: list[str] | None, sets: list[str] | None) -> bool:
    points = item.stash[POINTS]
    if not isinstance(points, Points):
        return True  # kept, to fail with the marker's error
    return (not exercises or points.exercise in exercises) and (not sets or points.set_name in sets)


# -- the student fixture and the verdicts -------------------------------------------------
@pytest.fixture
def student(request: pytest.FixtureRequest) -> Any:
    """The submission's functions and classes: ``student.NAME(...)`` asks the student's code."""
    from mcts_course.grading.runner import closure, student_names

    points = request.node.stash.get(POINTS, None)
    if points is None:
        pytest.fail("a test using `student` needs @pytest.mark.points(value, exercise=...)")
    if isinstance(points, str):
        pytest.fail(points, pytrace=False)
    grading = request.config.stash[GRADING]
    if points.visibility != "visible" and grading.swept_visible is None:
        from mcts_course.grading import sweep

        # The visible tests' processes end (and are swept) here, whatever closed or did not
        # close them before: with -k, pytest deselects after this plugin's collection hook,
        # which may have set a set's boundary on a test that does not run.
        for other in grading.runs.values():
            other.close()
        grading.swept_visible = sweep.counts()
    try:
        run = grading.run_for(points.set_name)
    except Exception as error:
        _grader_error(f"preparing {points.set_name}", error)
    dead = run.unusable()
    if dead is not None:
        pytest.skip(dead)
    why = run.not_run(closure(student_names(request.function), points.set_name))
    if why is not None:
        pytest.skip(why + (f"\nHint: {points.hint}" if points.hint else ""))
    from mcts_course.grading.sandbox import SandboxError

    try:
        answering, connection = run.student(points.timeout, _stage(points.visibility))
    except SandboxError as error:  # fail closed: no grade rather than unconfined student code
        grading.refused = str(error)
        pytest.exit(f"refused to grade: {error}", returncode=REFUSED)
    except Exception as error:  # starting or asking the process: raised in this fixture, it
        # was a plain failure with the traceback as feedback, the row "graded"
        _grader_error(f"starting {points.set_name}", error)
    request.node.stash[TURN] = (run, connection)
    return answering


def _grader_error(doing: str, error: Exception) -> NoReturn:
    """The grader's own fault: never a quiet zero with its traceback as the student's feedback
    (red team 16, 01); the run ends as an internal error, so the batch marks the submission
    crashed and `grade` exits 1."""
    pytest.exit(
        f"grader error while {doing}: {type(error).__name__}: {error}",
        returncode=pytest.ExitCode.INTERNAL_ERROR,
    )


@pytest.fixture
def submission_seed(request: pytest.FixtureRequest) -> int:
    """A seed derived from the code graded for this test's set: SHA-256 of its source and of
    every .py file beside it that its process may import (:func:`sandbox.sibling_sources`,
    names and bytes).  The same code gets the same positions, so a grade can be reproduced;
    and a table of answers, in the exercise file or in a helper beside it, cannot know the
    positions its own hash will draw (red team 15: a table in a helper file left the exercise
    file's hash, and so the positions, unchanged).  A notebook's check(), which has no file,
    draws a fresh seed."""
    from mcts_course.grading.sandbox import sibling_sources

    points = request.node.stash.get(POINTS, None)
    grading = request.config.stash[GRADING]
    source = None
    if isinstance(points, Points) and grading.in_process is None:
        source = grading.sources().get(points.set_name)
    if source is None:
        return random.SystemRandom().randrange(2**64)
    return seed_of(source.code, sibling_sources(source.path.parent), source.path.name)


def seed_of(code: str, siblings: Iterable[tuple[str, bytes]] = (), name: str = "") -> int:
    """:func:`submission_seed` of a file named ``name`` holding ``code``, with the .py files
    beside it given as (name, bytes).  Every byte the student's process can read goes in: the
    file's own name (a notebook's is its module's ``__file__``) and the siblings' names as
    the file system holds them, not as UTF-8 with undecodable bytes replaced (red team 21,
    19-21: a table of answers in a file name kept the drawn inputs fixed)."""
    digest = hashlib.sha256(code.encode("utf-8", errors="replace"))
    digest.update(b"\0name\0%s\0" % os.fsencode(name))
    for sibling, data in siblings:
        digest.update(b"\0%d\0%s\0" % (len(data), os.fsencode(sibling)))
        digest.update(data)
    # 64 bits, not 32: with 32, a student finds another program with their seed by brute force
    # (about 2**32 hashes, an hour on a laptop) and keeps the hidden inputs fixed across
    # submissions, adding up what each one leaks (red team 18, attack 09).
    return int.from_bytes(digest.digest()[:8], "big")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    points = item.stash.get(POINTS, None)
    if points is None or call.when == "teardown":
        return report
    if call.when == "setup" and report.passed:
        item.stash[SETUP_SECONDS] = report.duration
        return report
    error = call.excinfo.value if call.excinfo is not None else None
    if report.skipped:
        status = "not run"
        message = capped(str(getattr(error, "msg", "") or error or "skipped"))
    elif TURN in item.stash:
        from mcts_course.grading.runner import verdict

        run, connection = item.stash[TURN]
        status, message = verdict(run, connection, error, points.hint, points.timeout)
        if report.failed:
            message = capped(message)
            report.longrepr = message  # the curated message, not the grader's traceback
            path, line, domain = report.location  # the failure's title: what it cost, and why
            title = f"{domain}: [{points.exercise}] {points.name} (0 / {points.value:g})"
            report.location = (path, line, title)
    else:  # a bad marker, a test without `student`, an error in a fixture of the test
        status = "passed" if report.passed else "failed"
        message = "" if report.passed else capped(str(report.longrepr))
    seconds = item.stash.get(SETUP_SECONDS, 0.0) + report.duration
    turn = item.stash.get(TURN, None)
    spent = None  # no student code ran in this test (no connection: the file did not load)
    if turn is not None and turn[1] is not None and isinstance(points, Points):
        spent = round(turn[1].spent, 3)
    item.config.stash[GRADING].outcomes[item.nodeid] = Outcome(
        name=points.name if isinstance(points, Points) else item.name,
        exercise=points.exercise if isinstance(points, Points) else "?",
        max_score=points.value if isinstance(points, Points) else 0.0,
        score=points.value if isinstance(points, Points) and status == "passed" else 0.0,
        status=status,
        output=message,
        visibility=points.visibility if isinstance(points, Points) else HIDDEN_VISIBILITY,
        test=item.nodeid,
        seconds=round(seconds, 3),
        student_seconds=spent,
        limit=points.timeout if spent is not None else None,
    )
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a graded test's student process starts: its phase of the batch (a held-back test
    waits until no other submission's code runs, see :mod:`~mcts_course.grading.phases`)."""
    grading = item.config.stash[GRADING]
    if grading.submission is not None and _set_of(item) is not None:
        if _held_back(item) and grading.visible_seconds is None:
            grading.visible_seconds = time.monotonic() - grading.started
        grading.phases.enter(_held_back(item))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """After a set's last test its student process goes, not at the end of the run; and
    after its last visible test when held-back tests follow (held_back_last): those start a
    fresh process, which has seen no visible test, and no visible test comes after them."""
    grading = item.config.stash[GRADING]
    for ending in (grading.last, grading.boundary):
        if ending.get(item.nodeid) in grading.runs:
            grading.runs[ending[item.nodeid]].close()


# -- the end of the run ----------------------------------------------------------------------
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    grading = session.config.stash[GRADING]
    grading.close()
    option = session.config.getoption
    if grading.refused:
        if option("results_json"):
            atomic_write(Path(option("results_json")), json_text(grading.results(), None))
        return
    if not grading.outcomes and grading.phase is None:
        return  # a phase's run writes its results.json all the same: how many held back
    if option("results_json"):
        text = json_text(grading.results())
        atomic_write(Path(option("results_json")), text)
    if option("grades_csv"):
        name = Path(grading.submission or "notebook").name
        rows = [(name, list(grading.outcomes.values()))]
        atomic_write(Path(option("grades_csv")), grades_csv(rows))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    grading = config.stash[GRADING]
    from mcts_course.grading import sweep

    if grading.submission is not None and sweep.RUNS[0] and (sweep.REMOVED or sweep.incomplete()):
        terminalreporter.section("swept")  # names are the student's: repr, no control bytes
        for removed in sweep.REMOVED:
            terminalreporter.write_line(f"removed {removed!r}")
        terminalreporter.write_line(sweep.summary())
    outcomes = list(grading.outcomes.values())
    if outcomes:
        terminalreporter.section("points")
        for line in points_table(outcomes).splitlines():
            terminalreporter.write_line(line)
        not_run: dict[str, int] = {}
        for o in outcomes:
            if o.status == "not run":
                why = o.output.splitlines()[0]
                not_run[why] = not_run.get(why, 0) + 1
        for why, count in not_run.items():
            tests = "test" if count == 1 else "tests"
            terminalreporter.write_line(f"{count} {tests} {why}")
        for why in grading.cut:  # in the batch's pytest.log: a grade on part of the files
            terminalreporter.write_line(f"note: {why}", yellow=True)
    elif exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and not grading.active:
        from mcts_course.grading.sources import find_sources

        for arg in config.args:
            path = Path(arg.split("::")[0])
            if path.exists() and find_sources(path):
                terminalreporter.write_line(
                    f"{arg} holds exercise files, not tests: grade them with\n"
                    "    python -m pytest -c /dev/null --pyargs mcts_course.grading "
                    f"--submission={arg}\n"
                    "(or mcts-course check " + arg + ")",
                    yellow=True,
                )
