"""The launcher's own steps, called in this process (no sandbox): writing a run's files, starting its
child, and the protocol of a launcher process spoken to directly. test_sandbox.py runs it whole."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import marshal
import os
import resource
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import a_bare_launcher

from site_builder.sandbox import launcher
from site_builder.sandbox import runner as sandbox


@pytest.fixture
def no_umask() -> Iterator[None]:
    """Modes as the launcher asks for them, whatever the umask the tests run under."""
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("test-launcher")
    os.write(fd, data)  # left at its end: the launcher reads from the start
    return fd


def _prepare(work: Path, files: dict[str, tuple[bytes, int]], dirs: list[str]) -> None:
    fds = [_memfd(data) for data, _ in files.values()]
    request = {"cwd": str(work), "streams": 0, "dirs": dirs, "files": [(n, mode) for n, (_, mode) in files.items()]}
    try:
        launcher._prepare(request, fds)
    finally:
        for fd in fds:
            os.close(fd)


def test_a_runs_files_and_folders_are_made_with_their_contents_and_modes(tmp_path: Path, no_umask: None) -> None:
    """Files whole (a piece over the launcher's 1 MiB reads too) with their modes; the folders asked
    for writable by anyone (the run may be another user than the launcher), the one a file is in not
    (those above it are made as os.makedirs makes them)."""
    big = bytes(range(256)) * (5 << 10)  # 1.25 MiB
    files = {"main.py": (b"print(1)\n", 0o444), "sub/deep/prog": (big, 0o555)}
    _prepare(tmp_path, files, ["out", "more/nested", "out"])  # a folder asked for twice is there once
    assert (tmp_path / "main.py").read_bytes() == b"print(1)\n"
    assert (tmp_path / "sub/deep/prog").read_bytes() == big
    modes = {
        name: stat.S_IMODE((tmp_path / name).stat().st_mode)
        for name in ("main.py", "sub/deep/prog", "sub/deep", "out", "more/nested")
    }
    assert modes == {
        "main.py": 0o444,
        "sub/deep/prog": 0o555,
        "sub/deep": 0o755,
        "out": 0o777,
        "more/nested": 0o777,
    }


def test_a_runs_file_is_never_written_through_a_link_or_over_a_file(tmp_path: Path) -> None:
    """The scratch folders are fresh for every run, so nothing is there before the files; were
    something there (a link a run left to a file outside, or a file), writing fails rather than
    following it."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    (work / "main.py").symlink_to(outside)
    with pytest.raises(FileExistsError):
        _prepare(work, {"main.py": (b"planted", 0o444)}, [])
    assert not outside.exists()
    (work / "main.py").unlink()
    (work / "main.py").write_bytes(b"kept")
    with pytest.raises(FileExistsError):
        _prepare(work, {"main.py": (b"planted", 0o444)}, [])
    assert (work / "main.py").read_bytes() == b"kept"


def test_a_failed_c_call_is_an_error_with_its_number_and_reason() -> None:
    """What a renewal that failed tells the builder, among others."""
    ctypes.set_errno(errno.EPERM)
    with pytest.raises(OSError) as raised:
        launcher._call(-1)
    assert (raised.value.errno, raised.value.strerror) == (errno.EPERM, "Operation not permitted")
    launcher._call(0)


def test_files_without_their_contents_are_refused(tmp_path: Path) -> None:
    """One descriptor per file, after the streams: a request with fewer is not half written."""
    request = {"cwd": str(tmp_path), "streams": 1, "dirs": [], "files": [("a", 0o444), ("b", 0o444)]}
    fds = [_memfd(b""), _memfd(b"a")]
    try:
        with pytest.raises(ValueError):
            launcher._prepare(request, fds)
    finally:
        for fd in fds:
            os.close(fd)


def test_a_run_needs_its_three_standard_streams_and_they_are_enough() -> None:
    """(In a child of the test process: a launcher that forked wrong must not go on running the tests.)"""

    def starting() -> str:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        null = os.open(os.devnull, os.O_RDWR)
        request = {"argv": ["sh", "-c", "exit 3"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
        refused = launcher._start(theirs, request, [null, null]), marshal.loads(ours.recv(1 << 16))
        child = launcher._start(theirs, request, [null, null, null])
        answer = marshal.loads(ours.recv(1 << 16))
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
        return f"{refused} {child > 0 and answer == {'pid': child}} {status}"

    refused = "(0, {'error': 'a run needs standard input, output and error'})"
    assert _in_a_child(starting) == f"{refused} True 3"


def test_a_launcher_told_to_stop_a_run_already_ended_serves_the_next() -> None:
    """A stop the builder sent as the run ended arrives after its report: the launcher drops it."""
    ours, process = a_bare_launcher()
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["sh", "-c", "exit 5"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 4}
    try:
        assert marshal.loads(ours.recv(1 << 16)) == {"ready": True}
        ours.send(launcher.KILL)
        socket.send_fds(ours, [marshal.dumps(request)], [null] * 4)
        assert set(marshal.loads(ours.recv(1 << 16))) == {"pid"}
        report = marshal.loads(ours.recv(1 << 16))
        assert os.waitstatus_to_exitcode(report["status"]) == 5
    finally:
        os.close(null)
        ours.close()
        _, errors = process.communicate(timeout=10)
    assert process.returncode == 0 and errors == b""


def test_a_program_holds_no_descriptor_of_its_launcher_even_one_left_inheritable() -> None:
    """Every descriptor the launcher holds is close-on-exec (Python's default); the child closes all
    above its streams all the same, so one that is not (a library's, a mistake) reaches no program."""

    def starting() -> str:
        os.set_inheritable(os.open(os.devnull, os.O_RDONLY), True)
        null = os.open(os.devnull, os.O_RDWR)
        out, into = os.pipe()
        code = "import os\nprint([fd for fd in range(1024) if os.path.exists(f'/proc/self/fd/{fd}')])"
        request = {"argv": [sys.executable, "-I", "-S", "-c", code], "env": {}, "rlimits": [], "streams": 3}
        _, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        child = launcher._start(theirs, request, [null, into, null])
        os.close(into)
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
        return f"{status} {os.read(out, 4096).decode().strip()}"

    assert _in_a_child(starting) == "0 [0, 1, 2]"


def test_a_run_whose_launcher_is_gone_before_it_could_die_with_it_is_not_started() -> None:
    """The child asks to be killed when its launcher dies, then checks that its launcher is still
    its parent: one that died before that would leave a run no launcher follows."""
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["true"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
    child = os.fork()
    if child == 0:
        try:
            launcher._child(request, [null, null, null], -1)  # no process is its parent: gone
        finally:
            os._exit(99)
    os.close(null)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 137


def _in_a_child(step: Callable[[], object]) -> str:
    """What ``step`` returns, or the OSError it raises, run in a child of this process (which it may
    change for good: its ids, its capabilities)."""
    out, into = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(out)
            try:
                said = f"{step()}"
            except OSError as error:
                said = f"OSError({error.errno!r}, {error.strerror!r})"
            os.write(into, said.encode())
        finally:
            os._exit(0)
    os.close(into)
    with os.fdopen(out, "rb") as reading:
        said = reading.read().decode()
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    return said


def _status() -> dict[str, str]:
    lines = Path("/proc/self/status").read_text().splitlines()
    return {name: " ".join(value.split()) for name, _, value in (line.partition(":") for line in lines)}


def _held_after_becoming_nobody() -> dict[str, str]:
    """Becoming nobody, from root holding an inheritable capability (as the sandbox's first process
    may: bubblewrap leaves the inheritable set as it found it)."""
    header = struct.pack("Ii", launcher.CAPABILITY_VERSION_3, 0)
    sets = ctypes.create_string_buffer(24)
    assert launcher.libc.capget(header, sets) == 0
    effective, permitted, _ = struct.unpack_from("III", sets)
    struct.pack_into("III", sets, 0, effective, permitted, 1 << 10)  # CAP_NET_BIND_SERVICE inheritable
    assert launcher.libc.capset(header, sets) == 0
    assert _status()["CapInh"] != "0000000000000000"
    launcher._become_nobody()
    status = _status()
    return {name: status[name] for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "Uid", "Gid", "Groups")}


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="only root's launcher becomes nobody")


@root_only
def test_the_launcher_inside_becomes_nobody_holding_no_capability_in_any_set() -> None:
    nobody = " ".join([str(launcher.NOBODY)] * 4)
    no_capability = "0000000000000000"
    sets = dict.fromkeys(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), no_capability)
    assert _in_a_child(_held_after_becoming_nobody) == f"{sets | {'Uid': nobody, 'Gid': nobody, 'Groups': ''}}"


@root_only
def test_a_launcher_that_cannot_drop_a_capability_or_stay_nobody_or_clear_a_set_stops() -> None:
    """Each step of becoming nobody that fails is an error, never a launcher going on half privileged:
    a capability it may not drop (it is nobody already), ids the kernel left otherwise than asked,
    and inheritable capabilities it cannot clear."""

    def already_nobody() -> None:
        os.setresuid(launcher.NOBODY, launcher.NOBODY, launcher.NOBODY)
        launcher._become_nobody()

    def only_effectively_nobody() -> None:
        real = os.setresuid
        os.setresuid = lambda *ids: real(0, launcher.NOBODY, 0)
        launcher._become_nobody()

    def capset_refused() -> None:
        class Refusing:
            prctl = launcher.libc.prctl

            @staticmethod
            def capset(*_: object) -> int:
                ctypes.set_errno(errno.EPERM)
                return -1

        launcher.libc = Refusing()  # type: ignore[assignment]
        launcher._become_nobody()

    assert _in_a_child(already_nobody) == "OSError(1, 'cannot drop a capability')"
    assert _in_a_child(only_effectively_nobody) == "OSError(1, 'still root')"
    assert _in_a_child(capset_refused) == "OSError(1, 'cannot clear the inheritable capabilities')"


def test_a_launcher_that_cannot_fork_says_why() -> None:
    """No process left to its user (RLIMIT_NPROC; root, which it does not bind, first becomes nobody)."""

    def without_processes() -> str:
        if os.geteuid() == 0:
            os.setresuid(launcher.NOBODY, launcher.NOBODY, launcher.NOBODY)
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        null = os.open(os.devnull, os.O_RDWR)
        request = {"argv": ["true"], "env": {}, "rlimits": [], "streams": 3}
        return f"{launcher._start(theirs, request, [null] * 3)} {marshal.loads(ours.recv(1 << 16))}"

    assert _in_a_child(without_processes) == "0 {'error': 'cannot fork: Resource temporarily unavailable'}"


def test_a_launcher_inside_a_sandbox_without_its_renewer_refuses_to_start() -> None:
    """Without its renewer, runs would share their scratch folders: it says so and ends."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(sandbox.LAUNCHER), str(theirs.fileno()), "--inside"],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
        )
    assert (done.returncode, done.stderr) == (1, b"sandbox: a launcher inside a sandbox needs --renewer FD\n")


def _state(pid: int) -> str:
    """A process's state letter ("Z" a zombie), or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_a_run_dies_with_its_launcher_killed_from_outside() -> None:
    """A launcher alone (no cgroup to remove, as root too): the run it started asked to be killed
    when its launcher dies (the parent-death signal), so killing the launcher ends the run, and no
    run is left that nobody follows."""
    ours, process = a_bare_launcher()
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["sleep", "31.4159"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
    child = 0
    try:
        assert marshal.loads(ours.recv(1 << 16)) == {"ready": True}
        socket.send_fds(ours, [marshal.dumps(request)], [null] * 3)
        child = marshal.loads(ours.recv(1 << 16))["pid"]
        for _ in range(500):  # until it runs sleep: its parent-death signal is set before that
            with contextlib.suppress(OSError):
                if Path(f"/proc/{child}/cmdline").read_bytes().startswith(b"sleep\0"):
                    break
            time.sleep(0.01)
        process.kill()
        process.wait(10)
        for _ in range(500):
            if _state(child) in ("", "Z"):
                break
            time.sleep(0.01)
        assert _state(child) in ("", "Z"), "the run outlived its launcher"
    finally:
        if child and _state(child) not in ("", "Z"):
            os.kill(child, signal.SIGKILL)
        os.close(null)
        ours.close()
        process.kill()
        process.wait(10)


def test_a_runs_report_says_when_it_ended_not_when_it_was_read() -> None:
    """Which of two runs ended first (an interactive problem's solver or its interactor) decides a
    verdict: the report carries the moment the run ended, on the builder's clock, however late the
    builder reads it."""
    ours, process = a_bare_launcher()
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["true"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
    try:
        assert marshal.loads(ours.recv(1 << 16)) == {"ready": True}
        sent = time.perf_counter()
        socket.send_fds(ours, [marshal.dumps(request)], [null] * 3)
        assert set(marshal.loads(ours.recv(1 << 16))) == {"pid"}
        select.select([ours], [], [], 10)
        reported = time.perf_counter()
        time.sleep(0.1)
        report = marshal.loads(ours.recv(1 << 16))
        assert set(report) == {"status", "cpu", "ended"}
        assert sent < report["ended"] <= reported and report["status"] == 0 and report["cpu"] >= 0
    finally:
        os.close(null)
        ours.close()
        process.communicate(timeout=10)
