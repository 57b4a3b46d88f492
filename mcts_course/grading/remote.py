"""The referee's machinery, by concern (this module keeps the former names importable):

* :mod:`~mcts_course.grading.sandbox`: what confines the student's code (a user id of its own
  as root, a work folder, hidden private files, symbolic links refused, processes killed);
* :mod:`~mcts_course.grading.process`: the student's process (start, ask, wait, stop);
* :mod:`~mcts_course.grading.proxies`: what a test holds (``student.select_child(...)``).
"""

from __future__ import annotations

from mcts_course.grading.process import (
    IMPORT_TIMEOUT,
    LINE_CAP,
    ImportFailed,
    MissingDefinition,
    StudentError,
    StudentGone,
    StudentProcess,
    describe_student_error,
    student_error,
)
from mcts_course.grading.proxies import Connection, RemoteFunction, RemoteObject, Student
from mcts_course.grading.sandbox import (
    PACKAGE,
    PRIVATE,
    Sandbox,
    SandboxError,
    protect_private_files,
    public_package,
    student_paths,
    unprivileged_ids,
)

__all__ = [
    "IMPORT_TIMEOUT",
    "LINE_CAP",
    "PACKAGE",
    "PRIVATE",
    "Connection",
    "ImportFailed",
    "MissingDefinition",
    "RemoteFunction",
    "RemoteObject",
    "Sandbox",
    "SandboxError",
    "Student",
    "StudentError",
    "StudentGone",
    "StudentProcess",
    "describe_student_error",
    "protect_private_files",
    "public_package",
    "student_error",
    "student_paths",
    "unprivileged_ids",
]
