"""Running one untrusted program under limits: the only place that starts archive code.

Solvers, checkers, output validators, compilers and git all run through ``run``: under bubblewrap
where this machine allows it (``isolation.py`` says what a run sees), with a minimal environment,
rlimits (CPU, address space, file size, core dumps, processes), a cgroup capping processes and
memory as root, and a wall-clock deadline; it is killed together with everything it started.
Its result has both clocks: the wall time the builder saw, and the CPU time of its every process
(the launcher's reaped children), which is what a judge limits and what a busy machine does not
inflate.

The builder reads a run's results from pipes alone: standard output, the end of standard error,
and ``collect``, one file of the working folder that a wrapper inside the sandbox copies to a pipe
after the program ends. Nothing is read back from a place a run could write.

Runs are started by launchers (``launcher.py``): small processes kept for the whole build, one per
thread that runs programs, so that a run costs a fork of a small process. A launcher (or its
sandbox) that ends during a run ends that run too: the run is reported killed, with the reason at
the end of its standard error, and the next run gets a new launcher. One found gone when a run
starts is replaced, and the run started again, once.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import math
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import cgroup, isolation, seccomp, stopping
from .descriptors import _close, _memfd, _pipe, _safe_name, _workdir
from .isolation import Isolation, Spec
from .stopping import RunStopped

MiB = 1024 * 1024
KILL = b"kill"  # launcher.KILL: stop the current run
STDERR_KEPT = 8192
SANDBOX_START = 30.0  # seconds a new sandbox may take to say it is ready
# The wrapper that copies a file of the working folder to descriptor 3 once the program has ended.
COLLECT = '"$@"; s=$?; cat -- "$0" >&3 2>/dev/null; exit $s'
# The same for a folder (``collect`` ending in "/"): its files as a tar archive, read in memory only.
COLLECT_FOLDER = '"$@"; s=$?; tar -C "$0" -cf - . >&3 2>/dev/null; exit $s'
# For a program whose standard streams are another program's pipes: the shell hands them over and
# lets go of its own copies, so that the other side sees the end of input when this program closes
# its output (an interactive validator that ends the conversation), not only when the shell ends.
COLLECT_APART = (
    'exec 4<&0 5>&1 0</dev/null 1>/dev/null; "$@" <&4 >&5 4<&- 5>&- & p=$!; exec 4<&- 5>&-; '
    'wait $p; s=$?; cat -- "$0" >&3 2>/dev/null; exit $s'
)
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
}


@dataclass(frozen=True, slots=True)
class Limits:
    wall: float = 10.0  # seconds of wall-clock time before the builder stops the run (a backstop for one that waits)
    memory: int = 1024 * MiB  # address space, bytes
    output: int = 16 * MiB  # bytes of stdout (and of a collected file) read before the run is stopped
    processes: int = 16  # besides the program itself
    file_size: int = 16 * MiB  # largest file the program may write, and most standard error it may print
    scratch: int = 64 * MiB  # each tmpfs it can write (isolation.SCRATCH: its working folder, /dev/shm)
    address_space: bool = True  # limit the address space to ``memory`` (the JVM reserves far more than it uses)
    # The stack's limit (bytes): 0 leaves the usual 8 MiB. Judges give a solver's stack its whole memory
    # limit; Node, among others, fails to start with a stack limit as large as its address space.
    stack: int = 0
    # Seconds of CPU time at which each of its processes is stopped (RLIMIT_CPU, rounded up); 0: a
    # second more than ``wall``. What a run used in all is its result's ``cpu``.
    cpu: float = 0.0

    @property
    def cpu_seconds(self) -> int:
        return math.ceil(self.cpu) if self.cpu > 0 else int(self.wall) + 1


@dataclass(frozen=True, slots=True)
class RunResult:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    wall: float  # seconds from its start to its end, as the builder saw them
    cpu: float  # seconds of CPU time (user and system) of the run's every process: what judges limit
    stdout: bytes
    stderr: str  # the last few KB
    timed_out: bool
    output_exceeded: bool
    collected: bytes = b""  # the ``collect`` file, as the program left it ("" when there was none)
    ended: float = 0.0  # when the run ended (``time.perf_counter``): which of two ended first


@dataclass(frozen=True, slots=True)
class Toolchain:
    """What runs need besides ``/usr``: host folders or files shown read-only (host path, path in the
    sandbox), files (bytes) or symbolic links (a target) made at absolute paths outside the working
    folder, and empty read-only folders. Runs with the same toolchain share launchers."""

    binds: tuple[tuple[str, str], ...] = ()
    made: tuple[tuple[str, bytes | str], ...] = ()
    dirs: tuple[str, ...] = ()

    @staticmethod
    def showing(*folders: Path, made: tuple[tuple[str, bytes | str], ...] = ()) -> Toolchain:
        """Host folders shown read-only at their own paths (and ``made`` as above)."""
        return Toolchain(tuple((str(f), str(f)) for f in folders), made)


def interpreter_folders(interpreter: str) -> tuple[Path, ...]:
    """The folders outside ``/usr`` that ``interpreter`` needs to start: its prefix, and, for this
    build's own interpreter in a virtual environment, the environment's base."""
    real = Path(os.path.realpath(interpreter))
    prefixes = {real.parent.parent}
    if real == Path(os.path.realpath(sys.executable)):
        prefixes.add(Path(os.path.realpath(sys.base_prefix)))
    usr = Path("/usr")
    return tuple(sorted(p for p in prefixes if p != Path("/") and p != usr and not p.is_relative_to(usr)))


class LauncherError(OSError):
    """The launcher process failed or stopped answering (a bug, or the machine is out of processes)."""


class LauncherGone(LauncherError):
    """The launcher process, or the sandbox it keeps, has ended."""


def isolation_level() -> Isolation:
    """The isolation every run of this build gets (probed once)."""
    return isolation.detect() if _LAUNCHERS.namespaces else Isolation("none", reason="turned off")


def isolated() -> bool:
    """Whether runs here are sandboxed (bubblewrap: no network, nothing of the host's files)."""
    return isolation_level().isolated


def run(
    argv: list[str],
    stdin: bytes | None,
    limits: Limits,
    *,
    files: Mapping[str, bytes | tuple[bytes, int]] | None = None,
    toolchain: Toolchain = Toolchain(),
    dirs: tuple[str, ...] = (),
    collect: str | None = None,
    stdin_fd: int | None = None,
    stdout_fd: int | None = None,
    passed: tuple[int, ...] = (),
) -> RunResult:
    """Run ``argv`` in a fresh working folder holding ``files``: bytes, or (bytes, mode) such as a
    compiled program's ``(data, 0o555)``.

    ``toolchain``: an interpreter's or compiler's folders and files (ignored without isolation);
    ``dirs``: empty writable folders to make; ``collect``: a file of the working folder to return
    (``collected``). ``argv`` names files of the working folder as ``./name``. ``stdin_fd`` and
    ``stdout_fd``: pipes to use instead of ``stdin`` and the stdout the builder reads (another
    run's, for interactive problems); this call closes them. ``passed``: descriptors the program gets as
    4, 5, ... after its standard streams and descriptor 3 (``/dev/fd/4``...: a CMS communication task's
    FIFOs); the caller keeps and closes them.
    """
    if stopping.stopped():
        raise RunStopped
    level = isolation_level()
    if collect is not None:
        wrapper = COLLECT_FOLDER if collect.endswith("/") else COLLECT_APART if stdout_fd is not None else COLLECT
        argv = ["/bin/sh", "-c", wrapper, collect, *argv]
    named = {
        _safe_name(name): (data, 0o444) if isinstance(data, bytes) else data for name, data in (files or {}).items()
    }
    opened: list[int] = [fd for fd in (stdin_fd, stdout_fd) if fd is not None]  # each closed once
    try:
        if collect is not None and stdout_fd is not None and passed:
            # COLLECT_APART hands the streams over through descriptors 4 and 5, where these would go
            raise ValueError("a run on another run's pipes that collects a file takes no descriptors passed on")
        given = [stdin_fd if stdin_fd is not None else _memfd(stdin or b"", opened)]
        out_read, out_write = _pipe(opened) if stdout_fd is None else (-1, stdout_fd)
        err_read, err_write = _pipe(opened)
        col_read, col_write = _pipe(opened)
        given += [out_write, err_write, col_write, *passed]
        with contextlib.ExitStack() as stack:
            request: dict[str, Any] = {"argv": argv, "rlimits": _rlimits(limits), "streams": len(given)}
            if level.isolated:
                request["argv"] = isolation.shown_args(argv, (*_launcher_binds(), *toolchain.binds))
                request |= {"cwd": isolation.WORK, "env": {**ENV, "HOME": isolation.WORK, "TMPDIR": isolation.WORK}}
                request |= {
                    "files": [(name, mode) for name, (_, mode) in named.items()],
                    "dirs": [_safe_name(d) for d in dirs],
                }
                given += [_memfd(data, opened) for data, _ in named.values()]
            else:
                workdir = stack.enter_context(_workdir(named, dirs))
                request |= {"cwd": workdir, "env": {**ENV, "HOME": workdir, "TMPDIR": workdir}}
            key = (toolchain if level.isolated else Toolchain(), limits.scratch)
            streams = {out_read: limits.output, err_read: -limits.file_size, col_read: limits.output}
            streams.pop(-1, None)  # stdout goes to another run
            ended, wall = _launch(request, given, opened, limits, key, streams)
    finally:
        _close(list(opened), opened)
    if ended.interrupted:
        raise RunStopped
    return _result(ended, wall, (out_read, err_read, col_read), collect is not None)


def _launch(
    request: dict[str, Any],
    given: list[int],
    opened: list[int],
    limits: Limits,
    key: tuple[Toolchain, int],
    streams: dict[int, int],
) -> tuple[_Ended, float]:
    """Start the run on a launcher and follow it to its end; how it ended, and its wall time. A
    launcher found gone is replaced once; one that ends during the run is dropped, and the run
    reported as killed with it."""
    for attempt in range(2):
        with _LAUNCHERS.borrow(limits, key) as launcher:
            started = time.perf_counter()
            try:
                launcher.start(request, given, limits)
            except LauncherGone:
                launcher.broken = True
                if attempt:
                    raise
                continue
            _close(given, opened)  # the run holds the only writing ends left, so its pipes end with it
            ended = launcher.follow(streams, limits, started)
            launcher.broken = bool(ended.lost)
            return ended, time.perf_counter() - started
    raise AssertionError("unreachable")


def _result(ended: _Ended, wall: float, pipes: tuple[int, int, int], wrapped: bool) -> RunResult:
    """``wrapped``: the program ran under the collecting shell, which reports a program killed by
    signal N as exit code 128 + N."""
    out, err, collected = pipes
    code = os.waitstatus_to_exitcode(ended.status)
    signal_number = -code if code < 0 else (code - 128 if wrapped and 128 < code <= 128 + 64 else None)
    stderr = ended.read[err]
    if ended.lost:  # everything in the sandbox was killed with it
        signal_number = signal.SIGKILL
        stderr += f"\nsandbox: {ended.lost}; the run was killed with its sandbox\n".encode()
    return RunResult(
        exit_code=None if signal_number is not None else code,
        signal=signal_number,
        wall=wall,
        cpu=ended.cpu,
        stdout=ended.read.get(out, b""),
        stderr=stderr[-STDERR_KEPT:].decode("utf-8", "replace"),
        timed_out=ended.timed_out,
        output_exceeded=ended.output_exceeded,
        collected=ended.read[collected],
        ended=ended.at or time.perf_counter(),
    )


def _rlimits(limits: Limits) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for each rlimit of a run. CPU time: SIGXCPU at the limit, which ends the
    program (the kernel samples CPU time at each tick, a little ahead of what the run is then reported
    to have used), and SIGKILL a second later for one that ignores it, as problemtools sets it."""
    rlimits = [
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_FSIZE, limits.file_size, limits.file_size),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if limits.address_space:
        rlimits.append((resource.RLIMIT_AS, limits.memory, limits.memory))
    if limits.stack:
        rlimits.append((resource.RLIMIT_STACK, limits.stack, limits.stack))
    if os.geteuid() != 0:  # as root the cgroup counts processes (root, and nobody's other runs, would not fit)
        processes = limits.processes + _running_processes()
        rlimits.append((resource.RLIMIT_NPROC, processes, processes))
    return rlimits


LAUNCHER = Path(__file__).with_name("launcher.py")
INSIDE = "/opt/site-builder/launcher.py"  # where the sandbox shows it


class Launcher:
    """One launcher process (``launcher.py``), in its cgroup as root, and, where runs are isolated,
    the sandbox it keeps: bubblewrap, with ``launcher.py --inside`` as its first process, which
    starts the runs one at a time. ``key``: the toolchain the sandbox shows, and its scratch size."""

    def __init__(self, limits: Limits, key: tuple[Toolchain, int]) -> None:
        self.limits = limits
        self.broken = False  # it, or its sandbox, has ended or cannot be trusted with another run
        self.group = cgroup.make_group(*_group_limits(limits))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-I", "-S", str(LAUNCHER), str(theirs.fileno())]
        for folder in self.group.folders if self.group else ():
            argv += ["--cgroup", str(folder)]
        self.process = subprocess.Popen(
            argv, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        theirs.close()
        self.outer = self.sock = ours
        try:
            self._receive(30.0)
            level = isolation_level()
            if level.isolated:
                self.sock = self._sandbox(level, *key)
        except BaseException:
            self.close()
            raise

    def _sandbox(self, level: Isolation, toolchain: Toolchain, scratch: int) -> socket.socket:
        """Start the sandbox, as one long run of the outer launcher, which forks its renewer (given
        the other end of the inside launcher's ``--renewer`` socket); the socket to the launcher inside."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        renewer, renewed = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        opened: list[int] = []
        try:
            errors = _memfd(b"", opened)
            given = [_memfd(b"", opened), _memfd(b"", opened), errors, theirs.fileno(), renewed.fileno()]
            made, links = [], []
            for path, content in toolchain.made:
                if isinstance(content, str):
                    links.append((content, path))
                else:
                    given.append(_memfd(content, opened))
                    made.append((path, len(given) - 1))
            given.append(_memfd(seccomp.sandbox_filter(), opened))
            binds = dict.fromkeys((*_launcher_binds(), *toolchain.binds))
            spec = Spec(tuple(binds), tuple(links), tuple(made), toolchain.dirs, scratch, len(given) - 1)
            python = os.path.realpath(sys.executable)
            argv = isolation.command(level, [python, "-I", "-S", INSIDE, "3", "--inside", "--renewer", "4"], spec)
            request = {"argv": argv, "env": {"PATH": ENV["PATH"]}, "rlimits": [], "streams": len(given)}
            request["renew"] = {"paths": list(isolation.SCRATCH), "options": isolation.scratch_options(scratch)}
            self._send_run(request, [*given, renewer.fileno()])
            theirs.close()
            renewed.close()
            renewer.close()
            ours.settimeout(SANDBOX_START)
            late = ""  # said when the sandbox is still not ready: it hangs, rather than failed
            try:
                ready = ours.recv(1 << 16)
            except TimeoutError:
                ready, late = b"", f" within {SANDBOX_START:g} s"
            except OSError:
                ready = b""
            ours.settimeout(None)
            if not ready:
                os.lseek(errors, 0, os.SEEK_SET)
                why = os.read(errors, 4096).decode("utf-8", "replace").strip() or "no reason given"
                raise LauncherError(f"the sandbox did not start{late}: {why}")
            return ours
        except BaseException:
            ours.close()
            raise
        finally:
            for end in (theirs, renewer, renewed):
                end.close()
            _close(list(opened), opened)

    def start(self, request: dict[str, Any], fds: list[int], limits: Limits) -> None:
        """Start one run; ``fds`` become its descriptors 0, 1, 2, ... (the first ``streams`` of them)."""
        if _group_limits(limits) != _group_limits(self.limits) and self.group is not None:
            self.group.limit(*_group_limits(limits))
        self.limits = limits
        self._send_run(request, fds, self.sock)

    def _send_run(self, request: dict[str, Any], fds: list[int], sock: socket.socket | None = None) -> None:
        sock = sock or self.outer
        try:
            socket.send_fds(sock, [marshal.dumps(request)], fds)
        except OSError as error:
            raise LauncherGone(f"the sandbox's launcher has gone: {error}") from error
        answer = self._receive(10.0, sock)
        if "error" in answer:
            raise LauncherError(f"the sandbox's launcher could not start {request['argv'][0]}: {answer['error']}")

    def follow(self, streams: dict[int, int], limits: Limits, started: float) -> _Ended:
        """Read the run's pipes until the launcher reports the end; stop the run when it must be stopped.

        ``streams``: the most bytes to read from each pipe; a negative number keeps reading but
        stops the run past that many (standard error, of which the end is kept)."""
        ended = _Ended(read={fd: b"" for fd in streams})
        chunks: dict[int, list[bytes]] = {fd: [] for fd in streams}
        sizes = dict.fromkeys(streams, 0)
        deadline = started + limits.wall
        with selectors.DefaultSelector() as selector:
            for fd in streams:
                selector.register(fd, selectors.EVENT_READ)
            selector.register(self.sock, selectors.EVENT_READ)
            selector.register(stop := stopping.stop_signal(), selectors.EVENT_READ)  # Ctrl-C
            while len(watched := selector.get_map()) > (stop in watched):  # the pipes and the launcher
                events = selector.select(timeout=max(0.0, deadline - time.perf_counter()))
                if not events and time.perf_counter() >= deadline:
                    if ended.lost:
                        break
                    if ended.stopped:
                        ended.lost = "the sandbox's launcher did not end a run it was told to stop"
                        break
                    ended.timed_out = self._stop(ended)
                    deadline = time.perf_counter() + 10.0
                for key, _ in events:
                    if key.fileobj == stop:
                        selector.unregister(stop)
                        ended.interrupted = self._stop(ended)
                        deadline = time.perf_counter() + 10.0
                        continue
                    if key.fileobj is self.sock:
                        selector.unregister(self.sock)
                        try:
                            ended.status, ended.cpu, ended.at = self._end()
                        except LauncherError as error:  # what the run wrote until then is still read
                            ended.lost = str(error)
                            deadline = time.perf_counter() + 1.0
                        continue
                    fd = int(key.fd)
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        selector.unregister(fd)
                        continue
                    if ended.stopped:
                        continue
                    sizes[fd] += len(chunk)
                    chunks[fd].append(chunk)
                    if streams[fd] < 0 and sizes[fd] > 2 * STDERR_KEPT:  # keep only the end
                        kept = b"".join(chunks[fd])[-STDERR_KEPT:]
                        chunks[fd] = [kept]
                    if sizes[fd] > abs(streams[fd]):
                        ended.output_exceeded = self._stop(ended)
                        deadline = time.perf_counter() + 10.0
        for fd, cap in streams.items():
            ended.read[fd] = b"".join(chunks[fd])[: max(cap, 0) or None]
        return ended

    def _stop(self, ended: _Ended) -> bool:
        ended.stopped = True
        with contextlib.suppress(OSError):
            self.sock.send(KILL)
        return True

    def _end(self) -> tuple[int, float, float]:
        message = self._receive(0.0)
        return int(message["status"]), float(message["cpu"]), float(message.get("ended", time.perf_counter()))

    def _receive(self, timeout: float, sock: socket.socket | None = None) -> dict[str, Any]:
        sock = sock or self.sock
        sock.settimeout(timeout or None)
        try:
            data = sock.recv(1 << 16)
        except OSError as error:
            raise LauncherError(f"the sandbox's launcher did not answer: {error}") from error
        finally:
            sock.settimeout(None)
        if not data:
            code = self.process.poll()
            raise LauncherGone("the sandbox's launcher has gone" + (f" (exit code {code})" if code is not None else ""))
        message: dict[str, Any] = marshal.loads(data)
        return message

    def close(self) -> None:
        """End the sandbox and the launcher (each stops when its socket closes); remove the cgroup."""
        self.sock.close()
        self.outer.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.group is not None:
            self.group.remove()


@lru_cache(maxsize=1)
def _launcher_binds() -> tuple[tuple[str, str], ...]:
    """What the launcher inside needs shown: this interpreter's folders outside ``/usr``, and itself."""
    return (*Toolchain.showing(*interpreter_folders(sys.executable)).binds, (str(LAUNCHER), INSIDE))


def _group_limits(limits: Limits) -> tuple[int, int]:
    """A launcher's cgroup: the run's processes, plus the launcher, its renewer, bubblewrap's two and
    the collecting shell; its memory, plus every tmpfs a run can write, and room for the launcher and
    bubblewrap."""
    return limits.processes + 6, limits.memory + len(isolation.SCRATCH) * limits.scratch + 64 * MiB


@dataclass(slots=True)
class _Ended:
    """How a run ended, as the launcher and the pipes told it."""

    status: int = 0
    cpu: float = 0.0
    at: float = 0.0  # when it ended (time.perf_counter's clock)
    read: dict[int, bytes] = field(default_factory=dict)
    stopped: bool = False
    timed_out: bool = False
    output_exceeded: bool = False
    lost: str = ""  # why the launcher ended before it reported the run's end ("" when it did)
    interrupted: bool = False  # stopped by ``stopping.stop_runs``


class _Launchers:
    """Idle launchers, reused by whichever thread runs next; closed when the program exits."""

    def __init__(self, namespaces: bool = True) -> None:
        self.namespaces = namespaces  # False: as where no sandbox can be had (tests)
        self.lock = threading.Lock()
        self.idle: dict[tuple[Toolchain, int], list[Launcher]] = {}
        self.started: list[Launcher] = []
        atexit.register(self.close)

    @contextlib.contextmanager
    def borrow(self, limits: Limits, key: tuple[Toolchain, int] = (Toolchain(), 0)) -> Iterator[Launcher]:
        with self.lock:
            idle = self.idle.setdefault(key, [])
            launcher = idle.pop() if idle else None
        if launcher is not None and launcher.process.poll() is not None:
            self._drop(launcher)  # it died while idle (killed from outside)
            launcher = None
        if launcher is None:
            launcher = Launcher(limits, key)
            with self.lock:
                self.started.append(launcher)
        try:
            yield launcher
        except BaseException:
            self._drop(launcher)  # it may be in the middle of a run
            raise
        if launcher.broken:
            self._drop(launcher)
            return
        with self.lock:
            self.idle.setdefault(key, []).append(launcher)

    def _drop(self, launcher: Launcher) -> None:
        with self.lock:
            self.started.remove(launcher)
        launcher.close()

    def close(self) -> None:
        with self.lock:
            launchers, self.started, self.idle = self.started, [], {}
        for launcher in launchers:
            launcher.close()

    def forget(self) -> None:
        """In a forked child (a render worker): the parent's launchers are the parent's. The child starts
        its own when it runs something; closing the parent's would stop them."""
        self.lock = threading.Lock()
        self.started, self.idle = [], {}


_LAUNCHERS = _Launchers()
os.register_at_fork(after_in_child=_LAUNCHERS.forget)


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
