"""How runs are isolated on this machine, and the bubblewrap command line that makes a sandbox.

Every program started on the archive's behalf runs in a sandbox made by bubblewrap (``bwrap``,
the sandbox Flatpak uses). Each launcher keeps one, with ``launcher.py --inside`` as its first
process, which starts the runs one at a time (``launcher.py`` says how a run is kept apart from
the next). A sandbox has:

- its own PID, network (loopback only), IPC, UTS and cgroup namespaces, a private ``/proc``, a
  read-only ``/dev`` with the five devices programs use (``null``, ``zero``, ``full``, ``random``,
  ``urandom``) and the links to a process's descriptors (``fd``, ``stdin``...); everything in it
  dies with it;
- a read-only view of the toolchains alone (``/usr``, the links and libraries beside it, a few
  files of ``/etc``, and the interpreter folders the builder names) and a read-only root: nothing
  of the project, the caches, the output, the archive or any home folder;
- two places a run may write (``SCRATCH``): the working folder ``/tmp`` and ``/dev/shm``, each a
  tmpfs capped in bytes and in files, replaced by a fresh one after every run (``launcher.py``);
- no capabilities in any namespace and ``no_new_privs``: as root, the first process becomes
  ``nobody`` (65534) with an empty bounding set before it starts any run; as another user, runs
  keep that user's id in a user namespace of its own that may not make another; a seccomp filter
  (``seccomp.py``) refuses new user namespaces and System V IPC.

Where bubblewrap is missing or cannot start (no user namespaces for an ordinary user), runs are
not isolated: the build says so at its start, and ``--strict`` refuses to run anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import seccomp

WORK = "/tmp"  # the run's working folder: its own tmpfs
# Every place a run can write: a tmpfs each, replaced after every run, and counted in its memory.
SCRATCH = (WORK, "/dev/shm")
DEVICES = ("null", "zero", "full", "random", "urandom")  # shown read-write, as the host has them
DEV_LINKS = (
    ("/proc/self/fd", "/dev/fd"),
    ("/proc/self/fd/0", "/dev/stdin"),
    ("/proc/self/fd/1", "/dev/stdout"),
    ("/proc/self/fd/2", "/dev/stderr"),
)
# Where the sandbox shows a host path that lies in a place it makes its own (SCRATCH): a builder or
# an interpreter installed under /tmp is shown under /run/host/tmp.
HOST = "/run/host"
NOBODY = 65534
# The files of /etc that programs read to start: the dynamic linker's cache, the alternatives' links.
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
TOP = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
PROBE_TIMEOUT = 30.0  # seconds a sandboxed ``true`` may take to start and end before the sandbox is judged broken


@dataclass(frozen=True, slots=True)
class Isolation:
    """``mode``: "root" (bubblewrap, dropping to nobody), "user" (bubblewrap in a user namespace) or "none"."""

    mode: str
    bwrap: str = ""
    reason: str = ""  # why runs are not isolated

    @property
    def isolated(self) -> bool:
        return self.mode != "none"

    def describe(self) -> str:
        if self.mode == "root":
            return "bubblewrap, as nobody (65534), no network, read-only toolchains, private tmpfs"
        if self.mode == "user":
            return f"bubblewrap, uid {os.getuid()} in a user namespace, no network, read-only toolchains, private tmpfs"
        return f"NONE: {self.reason}; runs have this user's rights, its files and the network"


@dataclass(frozen=True, slots=True)
class Spec:
    """What a sandbox shows besides the toolchains; fd numbers are its own (0-2 are its streams)."""

    binds: tuple[tuple[str, str], ...] = ()  # host path, path in the sandbox (read-only)
    links: tuple[tuple[str, str], ...] = ()  # target, absolute path of a symbolic link to make
    made: tuple[tuple[str, int], ...] = ()  # absolute path of a read-only file to make, fd to copy from
    dirs: tuple[str, ...] = ()  # absolute paths of read-only folders to make
    scratch: int = 64 << 20  # bytes in each tmpfs of SCRATCH
    seccomp_fd: int = -1


def command(isolation: Isolation, argv: list[str], spec: Spec) -> list[str]:
    """The command line that runs ``argv`` as the first process of a new sandbox, in ``WORK``.

    As root the process starts as root, with the capabilities to change its ids and drop the
    others (``launcher.py --inside`` becomes nobody first thing); otherwise with none."""
    args = [isolation.bwrap, *_namespaces(isolation), "--die-with-parent", "--new-session", "--as-pid-1"]
    args += _system()
    args += ["--proc", "/proc", "--perms", "0755", "--tmpfs", "/dev"]
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for target, path in DEV_LINKS:
        args += ["--symlink", target, path]
    for where in SCRATCH:
        args += ["--perms", "1777", "--size", str(spec.scratch), "--tmpfs", where]
    made = {"/", WORK, "/usr", "/dev", "/proc", "/dev/shm", "/etc"}
    for host, inside in spec.binds:
        inside = shown_at(inside)
        args += [*_parents(inside, made), "--ro-bind", host, inside]
    for target, path in spec.links:
        path = shown_at(path)
        args += [*_parents(path, made), "--symlink", shown_at(target), path]
    for path, fd in spec.made:
        path = shown_at(path)
        args += [*_parents(path, made), "--perms", "0444", "--file", str(fd), path]
    for path in spec.dirs:
        path = shown_at(path)
        args += [*_parents(path + "/", made), "--perms", "0755", "--dir", path]
    args += ["--chdir", "/", "--remount-ro", "/dev", "--remount-ro", "/"]
    if spec.seccomp_fd >= 0:
        args += ["--seccomp", str(spec.seccomp_fd)]
    return [*args, "--", *shown_args(argv, spec.binds)]


def shown_at(path: str) -> str:
    """Where the sandbox shows what it is told to show at ``path``: there, or under ``HOST`` when
    ``path`` lies in a place the sandbox makes its own and replaces after every run (SCRATCH), as
    a builder installed in a virtual environment under ``/tmp`` does. Nothing is shown in ``/dev``
    or ``/proc``."""
    for top in SCRATCH:
        if path == top or path.startswith(top + "/"):
            return HOST + path
    for top in ("/dev", "/proc"):
        if path == top or path.startswith(top + "/"):
            raise ValueError(f"the sandbox cannot show anything at {path}: {top} is the sandbox's own")
    return path


def shown_args(argv: list[str], binds: tuple[tuple[str, str], ...]) -> list[str]:
    """``argv`` with each path into a bound folder that the sandbox shows elsewhere (``shown_at``)
    written as the sandbox shows it."""
    moved = [(inside, shown_at(inside)) for _, inside in binds if shown_at(inside) != inside]
    if not moved:
        return argv
    shown = []
    for arg in argv:
        for inside, where in moved:
            if arg == inside or arg.startswith(inside + "/"):
                arg = where + arg[len(inside) :]
                break
        shown.append(arg)
    return shown


def scratch_options(size: int) -> str:
    """The mount options of each tmpfs of SCRATCH: ``size`` bytes, and a file (inode) per 8 KiB
    of them, at least 1,024 (a file of a tmpfs takes kernel memory that no byte limit counts)."""
    return f"mode=1777,size={size},nr_inodes={max(1024, size // 8192)}"


def _parents(path: str, made: set[str]) -> list[str]:
    """Make the folders above ``path`` readable by all (bubblewrap makes them 0700, which nobody cannot enter)."""
    args: list[str] = []
    for parent in reversed(Path(path).parents):
        if str(parent) not in made:
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _namespaces(isolation: Isolation) -> list[str]:
    shared = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if isolation.mode == "root":  # bubblewrap as root: capabilities to become nobody, then none
        adds = [f for cap in ("SETUID", "SETGID", "SETPCAP") for f in ("--cap-add", f"CAP_{cap}")]
        return [*shared, "--cap-drop", "ALL", *adds]
    return ["--unshare-user", "--disable-userns", *shared, "--cap-drop", "ALL"]


@lru_cache(maxsize=1)
def _system() -> tuple[str, ...]:
    """The toolchains, read-only: ``/usr``, the top-level links or folders beside it, a few of ``/etc``."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in TOP:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC:
        if (Path("/etc") / name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    return tuple(args)


@lru_cache(maxsize=1)
def detect() -> Isolation:
    """The isolation this machine gives runs, tried once with a program that must start."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Isolation("none", reason="bubblewrap (bwrap) is not installed; apt-get install bubblewrap")
    if not seccomp.supported():
        return Isolation("none", reason=f"no seccomp filter for this machine ({os.uname().machine})")
    found = Isolation("root" if os.geteuid() == 0 else "user", bwrap)
    problem = _probe(found)
    return Isolation("none", reason=f"bubblewrap cannot start a sandbox here: {problem}") if problem else found


def _probe(isolation: Isolation) -> str:
    """Why a sandboxed ``true`` does not run here, or ""."""
    read, write = os.pipe()
    try:
        os.write(write, seccomp.sandbox_filter())
        os.close(write)
        write = -1
        spec = Spec(seccomp_fd=read)
        done = subprocess.run(
            command(isolation, ["true"], spec),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            pass_fds=(read,),
            env={"PATH": "/usr/bin:/bin"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
