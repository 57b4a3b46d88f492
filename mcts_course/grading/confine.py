"""Confinement by mechanism: Linux namespaces (``unshare``) and cgroups around each student process.

A student's process starts through a small launcher (:meth:`Cage.command`):

1. ``/bin/sh`` joins the submission's own cgroups (memory, process count, CPU share, freezer;
   when this grader may create them, see :func:`cgroups_allowed`), then execs
2. ``unshare`` (util-linux) into new mount, IPC, network, UTS and pid namespaces (through a user
   namespace when the grader is not root), where
3. :data:`SETUP` (a shell script) builds a new root on an empty tmpfs: read-only bind mounts of
   what the interpreter loads (:func:`system_view`: the interpreter, its standard library, its
   shared libraries; not ``/usr`` whole) and of the public copy of the package, with
   every ``site-packages`` replaced by a folder holding only the student package's
   dependencies; a size-capped tmpfs each for ``/tmp``, ``/var/tmp``, ``/dev/shm``,
   ``/run/lock`` and the work folder (the submission's copy); a few device nodes; a fresh
   ``/proc`` of the new pid namespace.  It switches to that root (``pivot_root``) and execs
   :data:`INIT`, which unmounts the old root and runs the student's process as its child.

So the student's code sees no file of the grader, no hidden test, no other process (its pid
namespace), no network (an empty network namespace: not even loopback is up), no System V IPC
of anyone else (its IPC namespace, removed with its last process), and shares no temporary
folder.  The launcher's :data:`INIT` is process 1 of the pid namespace: when it ends (the student's
process ended, or the grader killed the launcher), the kernel kills every process of the
namespace, detached daemons included.  The cgroup caps memory (shared memory and tmpfs files
included) and processes for the whole submission, and is frozen between questions.

What is visible is a list of what the interpreter needs, computed here (:func:`visible`), never
a list of what to hide: a file not listed does not exist in the student's root.
"""

from __future__ import annotations

import fcntl
import functools
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from mcts_course.grading import checkouts, leftovers

NAMESPACES = ("mount", "ipc", "net", "pid", "uts")
TMP_MB = {"/tmp": 64, "/var/tmp": 16, "/dev/shm": 64, "/run/lock": 1}  # private tmpfs sizes
WORK_MB = 64  # the work folder (home, current folder): a tmpfs too
DEVICES = ("null", "zero", "full", "random", "urandom")
ETC = ("/etc/ld.so.cache", "/etc/localtime")  # the dynamic linker's cache: numpy's libraries
LOCALES = "/usr/lib/locale"  # C.UTF-8, where the C library does not hold it
VIEW_ENV = "MCTS_SYSTEM_VIEW"  # a JSON list, set by grade: its runs compute no view
CPU_SHARE = 1.0  # cores a submission may use at once, all its processes together
# cpuacct counts the CPU time of all the submission's processes together (a daemon that
# setsid()s and forks again before its RLIMIT_CPU included): see Cage.cpu_seconds.
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
CGROUP_ROOT = Path("/sys/fs/cgroup")
NO_NAMESPACES_ENV = "MCTS_NO_NAMESPACES"  # "1": behave as in a container that forbids them

# The launcher's second stage, run by unshare inside the new namespaces, as root of them.
# Arguments: ROOT WORK OWNER SHMPAGES, then "ro PATH" / "site PATH" / "add SITE ENTRY" groups,
# then "--" and the command.  Every step that fails stops it (set -e): the grader refuses.
SETUP = r"""
set -eu
GIVEN_PATH=$PATH PATH=/usr/sbin:/usr/bin:/sbin:/bin
R=$1 W=$2 OWNER=$3 SHMPAGES=$4; shift 4
# files per tmpfs: its size caps blocks, and an empty file has none, yet costs ~1 KB of kernel
# memory no cgroup of a teaching assistant's run counts (red team 23, 13)
INODES=4096
FS=nr_inodes=$INODES,nosuid,nodev  # every tmpfs of the sandbox
mount -t tmpfs -o "size=4m,mode=755,$FS" mcts-root "$R"
bind() {  # read-only view of $1 at the same place in the new root
    if [ -d "$1" ]; then mkdir -p "$R$1"; else mkdir -p "$R${1%/*}"; : > "$R$1"; fi
    mount --bind -o ro,nosuid,nodev "$1" "$R$1"
}
while [ "$1" != -- ]; do
    case $1 in
    ro) if [ -L "$2" ]; then mkdir -p "$R${2%/*}"; ln -s "$(readlink "$2")" "$R$2"
        elif [ -e "$2" ]; then bind "$2"; fi
        shift 2 ;;
    site) mkdir -p "$R$2"; mount -t tmpfs -o "size=1m,mode=755,$FS" mcts-site "$R$2"
          shift 2 ;;
    add) if [ -e "$2/$3" ]; then bind "$2/$3"; fi; shift 3 ;;
    tmp) mkdir -p "$R$2"
         mount -t tmpfs -o "size=$3m,mode=1777,$FS" mcts-tmp "$R$2"; shift 3 ;;
    mask) if [ -L "$R$2" ]; then :
          elif [ -d "$R$2" ]; then mount -t tmpfs -o "size=4k,mode=555,$FS" mcts-mask "$R$2"
          elif [ -e "$R$2" ]; then mount --bind -o ro /dev/null "$R$2"; fi
          shift 2 ;;
    *) echo "confine: bad argument $1" >&2; exit 97 ;;
    esac
done
shift
mkdir -p "$R$W"
mount -t tmpfs -o "size=$WORK_MB,mode=700,uid=$OWNER,gid=$OWNER,$FS" mcts-work "$R$W"
cp -a "$W/." "$R$W/"
mkdir -p "$R/dev"
for d in $DEVICES; do : > "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done
mkdir -p "$R/proc"
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
for f in keys key-users; do  # every key of the machine is listed there, namespaces or not
    if [ -e "$R/proc/$f" ]; then mount --bind -o ro /dev/null "$R/proc/$f"; fi
done
echo "$SHMPAGES" > "$R/proc/sys/kernel/shmall" 2>/dev/null || true
mount -o remount,ro,bind "$R"
cd "$R"
pivot_root . .
# The old root, stacked on the new one, is unmounted by INIT, then INIT enters the work
# folder: the new root holds no umount, no program but the interpreter and TOOLS.
PATH=$GIVEN_PATH
export MCTS_INIT_WORK="$W"
exec "$INIT_PYTHON" -I -S -c "$INIT" "$@"
"""
# The namespace's first process, once the root is built: it runs the student's command as its
# child and waits for it (orphans come to it too).  Without a cgroup freezer the grader asks it
# to stop or continue every other process of the namespace: it writes "s" or "c" on a socket
# only this process holds (``INIT_FD_ENV`` names it) and sends SIGUSR1, and the last request
# read is carried out with one kill(-1), which reaches a process forking at that moment and
# its child alike, where a scan of /proc from outside does not (a chain of processes that fork
# and exit at once ran on between questions: red team 31, 08; see
# :func:`mcts_course.grading.pidns.stop_from_inside`).  Requests, not two signals: a pending
# "continue" and a new "stop" would run in the signals' order, not the order they were sent.
# Python, not the shell: dash runs a trap only once no child has ended for a while, and the
# orphans of such a chain end all the time.  Nothing of the namespace can signal this process
# but with SIGUSR1 (the kernel drops any signal to a namespace's first process from inside it
# that has no handler), which only makes it read requests, nor renice it or read its files
# (it keeps the capabilities the student's process drops).  The child gets every signal's
# default action back (the interpreter ignores SIGPIPE and SIGXFSZ, and exec keeps that), and
# an oom_score_adj of 1000, which its every process inherits: on a machine short of memory
# the kernel killed the grader first, and a submission that kept its processes small lived on
# holding the memory (red team 33, 04); the student's process cannot lower it (no
# CAP_SYS_RESOURCE, and Landlock refuses its writes outside its own folders).
INIT_FD_ENV = "MCTS_INIT_FD"
# What INIT writes back on its socket when the student's process has ended, just before it
# ends too, followed by that process's wait status in decimal and a newline: a launcher whose
# INIT wrote nothing was killed from outside (``unshare`` then exits 1, "sigprocmask unblock
# failed", as if the student's code had called ``os._exit(1)``), and the status itself tells a
# signal from an exit code (INIT's own exit code, 128 + n for signal n, is one a student's
# ``os._exit(137)`` also gives: read as "killed from outside", it dodged a grade, red team 40).
ENDED = b"e"
# Seconds between INIT's stops while the namespace is to stay stopped: the kernel itself
# continues a stopped process group that becomes orphaned (a process of another group ending
# as the stop came, which the stop does not hold), which woke a daemon between a teaching
# assistant's questions (red team 39, 01); stopped again at once, it runs at most this long.
# (The seccomp filter now refuses the new process group that needs: this is a second line.)
# Such ends follow the stop at once: RESTOPS stops RESTOP apart, then one each RESTOP_LATER
# (each kill(-1) walks the machine's process list).
RESTOP, RESTOPS, RESTOP_LATER = 0.002, 50, 0.05
# INIT's requests, one handler for SIGUSR1 (a request came) and SIGALRM (time to stop again).
# Python runs a signal's handler at the next bytecode, also inside another handler: a timer's
# re-stop that had checked "stopped?" and was about to stop when the grader's "continue" ran
# whole inside it stopped the namespace after it, for the whole next question ("15 s went by,
# 0.0 s of CPU used": CI, 1 teaching assistant's run in 5).  So a handler that finds another
# running only marks it to run once more, and each run reads the last request and acts on it.
INIT_REQUESTS = f"""
STATE = {{"wanted": b"c", "stops": 0, "busy": False, "again": False}}

def every(signal_number):
    try:
        os.kill(-1, signal_number)
    except OSError:
        pass

def requested():
    wanted = b""
    while control >= 0:
        try:
            got = os.read(control, 256)
        except OSError:
            break
        if not got:
            break
        wanted = got[-1:]
    return wanted

def carry_out():
    wanted = requested()
    if wanted in (b"s", b"c"):
        STATE["wanted"], STATE["stops"] = wanted, 0
        pace = {RESTOP} if wanted == b"s" else 0
        signal.setitimer(signal.ITIMER_REAL, pace, pace)
    if STATE["wanted"] == b"c":
        if wanted == b"c":
            every(signal.SIGCONT)
        return
    every(signal.SIGSTOP)  # the stop asked for, or what the kernel continued meanwhile
    STATE["stops"] += 1
    if STATE["stops"] == {RESTOPS}:  # the burst after the stop is over: now and then
        signal.setitimer(signal.ITIMER_REAL, {RESTOP_LATER}, {RESTOP_LATER})

def handle(number, frame):
    if STATE["busy"]:
        STATE["again"] = True  # the running handler carries it out once more
        return
    STATE["again"] = True
    while STATE["again"]:  # also one that came after the last run, before "busy" ended
        STATE["busy"] = True
        try:
            while STATE["again"]:
                STATE["again"] = False
                carry_out()
        finally:
            STATE["busy"] = False
"""
INIT = f"""
import ctypes, os, signal, sys

# the old root, stacked on the new one at ".", goes (MNT_DETACH); then the work folder
if ctypes.CDLL(None, use_errno=True).umount2(b".", 2) != 0:
    print("confine: the old root cannot be unmounted", file=sys.stderr)
    os._exit(97)
os.chdir(os.environ.pop("MCTS_INIT_WORK"))
given = os.environ.pop("{INIT_FD_ENV}", "")
control = int(given) if given.isdigit() else -1
if control >= 0:
    os.set_inheritable(control, False)
    os.set_blocking(control, False)

{INIT_REQUESTS}
# the interpreter's own SIGINT handler was one the namespace could reach: os.kill(1, SIGINT)
# from a teaching assistant's student ended the sandbox, a row "killed" that blamed the machine
# (red team 55, 21); with its default action, the kernel drops it from inside
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGALRM, handle)
signal.signal(signal.SIGUSR1, handle)
child = os.fork()
if child == 0:
    for number in signal.valid_signals() - {{signal.SIGKILL, signal.SIGSTOP}}:
        try:  # every one: a grader started under nohup ignores SIGHUP, and exec keeps that
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    try:  # the first the kernel kills when memory runs out, before the grader (red team 33, 04)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:
        os._exit(1)
    if pid == child:
        try:  # the grader's proof that this process lived to see the end, and how it came
            os.write(control, {ENDED!r} + b"%d\\n" % status)
        except OSError:
            pass
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


class ConfineError(RuntimeError):
    """The launcher cannot be built or does not work here."""


# -- what this machine allows --------------------------------------------------------------------
def _root() -> bool:
    return os.geteuid() == 0


def unshare_command(user: bool) -> list[str]:
    """``unshare`` into the namespaces (``user``: through a user namespace, as an ordinary
    user), its child (the setup shell, then :data:`INIT`) killed if it dies."""
    tool = shutil.which("unshare") or "/usr/bin/unshare"
    command = [tool, *(f"--{n}" for n in NAMESPACES), "--fork", "--kill-child=SIGKILL"]
    command += ["--propagation", "private"]
    if user:
        command[1:1] = ["--user", "--map-root-user"]
    return command


@functools.lru_cache(maxsize=1)
def namespaces_allowed() -> bool:
    """Whether this process can build the student's root: the real launcher, once, with a
    command that only checks it ran there (a container may forbid unshare, or mounting /proc)."""
    if sys.platform != "linux" or os.environ.get(NO_NAMESPACES_ENV) == "1":
        return False
    if not _root() and not _userns_possible():
        return False
    probe = leftovers.make("mcts-probe-")  # held: swept if this grader is killed meanwhile
    try:
        (probe / "work").mkdir()
        (probe / "root").mkdir()
        command = _launcher(probe / "root", probe / "work", None, 1, visible())
        check = "import os; os._exit(0 if os.access('/proc/self/status', os.R_OK) and "
        check += "not os.path.exists('/root/.probe') else 1)"
        command += [os.path.realpath(sys.executable), "-I", "-S", "-c", check]
        try:
            done = subprocess.run(command, capture_output=True, timeout=20, env=_clean_env())
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0
    finally:
        leftovers.remove(probe)


def _userns_possible() -> bool:
    try:
        return int(Path("/proc/sys/user/max_user_namespaces").read_text()) > 0
    except (OSError, ValueError):
        return False


def _clean_env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def _own_cgroup(controller: str, pid: int | str = "self") -> Path | None:
    """This process's (or ``pid``'s) cgroup folder of ``controller`` (cgroup v1), where
    children may go."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            folder = CGROUP_ROOT / controller / path.lstrip("/")
            return folder if folder.is_dir() else None
    return None


def thaw_process(pid: int) -> None:
    """Thaw the freezer cgroup ``pid`` is in: a frozen process takes no SIGKILL until then (a
    grader that died between two questions left its submission frozen, and the batch's end
    waited on it forever)."""
    folder = _own_cgroup("freezer", pid)
    if folder is not None:
        try:
            (folder / "freezer.state").write_text("THAWED")
        except OSError:
            pass


@functools.lru_cache(maxsize=1)
def cgroups_allowed() -> bool:
    """Whether this grader can make a child cgroup of each controller (root, cgroup v1)."""
    if not _root() or sys.platform != "linux":
        return False
    for controller in CONTROLLERS:
        parent = _own_cgroup(controller)
        if parent is None:
            return False
        probe = parent / f"mcts-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError:
            return False
    return True


def mode() -> str:
    """``namespaces`` (root), ``userns`` (an ordinary user, through a user namespace) or
    ``none`` (the machine forbids both)."""
    if not namespaces_allowed():
        return "none"
    return "namespaces" if _root() else "userns"


# -- what the student's root shows -------------------------------------------------------------
def _requirements(name: str, seen: set[str]) -> None:
    """``name`` and the distributions it needs (not its extras), recursively, into ``seen``."""
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return
    seen.add(key)
    for requirement in dist.requires or []:
        if "extra ==" in requirement.replace('"', "").replace("'", ""):
            continue
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if found:
            _requirements(found.group(1), seen)


STUDENT_DISTRIBUTION = "mcts-course"
# Libraries a solution file may import beside the required ones (the library's "pictures" and
# "parallel" extras), when they are installed: the grader never adds one that is not.
OPTIONAL = ("matplotlib", "joblib", "tqdm")


@functools.lru_cache(maxsize=1)
def allowed_entries() -> dict[str, list[str]]:
    """``{site folder: [top-level names]}``: the installed files of the student package's
    dependencies, by the folder they are installed in (the package itself is not among them:
    the student's process imports the public copy, without the grader's files)."""
    names: set[str] = set()
    for root in (STUDENT_DISTRIBUTION, *OPTIONAL):
        _requirements(root, names)
    names.discard(STUDENT_DISTRIBUTION)
    entries: dict[str, set[str]] = {}
    for dist in metadata.distributions():
        key = re.sub(r"[-_.]+", "-", dist.metadata["Name"] or "").lower()
        if key not in names:
            continue
        site = os.path.realpath(str(dist.locate_file("")))
        for top in _tops(dist, site):
            # not the shared __pycache__ (other modules' bytecode), nor .pth hooks (-S)
            if top and top not in ("..", ".", "__pycache__") and not top.endswith(".pth"):
                entries.setdefault(site, set()).add(top)
    return {site: sorted(tops) for site, tops in entries.items()}


def _tops(dist: metadata.Distribution, site: str) -> list[str]:
    """The first part of each path ``dist`` installed, by its file list; without one (Debian
    installs its packages with no RECORD), by its ``top_level.txt``: a library missing from the
    sandbox cost a correct submission that imports it every point (red team 37, 06)."""
    if dist.files is not None:
        return [file.parts[0] if file.parts else "" for file in dist.files]
    names = (dist.read_text("top_level.txt") or "").split()
    found = []
    for name in names:
        found += [n for n in (name, f"{name}.py", f"{name}.libs") if os.path.exists(f"{site}/{n}")]
    return found


def site_folders() -> list[str]:
    """Every folder of installed packages this interpreter (or the system's) could show: each
    is replaced by an empty folder in the student's root, then given the allowed entries."""
    found = set()
    for path in sys.path:
        if os.path.basename(path) in ("site-packages", "dist-packages") and os.path.isdir(path):
            found.add(os.path.realpath(path))
    prefixes = {sys.prefix, sys.base_prefix, "/usr", "/usr/local"}
    for prefix in prefixes:
        for pattern in ("lib*/python3*/*-packages", "lib*/python3/*-packages"):
            found.update(os.path.realpath(p) for p in glob.glob(os.path.join(prefix, pattern)))
    found.update(allowed_entries())
    return sorted(p for p in found if os.path.isdir(p))


def visible(
    public_root: Path | None = None, extra: list[str] | None = None, masked: Iterable[str] = ()
) -> list[str]:
    """The setup arguments that make the student's root: what is shown (read-only), which
    package folders are emptied, what goes back in them, the private temporary folders, and
    ``masked``: files and folders inside what is shown that the student must not see (an
    instructor's hidden tests under ``/usr``: red team 31, 09), and the copies of this
    repository there (:mod:`~mcts_course.grading.checkouts`), covered last, all but what the
    student's process needs in them (:func:`cover`)."""
    shown = list(system_view())
    for path in [*(extra or []), *([str(public_root)] if public_root else [])]:
        shown.append(os.path.realpath(path))
    args: list[str] = []
    for folder, size in TMP_MB.items():  # first: the public copy may lie in /tmp
        args += ["tmp", folder, str(size)]
    for path in shown:
        args += ["ro", path]
    allowed = allowed_entries()
    sites = site_folders()
    keep = [*shown, os.path.join(os.path.realpath(sys.prefix), "pyvenv.cfg")]
    for site in sites:
        if any(_within(site, s) for s in shown) or site in allowed:
            args += ["site", site]
            keep.append(site)
    for site, tops in allowed.items():
        if site not in sites:
            continue
        for top in tops:
            args += ["add", site, top]
            keep.append(os.path.join(site, top))
    for path in dict.fromkeys([*masked, *checkouts.copies(whole_trees())]):
        for covered in cover(os.path.realpath(path), keep, shown):
            args += ["mask", covered]
    return args


def whole_trees() -> tuple[str, ...]:
    """The folders every student's root shows whole (their site folders aside)."""
    return tuple(p for p in system_view() if os.path.isdir(p) and not os.path.islink(p))


def for_runs(env: dict[str, str]) -> None:
    """Work out once, for every run of a batch, what each sandbox shows of the system and the
    copies of the repository to cover in it (``ldd`` and a walk: a second or so each)."""
    env[VIEW_ENV] = json.dumps(list(system_view()))
    checkouts.for_runs(env, whole_trees())


@functools.lru_cache(maxsize=1)
def system_view() -> tuple[str, ...]:
    """What of the machine every student's root shows, read-only: the interpreter, its
    standard library, the shared libraries that it, its extension modules and the allowed
    packages load (as the dynamic linker finds them: ``ldd``; the C library's folder whole,
    any other library alone), the linker's cache,
    the local time, and the symbolic links on the way to each; :data:`VIEW_ENV`'s when
    ``grade`` gave it.  Not ``/usr`` whole: a copy of this repository anywhere in it (a
    checkout, a bare clone, an archive, an instructor's hidden tests) was readable by every
    submission (red teams 34 and 35)."""
    given = checkouts.paths_given(VIEW_ENV)
    if given is not None:
        return given
    executable = os.path.realpath(sys.executable)
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    dynload = [os.path.realpath(p) for p in sys.path if os.path.basename(p) == "lib-dynload"]
    tools = [tool for tool in map(_tool, TOOLS) if os.path.isabs(tool)]
    binaries = [executable, *tools]
    for folder in [
        *dynload,
        *(os.path.join(s, t) for s, ts in allowed_entries().items() for t in ts),
    ]:
        for where, _, names in os.walk(folder):
            binaries += [os.path.join(where, n) for n in names if ".so" in n]
    links: list[str] = []
    folders = [stdlib, *(d for d in dynload if os.path.isdir(d))]
    folders += [LOCALES] if os.path.isdir(LOCALES) else []
    files = []
    found = [_links_to(library) for library in _libraries(binaries)]
    # The C library's folder whole (what it loads by name later: libgcc_s for a thread's end,
    # NSS, gconv), any other library alone: a folder such as pyenv's lib/ (libpython) or
    # /usr/local/lib shows whatever else lies there, a bare clone or a zip of this repository
    # (red team 38, 02 and 03)
    libc = ("libc.", "libc-")
    system = {os.path.dirname(r) for _, r in found if os.path.basename(r).startswith(libc)}
    for met, real in found:
        links += met
        if not system or os.path.dirname(real) in system:
            folders.append(os.path.dirname(real))
        else:
            files.append(real)
    for path in [*ETC, executable, *tools]:
        if os.path.lexists(path):
            met, real = _links_to(path)
            links += met
            files.append(real)
    sites = site_folders()
    shown: list[str] = []
    for folder in sorted(set(folders), key=len):  # the widest first: each once
        if not any(_within(folder, s) for s in [*shown, *sites]):
            shown.append(folder)
    outside = [
        p for p in dict.fromkeys([*links, *files]) if not any(_within(p, s) for s in shown + sites)
    ]
    return tuple(outside + shown)


def _libraries(binaries: list[str]) -> list[str]:
    """The shared libraries ``binaries`` load, by the paths the dynamic linker finds them at;
    without ``ldd``, those this process has loaded (the C library's and the interpreter's
    folders, then, at least: a root without them starts nothing, and the grader refuses)."""
    ldd = shutil.which("ldd", path="/usr/bin:/bin")
    lines: list[str] = []
    if ldd is not None and binaries:
        try:
            done = subprocess.run(
                [ldd, *binaries], capture_output=True, text=True, env=_clean_env(), timeout=300
            )
            lines = done.stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            lines = []
    found = []
    for line in lines:
        path = line.split("=>", 1)[1] if "=>" in line else line
        path = path.split(" (", 1)[0].strip()
        if path.startswith("/") and os.path.exists(path):
            found.append(path)
    if not found:
        with open("/proc/self/maps") as maps:
            found = [m.split(None, 5)[-1].strip() for m in maps if ".so" in m and "/" in m]
        found = [p for p in found if p.startswith("/") and os.path.exists(p)]
    return sorted(set(found))


def _links_to(path: str) -> tuple[list[str], str]:
    """The symbolic links met on the way to ``path`` (``/lib64``, the linker's
    ``ld-linux-x86-64.so.2``), which the root must hold as links, and the real path."""
    links: list[str] = []
    current, rest = "/", list(Path(path).parts[1:])
    while rest:
        part = rest.pop(0)
        if part in (".", ".."):  # ldd's $ORIGIN/../lib: the real parent
            current = current if part == "." else os.path.dirname(current)
            continue
        step = os.path.join(current, part)
        if os.path.islink(step) and len(links) < 40:
            links.append(step)
            target = os.path.normpath(os.path.join(current, os.readlink(step)))
            current, rest = "/", [*Path(target).parts[1:], *rest]
        else:
            current = step
    return links, current


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def cover(path: str, keep: list[str], shown: list[str]) -> list[str]:
    """What to mask so that the student sees nothing of ``path`` but what ``keep`` holds: the
    path itself, or, for a folder holding something kept (a checkout's virtual environment, the
    interpreter's prefix), each of its other entries, down to the kept ones; only what a shown
    tree holds (a mask elsewhere covers nothing)."""
    if path in keep:
        return []
    if not any(_within(k, path) for k in keep):
        return [path] if any(_within(path, s) for s in shown) else []
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return []
    return [c for e in entries for c in cover(os.path.join(path, e), keep, shown)]


# The programs a teaching assistant's launcher runs inside the new root, before the student's
# code (its own caps: no cgroup, no capability): the root shows them (system_view).
TOOLS = ("prlimit", "setpriv")


def _tool(name: str) -> str:
    return os.path.realpath(shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin") or name)


def _launcher(
    root: Path, work: Path, owner: int | None, memory_mb: int, shown: list[str]
) -> list[str]:
    """The command (without the student's own) that builds the root and runs in it."""
    user = not _root()
    pages = max(1, memory_mb << 8)  # System V shared memory: at most the memory cap, in pages
    python = shlex.quote(os.path.realpath(sys.executable))
    setup = f"WORK_MB={WORK_MB}m DEVICES='{' '.join(DEVICES)}' INIT_PYTHON={python}\n"
    setup += f"INIT={shlex.quote(INIT)}\n{SETUP}"
    command = unshare_command(user) + ["/bin/sh", "-c", setup, "mcts-confine"]
    command += [str(root), str(work), str(0 if owner is None else owner), str(pages)]
    command += shown + ["--"]
    if user:  # root of its user namespace: no capability may survive into the student's code
        from mcts_course.grading.server import NPROC

        # No cgroup for an ordinary user: RLIMIT_NPROC counts all of this user's threads, so
        # the cap is what runs now plus the sandbox's share.
        command += [_tool("prlimit"), f"--nproc={_threads_of(os.getuid()) + NPROC}"]
        command += [_tool("setpriv"), "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    return command


def _threads_of(uid: int) -> int:
    """How many threads run as ``uid`` (real id): what RLIMIT_NPROC counts."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            total += int(fields.get("Threads", "1").strip() or 1)
    return total


# -- one student process's cage -------------------------------------------------------------------
def _dies_with_this_thread() -> list[str]:
    """A prefix that kills the launcher when the thread starting it ends: a grading run killed
    by SIGKILL left its sandbox running, with no cgroup for the next grader to sweep as a
    teaching assistant, its student code spawning a daemon every 30 s (red team 33, 03); the
    launcher's death kills the namespace's first process (``unshare --kill-child``), whose
    death ends the namespace.  Only from the main thread: the kernel's parent-death signal
    follows the thread that forked, and another thread may end before the run does."""
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    if threading.current_thread() is not threading.main_thread() or not os.path.exists(setpriv):
        return []
    return [setpriv, "--pdeathsig", "KILL"]


class Cage:
    """The namespaces and cgroups of one student process.  ``root`` is an empty folder of the
    grader's (the new root is mounted on it, inside the namespace only); ``work`` the folder
    whose files become the student's work folder; ``owner`` the sandbox's user id (as root)."""

    def __init__(self, root: Path, work: Path, owner: int | None, memory_mb: int, name: str):
        self.root, self.work, self.owner, self.memory_mb = root, work, owner, memory_mb
        self.mode = mode()
        if self.mode == "none":
            raise ConfineError("namespaces are not available here")
        self.cgroups: dict[str, Path] = {}
        self.locks: list[int] = []  # flocks on its cgroup folders, held while the cage lives
        self.cpu_exceeded: float | None = None  # CPU seconds seen when watch_cpu killed it all
        self._watching: threading.Event | None = None
        self.machine_oom_kills: int | None = None  # without cgroups: oom_killed_from_outside
        if cgroups_allowed():
            remove_stale_once()
            self._make_cgroups(name)
        else:
            self.machine_oom_kills = machine_oom_kills()

    def _make_cgroups(self, name: str) -> None:
        from mcts_course.grading.server import NPROC

        tmp_total = sum(TMP_MB.values()) + WORK_MB
        limits = {
            "memory": {
                "memory.limit_in_bytes": (self.memory_mb + tmp_total) << 20,
                "memory.memsw.limit_in_bytes": (self.memory_mb + tmp_total) << 20,
            },
            "pids": {"pids.max": NPROC + 4},  # the launcher's two processes, and a margin
            "cpu": {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": int(CPU_SHARE * 100_000)},
            "cpuacct": {},
            "freezer": {},
        }
        try:
            for controller in CONTROLLERS:
                parent = _own_cgroup(controller)
                if parent is None:
                    raise ConfineError(f"no {controller} cgroup")
                folder = parent / f"mcts-{name}"
                if folder not in self.cgroups.values():  # cpu,cpuacct may share a hierarchy
                    # root's alone: no other account may open it, so none may take or hold
                    # its lock (a stranger's shared lock kept a dead grader's cgroups, and
                    # one taken between mkdir and ours failed a batch; red team 13, 20)
                    folder.mkdir(mode=0o700)
                    folder.chmod(0o700)  # a file system that ignored mkdir's mode
                    self.locks.append(_hold(folder))
                self.cgroups[controller] = folder
                for key, value in limits[controller].items():
                    target = folder / key
                    if target.exists() or key != "memory.memsw.limit_in_bytes":
                        target.write_text(str(value))
        except OSError as error:
            self.close()
            raise ConfineError(f"cgroup: {error}") from None

    def describe(self) -> str:
        return describe(self.mode, bool(self.cgroups), self.owner)

    def command(
        self, argv: list[str], public_root: Path | None, masked: Iterable[str] = ()
    ) -> list[str]:
        shown = visible(public_root, masked=masked)
        launcher = _launcher(self.root, self.work, self.owner, self.memory_mb, shown)
        argv = [os.path.realpath(argv[0]), *argv[1:]]
        if self.cgroups:
            join = 'while [ "$1" != -- ]; do echo $$ > "$1"; shift; done; shift; exec "$@"'
            procs = [str(folder / "cgroup.procs") for folder in self.cgroups.values()]
            launcher = ["/bin/sh", "-c", join, "mcts-join", *procs, "--", *launcher]
        return _dies_with_this_thread() + launcher + argv

    # -- between questions, and at the end ---------------------------------------------------
    def _freezer(self) -> Path | None:
        return self.cgroups.get("freezer")

    def freeze(self) -> bool:
        """Stop every process of the submission (also those that left its process group);
        False if there is no freezer or it did not take within a second."""
        folder = self._freezer()
        if folder is None:
            return False
        try:
            (folder / "freezer.state").write_text("FROZEN")
            for k in range(2000):
                if (folder / "freezer.state").read_text().strip() == "FROZEN":
                    return True
                time.sleep(0.0001 if k < 100 else 0.001)
        except OSError:
            pass
        return False

    def thaw(self) -> None:
        folder = self._freezer()
        if folder is not None:
            try:
                (folder / "freezer.state").write_text("THAWED")
            except OSError:
                pass

    def cpu_seconds(self) -> float | None:
        """CPU seconds used so far by every process of the submission together (None without
        a cpuacct cgroup)."""
        folder = self.cgroups.get("cpuacct")
        if folder is None:
            return None
        try:
            return int((folder / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def watch_cpu(self, cap: float, every: float = 0.1) -> None:
        """Kill every process of the submission as soon as together they have used more than
        ``cap`` CPU seconds (``cpu_exceeded`` then holds the seconds seen), whenever that
        happens: a detached daemon burns CPU while the grader waits, not only when a question is
        answered.  A thread of the grader's reads ``cpuacct.usage`` every ``every`` seconds
        until :meth:`close`; nothing without a cpuacct cgroup."""
        if "cpuacct" not in self.cgroups:
            return
        stop = self._watching = threading.Event()

        def watch() -> None:
            while not stop.wait(every):
                used = self.cpu_seconds()
                if used is None:  # closed
                    return
                if used > cap:
                    self.cpu_exceeded = used
                    self.kill()
                    return

        threading.Thread(target=watch, name="mcts-cpu-watch", daemon=True).start()

    def pids(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.cgroups.values():
            try:
                pids.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def oom_killed_from_outside(self) -> bool:
        """Whether an out-of-memory killer above the submission's own memory limit (the
        machine's, a container's) may have killed one of its processes, any of them: a pool's
        worker killed so failed a test of a run graded as if its code had (red team 41, 06).
        With a memory cgroup: a kill in it (``oom_kill`` counts every kill, whatever limit
        caused it) while its own limit was never reached (:meth:`memory_limit_reached`);
        without one (a teaching assistant's sandbox, whose RLIMIT_AS kills nothing): any kill
        on the machine since the sandbox was made, which cannot tell whose process it was."""
        memory = self.cgroups.get("memory")
        if memory is None:  # (a closed cage's cgroups are gone: it has no count to compare)
            now = machine_oom_kills()
            return (
                now is not None
                and self.machine_oom_kills is not None
                and (now > self.machine_oom_kills)
            )
        try:
            kills = _counter((memory / "memory.oom_control").read_text(), "oom_kill")
        except (OSError, ValueError):
            return False
        return kills > 0 and not self.memory_limit_reached()

    def memory_limit_reached(self) -> bool:
        """Whether the submission's own memory limit was ever reached: its memory cgroup's
        ``failcnt`` (which recent kernels no longer count), or its peak usage within
        :data:`LIMIT_SLACK` of its limit, for memory or for memory and swap together (a limit
        above its own counts in that cgroup, and keeps this one's peak below its limit); True
        when unknown."""
        memory = self.cgroups.get("memory")
        if memory is None:
            return True
        seen = False
        for prefix in ("memory.", "memory.memsw."):
            try:
                failed = int((memory / f"{prefix}failcnt").read_text())
                peak = int((memory / f"{prefix}max_usage_in_bytes").read_text())
                limit = int((memory / f"{prefix}limit_in_bytes").read_text())
            except FileNotFoundError:
                continue  # no swap accounting
            except (OSError, ValueError):
                return True
            seen = True
            if failed > 0 or peak >= limit - LIMIT_SLACK:
                return True
        return not seen

    def kill(self) -> None:
        """Kill every process of the cgroups (the pid namespace dies with its first process
        anyway; this also covers a launcher killed before it made the namespace)."""
        if not self.cgroups:
            return
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            self.thaw()  # a frozen process dies only once thawed
            time.sleep(0.005)

    def close(self) -> None:
        if self._watching is not None:
            self._watching.set()
        self.kill()
        for folder in self.cgroups.values():
            for _ in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)
        self.cgroups = {}
        for fd in getattr(self, "locks", []):
            os.close(fd)  # after the folders are gone: no sweep finds them unlocked
        self.locks = []


def _counter(text: str, name: str) -> int:
    """The number after ``name`` on its line of a kernel's counters file (``/proc/vmstat``,
    ``memory.oom_control``); ValueError when there is none."""
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            return int(value)
    raise ValueError(f"no {name}")


def machine_oom_kills() -> int | None:
    """How many processes the kernel's out-of-memory killers killed on this machine since it
    started (every limit's: the machine's, a container's, a cgroup's), or None."""
    try:
        with open("/proc/vmstat") as f:
            return _counter(f.read(), "oom_kill")
    except (OSError, ValueError):
        return None


# Bytes below its limit at which a memory cgroup's peak usage counts as the limit reached (the
# kernel charges pages in batches, and reclaims before it kills).
LIMIT_SLACK = 1 << 20
STALE = re.compile(r"mcts-(\d+)-box-[A-Za-z0-9_]+")  # a Cage's cgroup: its grader's pid first
GRACE = leftovers.GRACE  # seconds: a cgroup younger than this may be between mkdir and lock


def _hold(folder: Path) -> int:
    """An open descriptor of ``folder`` holding an exclusive flock on it.  The kernel drops the
    lock when the last descriptor closes, that is when the grader ends, however it ends (a
    SIGKILL too): a cgroup whose lock can be taken has no grader left, in any pid namespace."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return fd


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _orphaned(folder: Path) -> int | None:
    """A descriptor holding ``folder``'s lock if the cgroup is proved a leftover (its lock is
    free and it is older than GRACE), else None.  A pid alone proves nothing: a grader in
    another pid namespace sharing this hierarchy has a pid that does not exist here (red team
    8's attack 08), and a pid may have been reused."""
    try:
        fd = _hold(folder)
    except OSError:  # held: its grader lives (here or in another namespace), or it is gone
        return None
    try:
        if time.time() - os.fstat(fd).st_ctime >= GRACE:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def remove_stale() -> list[str]:
    """Remove the cgroups of graders that died without closing them (SIGKILL, a crash): their
    processes (frozen between questions, or daemons) are killed, their folders removed.  Only a
    cgroup whose lock this grader can take is touched (see :func:`_orphaned`): one whose
    grader still runs (another batch on this machine, or in a container sharing the cgroups)
    is left alone.  Returns the names whose folders are gone."""
    found: dict[str, list[Path]] = {}
    held: list[int] = []
    try:
        for controller in CONTROLLERS:
            parent = _own_cgroup(controller)
            if parent is None:
                continue
            try:
                children = list(parent.iterdir())
            except OSError:
                continue
            for folder in children:
                match = STALE.fullmatch(folder.name)
                if not match or not folder.is_dir() or _alive(int(match.group(1))):
                    continue
                fd = _orphaned(folder)
                if fd is not None:
                    held.append(fd)  # held while its processes are killed and it is removed
                    found.setdefault(folder.name, []).append(folder)
        for folders in found.values():
            stale = object.__new__(Cage)  # only its cgroups: kill() and close() need nothing else
            stale._watching = None
            stale.locks = []
            stale.cgroups = {str(i): folder for i, folder in enumerate(folders)}
            freezers = [f for f in folders if (f / "freezer.state").exists()]
            if freezers:
                stale.cgroups["freezer"] = freezers[0]
            Cage.close(stale)
    finally:
        for fd in held:
            os.close(fd)
    # what is gone, not what was tried: the kernel may still be tearing a cgroup down when
    # close gives up on it (a full test run saw one a moment later); the next sweep retries it
    return sorted(name for name, folders in found.items() if not any(f.exists() for f in folders))


@functools.lru_cache(maxsize=1)
def remove_stale_once() -> None:
    """:func:`remove_stale` at a grader's first sandbox (its start)."""
    remove_stale()


def describe(mode_name: str, cgroups: bool, owner: int | None) -> str:
    """One line saying how a student's process is confined."""
    from mcts_course.grading.kernel import SUMMARY

    names = ", ".join(NAMESPACES)
    if mode_name == "namespaces":
        text = f"namespaces ({names}), private tmpfs folders, no network"
        text += ", cgroup (memory, pids, cpu, cpuacct, freezer)" if cgroups else ", rlimits"
        return text + (f", user id {owner}" if owner is not None else "") + f", {SUMMARY}"
    if mode_name == "userns":
        return (
            f"user namespace ({names}), private tmpfs folders, no network, "
            f"rlimits (no cgroup: memory per process, processes per user), {SUMMARY}"
        )
    return mode_name
