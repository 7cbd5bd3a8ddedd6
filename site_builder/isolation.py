"""How runs are isolated on this machine, and the bubblewrap command line that isolates one.

Every program started on the archive's behalf runs under bubblewrap (``bwrap``, the sandbox
Flatpak uses) with:

- its own PID, network (no interfaces), IPC, UTS and cgroup namespaces, a private ``/proc``, a
  minimal ``/dev``, its whole process tree killed with it;
- a read-only view of the toolchains alone (``/usr``, the links and libraries beside it, a few
  files of ``/etc``, and the interpreter folders the builder names), its inputs copied into a
  size-capped tmpfs that is its working folder and ``/tmp``, another for ``/dev/shm``, and a
  read-only root: nothing of the project, the caches, the output, the archive or any home folder;
- no capabilities in any namespace and ``no_new_privs``: as root, bubblewrap drops to ``nobody``
  (65534) before the program starts; as another user, the program keeps that user's id in a user
  namespace of its own that may not make another; a seccomp filter refuses new user namespaces.

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
NOBODY = 65534
# The files of /etc that programs read to start: the dynamic linker's cache, the alternatives' links.
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
TOP = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass(frozen=True, slots=True)
class Isolation:
    """``mode``: "root" (bubblewrap, dropping to nobody), "user" (bubblewrap in a user namespace) or "none"."""

    mode: str
    bwrap: str = ""
    setpriv: str = ""
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
    """What one run sees besides the toolchains; fd numbers are the run's own (0-2 are its streams)."""

    files: tuple[tuple[str, int, int], ...] = ()  # name in the working folder, fd to copy from, mode
    binds: tuple[tuple[str, str], ...] = ()  # host path, path in the sandbox (read-only)
    dirs: tuple[str, ...] = ()  # writable folders in the working folder
    scratch: int = 64 << 20  # bytes in the working folder's tmpfs, and in /dev/shm's
    seccomp_fd: int = -1


def command(isolation: Isolation, argv: list[str], spec: Spec) -> list[str]:
    """The command line that runs ``argv`` in the working folder under ``isolation``."""
    args = [isolation.bwrap, *_namespaces(isolation), "--die-with-parent", "--new-session"]
    args += _system()
    args += ["--proc", "/proc", "--dev", "/dev"]
    for where in (WORK, "/dev/shm"):
        args += ["--perms", "1777", "--size", str(spec.scratch), "--tmpfs", where]
    made = {"/", WORK, "/usr", "/dev", "/proc"}
    for host, inside in spec.binds:
        args += [*_parents(inside, made), "--ro-bind", host, inside]
    for name, fd, mode in spec.files:
        args += [*_parents(f"{WORK}/{name}", made), "--perms", f"{mode:o}", "--file", str(fd), f"{WORK}/{name}"]
    for name in spec.dirs:
        args += [*_parents(f"{WORK}/{name}", made), "--perms", "0777", "--dir", f"{WORK}/{name}"]
    args += ["--chdir", WORK, "--remount-ro", "/"]
    if spec.seccomp_fd >= 0:
        args += ["--seccomp", str(spec.seccomp_fd)]
    args.append("--")
    if isolation.mode == "root":
        args += [isolation.setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        args += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    return args + argv


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
    if isolation.mode == "root":  # bubblewrap as root: capabilities for setpriv alone, then none
        return [
            *shared,
            "--cap-drop",
            "ALL",
            *(f for c in ("SETUID", "SETGID", "SETPCAP") for f in ("--cap-add", f"CAP_{c}")),
        ]
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
    setpriv = shutil.which("setpriv") or ""
    if os.geteuid() == 0 and not setpriv:
        return Isolation("none", reason="setpriv (util-linux) is not installed, so runs cannot drop root")
    found = Isolation("root" if os.geteuid() == 0 else "user", bwrap, setpriv)
    problem = _probe(found)
    return Isolation("none", reason=f"bubblewrap cannot start a sandbox here: {problem}") if problem else found


def _probe(isolation: Isolation) -> str:
    """Why a sandboxed ``true`` does not run here, or ""."""
    read, write = os.pipe()
    try:
        os.write(write, seccomp.no_user_namespaces())
        os.close(write)
        write = -1
        spec = Spec(seccomp_fd=read)
        done = subprocess.run(
            command(isolation, ["true"], spec),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
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
