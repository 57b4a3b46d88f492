"""Who else on this machine can watch a batch: the one limit of the sandbox ``grade`` can only
state, not enforce.

A sandbox hides the machine from a student's process, not that process from the machine.  Any
local user reads every process's ``/proc/PID/cmdline`` and ``comm`` unless ``/proc`` is
mounted with ``hidepid``, and everyone reads machine-wide counters (the ``Shmem:`` line of
``/proc/meminfo``, the load): a held-back test's process can write its hidden inputs into
them (its own argument list, a child's, the size of its private ``/dev/shm``) for a colluding
account to read (red team 12, 01 and 08).  Neither can be closed from inside the grader
(hidepid is the host's mount; the counters are the kernel's), so ``grade`` warns when another
login account has processes running here, and the README says where to grade: a machine or
container with no untrusted account (Gradescope's, a course VM).  Neighbours in one batch are
the grader's business: their held-back phases never overlap (:mod:`mcts_course.grading.phases`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mcts_course.grading import sandbox

LOGIN_DEFS = Path("/etc/login.defs")
NOBODY = 65534


def _first_login_uid(defs: Path = LOGIN_DEFS) -> int:
    """The lowest user id of a login account (``UID_MIN`` of login.defs, 1000 by default)."""
    try:
        found = re.search(r"(?m)^\s*UID_MIN\s+(\d+)", defs.read_text(errors="replace"))
    except OSError:
        found = None
    return int(found.group(1)) if found else 1000


def proc_hides_processes(mountinfo: Path = Path("/proc/self/mountinfo")) -> bool:
    """Whether ``/proc`` is mounted with ``hidepid`` (other users' processes hidden)."""
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return False
    for line in lines:
        fields = line.split()
        if len(fields) > 4 and fields[4] == "/proc":
            options = line.split(" - ", 1)[-1]
            found = re.search(r"hidepid=(\w+)", options)
            return bool(found) and found.group(1) not in ("0", "off")
    return False


def other_accounts(proc: Path = Path("/proc")) -> list[int]:
    """The login accounts, other than the grader's own and the sandboxes', with processes here."""
    first = _first_login_uid()
    low, high = sandbox.uid_range()
    mine = os.geteuid()
    found: set[int] = set()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat().st_uid
        except OSError:
            continue  # it ended
        if uid >= first and uid not in (mine, NOBODY) and not low <= uid <= high:
            found.add(uid)
    return sorted(found)


def warning() -> str | None:
    """A line for the grader's output when other accounts could watch the batch, else None."""
    others = other_accounts()
    if not others:
        return None
    shown = ", ".join(str(u) for u in others[:5]) + (", ..." if len(others) > 5 else "")
    names = "" if proc_hides_processes() else "the sandboxes' process names and arguments and "
    return (
        f"other accounts have processes on this machine (user ids {shown}): they can read "
        f"{names}machine-wide counters such as /proc/meminfo, into which a student's code "
        "could write a hidden test's inputs; grade where no untrusted account runs (Gradescope, "
        "a course VM), or at least mount /proc with hidepid=invisible"
    )
