"""Running one untrusted program under limits: the only place that starts solver and checker processes.

Each run gets a fresh temporary working directory, a minimal environment, resource limits
(CPU, address space, file size, core dumps, processes) and a wall-clock deadline; it is killed
together with everything it started. On Linux, where ``unshare`` works, the run also gets its own
PID namespace (every descendant dies with it), an empty network namespace, and a mount namespace
in which the project folders are read-only.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MiB = 1024 * 1024


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
def isolation_prefix() -> tuple[str, ...]:
    """The ``unshare`` command that isolates a run here, or () where namespaces are not available."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    base = [unshare, "--net", "--mount", "--pid", "--fork", "--kill-child"]
    if os.geteuid() != 0:
        base[1:1] = ["--user", "--map-root-user"]
    try:
        probe = subprocess.run([*base, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(base) if probe.returncode == 0 else ()


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
    return base


_GROUPS = itertools.count()


def _make_group(limits: Limits) -> Path | None:
    """A pids cgroup capping a run's processes and threads (root ignores RLIMIT_NPROC, a cgroup binds it)."""
    base = pids_controller()
    if base is None:
        return None
    group = base / f"site-builder-{os.getpid()}-{next(_GROUPS)}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(f"{limits.processes + 4}\n")
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


def command_for(argv: list[str], limits: Limits, read_only: tuple[Path, ...], group: Path | None = None) -> list[str]:
    """The full command line: isolation, process cap, read-only mounts, resource limits, the program."""
    rlimits = [
        f"--cpu={limits.cpu}",
        f"--as={limits.memory}",
        f"--fsize={limits.file_size}",
        "--core=0",
    ]
    prefix = isolation_prefix()
    if os.geteuid() != 0 or not prefix:
        rlimits.append(f"--nproc={limits.processes + _running_processes()}")
    prlimit = shutil.which("prlimit")
    limited = [prlimit, *rlimits, "--", *argv] if prlimit else argv
    runs_in = Path(tempfile.gettempdir()).resolve()  # where working directories live: must stay writable
    mounts = [p for p in read_only if p.is_dir() and not runs_in.is_relative_to(p.resolve())] if prefix else []
    if group is None and not mounts:
        return [*prefix, *limited]
    steps = [f'echo 0 > "{group}/cgroup.procs"'] if group is not None else []
    steps += [f'mount -o bind,ro "${i + 1}" "${i + 1}"' for i in range(len(mounts))]
    script = " && ".join([*steps, f'shift {len(mounts)}; exec "$@"'])
    return [*prefix, "/bin/sh", "-c", script, "sh", *map(str, mounts), *limited]


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
    group = _make_group(limits)
    command = command_for(argv, limits, read_only, group)
    stderr_path = workdir / ".stderr"
    with open(stdin or os.devnull, "rb") as given, open(stderr_path, "wb") as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, stdin=given, stdout=subprocess.PIPE, stderr=err, cwd=workdir, env=env, start_new_session=True
        )
        stdout, timed_out, exceeded = _collect(process, limits, started)
        _kill_group(process.pid)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    if group is not None:
        _remove_group(group)
    process.returncode = os.waitstatus_to_exitcode(status)
    code = process.returncode
    result = RunResult(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        stdout=stdout,
        stderr=_tail(stderr_path),
        timed_out=timed_out,
        output_exceeded=exceeded,
    )
    return result, workdir


def cleanup(workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)


def _collect(process: subprocess.Popen[bytes], limits: Limits, started: float) -> tuple[bytes, bool, bool]:
    """Read stdout until EOF, the deadline, or the output limit; kill the run on the last two."""
    assert process.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = started + limits.wall
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                _kill_group(process.pid)
                return b"".join(chunks), True, False
            if not selector.select(timeout=min(remaining, 0.05)):
                if _has_exited(process.pid):
                    _kill_group(process.pid)  # a descendant may still hold stdout open
                continue
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limits.output:
                _kill_group(process.pid)
                return b"".join(chunks)[: limits.output], False, True
    process.stdout.close()
    return b"".join(chunks), False, False


def _has_exited(pid: int) -> bool:
    """Whether the direct child has exited, without reaping it (wait4 collects its status later)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


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
