"""Running one untrusted program under limits: the only place that starts solver and checker processes.

Each run gets a fresh temporary working directory, a minimal environment, resource limits
(CPU, address space, file size, core dumps, processes) and a wall-clock deadline; it is killed
together with everything it started. On Linux, where namespaces work, the run also gets its own
PID namespace (every descendant dies with it), an empty network namespace, and a mount namespace
in which the project folders are read-only. As root, a pids cgroup caps its processes.

Runs are started by launchers (``launcher.py``): small processes kept for the whole build, one per
thread that runs programs, which set all of that up in a fork of themselves.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import marshal
import os
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

MiB = 1024 * 1024
KILL = b"kill"  # launcher.KILL: stop the current run


@dataclass(frozen=True, slots=True)
class Limits:
    wall: float = 10.0  # seconds
    memory: int = 1024 * MiB  # address space, bytes
    output: int = 16 * MiB  # bytes of stdout read before the run is stopped
    processes: int = 16  # besides the program itself (enforced for non-root users)
    file_size: int = 16 * MiB  # largest file the program may write (stderr is a file)

    @property
    def cpu(self) -> int:
        return int(self.wall) + 1


@dataclass(frozen=True, slots=True)
class RunResult:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    wall: float
    cpu: float
    stdout: bytes
    stderr: str  # the last few KB
    timed_out: bool
    output_exceeded: bool


@lru_cache(maxsize=1)
def pids_controller() -> Path | None:
    """The cgroup (v1) pids controller, where this process may create groups (root only)."""
    base = Path("/sys/fs/cgroup/pids")
    if os.geteuid() != 0 or not (base / "cgroup.procs").exists():
        return None
    probe = base / f"site-builder-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return None
    for stale in base.glob("site-builder-*-*"):  # left by a build that was killed
        owner = stale.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            _remove_group(stale)
    return base


_GROUPS = itertools.count()


def _make_group(processes: int) -> Path | None:
    """A pids cgroup for one launcher: it caps a run's processes and threads (root ignores RLIMIT_NPROC)."""
    base = pids_controller()
    if base is None:
        return None
    group = base / f"site-builder-{os.getpid()}-{next(_GROUPS)}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(f"{processes}\n")
    except OSError:
        return None
    return group


def _remove_group(group: Path) -> None:
    """Kill whatever is left in the group, then remove it (the kernel needs a moment after the kills)."""
    for _ in range(50):
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.01)


class LauncherError(OSError):
    """The launcher process failed or stopped answering (a bug, or the machine is out of processes)."""


class Launcher:
    """One launcher process (``launcher.py``), which starts runs one at a time, with its cgroup as root.

    A run in a launcher's cgroup may have ``processes`` tasks besides its program, as the cgroup
    also holds the launcher and the run's keeper.
    """

    def __init__(self, processes: int, namespaces: bool = True) -> None:
        self.processes = processes
        self.group = _make_group(processes + 3)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-I", "-S", str(Path(__file__).with_name("launcher.py")), str(theirs.fileno())]
        argv += ["--cgroup", str(self.group)] if self.group else []
        self.process = subprocess.Popen(
            [*argv, *([] if namespaces else ["--no-namespaces"])],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        theirs.close()
        self.sock = ours
        try:
            self.isolated = bool(self._receive(30.0)["isolated"])
        except BaseException:
            self.close()
            raise

    def start(self, request: dict[str, Any], fds: list[int], processes: int) -> None:
        """Start one run with at most ``processes`` besides its program; ``fds``: its stdin, stdout, stderr."""
        if processes != self.processes and self.group is not None:
            (self.group / "pids.max").write_text(f"{processes + 3}\n")
            self.processes = processes
        try:
            socket.send_fds(self.sock, [marshal.dumps(request)], fds)
        except OSError as error:
            raise LauncherError(f"the sandbox's launcher has gone: {error}") from error
        answer = self._receive(10.0)
        if "error" in answer:
            raise LauncherError(f"the sandbox's launcher could not start {request['argv']}: {answer['error']}")

    def follow(self, stdout: int, limits: Limits, started: float) -> _Ended:
        """Read standard output until the launcher reports the end; stop the run when it must be stopped."""
        chunks: list[bytes] = []
        size = 0
        ended = _Ended()
        deadline = started + limits.wall
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            selector.register(self.sock, selectors.EVENT_READ)
            while len(selector.get_map()):
                events = selector.select(timeout=max(0.0, deadline - time.perf_counter()))
                if not events and time.perf_counter() >= deadline:
                    if ended.stopped:
                        raise LauncherError("the sandbox's launcher did not end a run it was told to stop")
                    ended.timed_out = self._stop(ended)
                    deadline = time.perf_counter() + 10.0
                for key, _ in events:
                    if key.fileobj is self.sock:
                        ended.status, ended.cpu = self._end()
                        selector.unregister(self.sock)
                        continue
                    chunk = os.read(stdout, 1 << 16)
                    if not chunk:
                        selector.unregister(stdout)
                    elif not ended.stopped:
                        chunks.append(chunk)
                        size += len(chunk)
                        if size > limits.output:
                            ended.output_exceeded = self._stop(ended)
                            deadline = time.perf_counter() + 10.0
        ended.stdout = b"".join(chunks)[: limits.output]
        return ended

    def _stop(self, ended: _Ended) -> bool:
        ended.stopped = True
        with contextlib.suppress(OSError):
            self.sock.send(KILL)
        return True

    def _end(self) -> tuple[int, float]:
        message = self._receive(0.0)
        return int(message["status"]), float(message["cpu"])

    def _receive(self, timeout: float) -> dict[str, Any]:
        self.sock.settimeout(timeout or None)
        try:
            data = self.sock.recv(1 << 16)
        except OSError as error:
            raise LauncherError(f"the sandbox's launcher did not answer: {error}") from error
        finally:
            self.sock.settimeout(None)
        if not data:
            raise LauncherError(f"the sandbox's launcher has gone (exit code {self.process.poll()})")
        message: dict[str, Any] = marshal.loads(data)
        return message

    def close(self) -> None:
        """End the launcher (it stops when its socket closes) and remove its cgroup."""
        self.sock.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.group is not None:
            _remove_group(self.group)


@dataclass(slots=True)
class _Ended:
    """How a run ended, as the launcher and the standard output told it."""

    status: int = 0
    cpu: float = 0.0
    stdout: bytes = b""
    stopped: bool = False
    timed_out: bool = False
    output_exceeded: bool = False


class _Launchers:
    """Idle launchers, reused by whichever thread runs next; closed when the program exits."""

    def __init__(self, namespaces: bool = True) -> None:
        self.namespaces = namespaces  # False: as where namespaces are not available (tests)
        self.lock = threading.Lock()
        self.idle: list[Launcher] = []
        self.started: list[Launcher] = []
        atexit.register(self.close)

    @contextlib.contextmanager
    def borrow(self, limits: Limits) -> Iterator[Launcher]:
        with self.lock:
            launcher = self.idle.pop() if self.idle else None
        if launcher is not None and launcher.process.poll() is not None:
            self._drop(launcher)  # it died while idle (killed from outside)
            launcher = None
        if launcher is None:
            launcher = Launcher(limits.processes, self.namespaces)
            with self.lock:
                self.started.append(launcher)
        try:
            yield launcher
        except BaseException:
            self._drop(launcher)  # it may be in the middle of a run
            raise
        with self.lock:
            self.idle.append(launcher)

    def _drop(self, launcher: Launcher) -> None:
        with self.lock:
            self.started.remove(launcher)
        launcher.close()

    def close(self) -> None:
        with self.lock:
            launchers, self.started, self.idle = self.started, [], []
        for launcher in launchers:
            launcher.close()


_LAUNCHERS = _Launchers()


def isolated() -> bool:
    """Whether runs here get their own namespaces (and so no network and read-only project folders)."""
    with _LAUNCHERS.borrow(Limits()) as launcher:
        return launcher.isolated


def _rlimits(limits: Limits, isolated: bool) -> list[tuple[int, int]]:
    rlimits = [
        (resource.RLIMIT_CPU, limits.cpu),
        (resource.RLIMIT_AS, limits.memory),
        (resource.RLIMIT_FSIZE, limits.file_size),
        (resource.RLIMIT_CORE, 0),
    ]
    if os.geteuid() != 0 or not isolated:
        rlimits.append((resource.RLIMIT_NPROC, limits.processes + _running_processes()))
    return rlimits


@lru_cache(maxsize=16)
def _mounts(read_only: tuple[Path, ...]) -> tuple[str, ...]:
    """The folders to make read-only; never one that holds the working directories, which must stay writable."""
    runs_in = Path(tempfile.gettempdir()).resolve()
    return tuple(str(p) for p in read_only if p.is_dir() and not runs_in.is_relative_to(p.resolve()))


def run(
    argv: list[str],
    stdin: Path | None,
    limits: Limits,
    *,
    files: dict[str, bytes] | None = None,
    read_only: tuple[Path, ...] = (),
    stdin_file: str | None = None,
) -> tuple[RunResult, Path]:
    """Run ``argv`` in a fresh working directory holding ``files``; returns the result and the directory.

    Standard input comes from ``stdin`` or from ``stdin_file``, one of ``files``. The caller removes
    the directory (``cleanup``) after reading anything the program wrote.
    """
    workdir = Path(tempfile.mkdtemp(prefix="site-builder-run-"))
    for name, data in (files or {}).items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if stdin_file is not None:
        stdin = workdir / stdin_file
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    stderr_path = workdir / ".stderr"
    with _LAUNCHERS.borrow(limits) as launcher:
        request = {
            "argv": argv,
            "cwd": str(workdir),
            "env": env,
            "rlimits": _rlimits(limits, launcher.isolated),
            "read_only": _mounts(read_only) if launcher.isolated else (),
        }
        read_end, write_end = os.pipe()
        try:
            with open(stdin or os.devnull, "rb") as given, open(stderr_path, "wb") as err:
                started = time.perf_counter()
                try:
                    launcher.start(request, [given.fileno(), write_end, err.fileno()], limits.processes)
                finally:
                    os.close(write_end)  # the program holds the only writing end left
            ended = launcher.follow(read_end, limits, started)
        finally:
            os.close(read_end)
        wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(ended.status)
    result = RunResult(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        wall=wall,
        cpu=ended.cpu,
        stdout=ended.stdout,
        stderr=_tail(stderr_path),
        timed_out=ended.timed_out,
        output_exceeded=ended.output_exceeded,
    )
    return result, workdir


def cleanup(workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)


def _tail(path: Path, size: int = 8192) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, path.stat().st_size - size))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _running_processes() -> int:
    """Processes this user already has, so that RLIMIT_NPROC (a per-user count) leaves room for a few more."""
    uid = os.geteuid()
    count = 0
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count
