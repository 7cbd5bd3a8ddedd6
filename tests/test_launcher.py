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
from typing import Any

import pytest
from conftest import a_bare_launcher

from site_builder.sandbox import isolation, launcher
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


def _status(pid: int | str = "self") -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
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


def _ended(pid: int) -> bool:
    """Whether the process is gone or a zombie, waiting up to five seconds for it."""
    for _ in range(500):
        if _state(pid) in ("", "Z"):
            return True
        time.sleep(0.01)
    return False


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
        assert _ended(child), "the run outlived its launcher"
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


# The renewer, without bubblewrap: a process standing for it makes a mount namespace of its own (and, for
# an ordinary user, a user namespace owning it, as bubblewrap does), a tmpfs in it at a folder of the test,
# and forks the launcher inside, which asks for fresh scratch folders twice.
MS_REC, MS_PRIVATE = 0x4000, 0x40000


def _a_sandbox(scratch: Path, users: bool, pipes: tuple[int, int, int], sock: socket.socket, held: bool) -> None:
    """Bubblewrap's part, then the inside launcher's, in a child of the renewer's launcher: never returns.
    ``pipes``: when to start and to end, where to say it is done, where to say what it saw."""
    go, done, said = pipes
    try:
        signal.alarm(20)
        uid, gid = os.getuid(), os.getgid()
        launcher._call(launcher.libc.unshare(launcher.CLONE_NEWNS | (launcher.CLONE_NEWUSER if users else 0)))
        if users:
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        launcher._call(launcher.libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None))
        launcher._call(launcher.libc.mount(b"tmpfs", bytes(scratch), b"tmpfs", 0, b"size=1m"))
        if (inside := os.fork()) == 0:
            os.dup2(said, 2)
            os.read(go, 1)  # once the renewer is started
            if held:  # the old tmpfs kept by a process in it: detached
                os.chdir(scratch)
            for _ in range(2):
                (scratch / "left").write_text("x")
                launcher._renew(sock)
                launcher._renewed(sock)  # or it ends, 70, saying why
                found = os.statvfs(scratch)
                flags = found.f_flag & (os.ST_NOSUID | os.ST_NODEV | os.ST_RDONLY)
                shown = f"{os.listdir(scratch)} {found.f_blocks * found.f_frsize} {found.f_files} {flags}"
                os.write(2, f"{shown} {os.listdir('.') if held else ''}\n".encode())
            os.write(done, b"d")
            os.read(go, 1)  # once the renewer has been looked at
            os._exit(0)
        os._exit(os.waitstatus_to_exitcode(os.waitpid(inside, 0)[1]))
    finally:
        os._exit(99)


def _renewing(
    scratch: Path, users: bool, *, paths: tuple[str, ...] = (), held: bool = False, asked: int = 0, me: int = 0
) -> str:
    """What the launcher inside saw of its renewals, its exit status, and the renewer's state once it has
    renewed (its descriptors, SIGINT ignored); ``asked``: the process the renewer takes for the sandbox's
    (bubblewrap's, by default), ``me`` for its launcher (this process)."""
    signal.alarm(20)  # a renewer that never answers fails the test rather than hangs it
    (go, going), (done, finished) = os.pipe(), os.pipe()
    said = os.memfd_create("said")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sandbox = os.fork()
    if sandbox == 0:
        for end in (going, done, ours.detach()):  # only the renewer holds its end, only this process the others
            os.close(end)
        _a_sandbox(scratch, users, (go, finished, said), theirs, held)
    theirs.close()
    os.close(finished)
    renew = {"paths": [str(scratch), *paths], "options": isolation.scratch_options(256 << 10)}
    launcher._start_renewer(renew, ours.fileno(), asked or sandbox, me or os.getpid())
    ours.close()
    renewer = next(pid for pid in launcher._children() if pid != sandbox)  # a zombie too, once it has ended
    if me:  # its launcher is another: it ends before it is asked anything
        os.waitpid(renewer, 0)
    os.write(going, b"g")
    state = ""
    if os.read(done, 1):
        fds = sorted(int(fd) for fd in os.listdir(f"/proc/{renewer}/fd"))
        kinds = [os.readlink(f"/proc/{renewer}/fd/{fd}").split(":")[0] for fd in fds if fd > 2]
        ignored = int(_status(renewer)["SigIgn"], 16) >> (signal.SIGINT - 1) & 1
        state = f" {fds[:3]} {kinds} {ignored}"
        os.write(going, b"e")
    status = os.waitstatus_to_exitcode(os.waitpid(sandbox, 0)[1])
    if not me:
        os.waitpid(renewer, 0)  # its sandbox's side closed: it ends
    os.lseek(said, 0, os.SEEK_SET)
    return f"{status}{state}\n{os.read(said, 4096).decode()}"


def _users() -> list[bool]:
    """Whether the sandbox has a user namespace of its own: as bubblewrap makes it for an ordinary user
    (root's has none; root's tests try both)."""
    return [False, True] if os.geteuid() == 0 else [True]


@pytest.mark.parametrize("users", _users())
def test_the_renewer_gives_the_sandbox_fresh_scratch_folders_each_time_it_asks(tmp_path: Path, users: bool) -> None:
    """Each renewal empties the folder, with the size, file count and flags asked for, and the renewer
    holds nothing but its socket (and the standard streams) and lets a ^C to the build pass it by."""
    fresh = f"[] {256 << 10} 1024 {os.ST_NOSUID | os.ST_NODEV} \n"
    assert _in_a_child(lambda: _renewing(tmp_path, users)) == f"0 [0, 1, 2] ['socket'] 1\n{fresh}{fresh}"


def test_a_scratch_folder_still_held_is_detached_and_a_fresh_one_mounted_over_it(tmp_path: Path) -> None:
    """A process still in the old tmpfs (none of a run's is left, but were one): it keeps what it holds,
    and the folder's path shows a fresh one."""
    fresh = f"[] {256 << 10} 1024 {os.ST_NOSUID | os.ST_NODEV} ['left']\n"
    said = _in_a_child(lambda: _renewing(tmp_path, _users()[0], held=True))
    assert said == f"0 [0, 1, 2] ['socket'] 1\n{fresh}{fresh}"


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("not mounted", "cannot unmount {}: Invalid argument"),
        ("asked by another", "the renewal was asked by a process that is not the sandbox's first"),
        ("orphaned", "the renewer has gone"),
        ("a link", "cannot unmount {}: Invalid argument"),
    ],
)
def test_a_renewal_that_fails_ends_the_launcher_inside_saying_why(tmp_path: Path, case: str, why: str) -> None:
    """A folder that is no tmpfs of the sandbox's (it cannot be unmounted), a renewal asked by a process that
    is not bubblewrap's child, a renewer whose launcher was gone before it could die with it, a link where a
    folder should be (never followed, even to a tmpfs): the launcher inside ends (70) rather than give the
    next run what the last one left."""
    (tmp_path / "scratch").mkdir()
    (tmp_path / "plain").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "scratch")
    cases: dict[str, dict[str, Any]] = {
        "not mounted": {"paths": (str(tmp_path / "plain"),)},
        "asked by another": {"asked": os.getpid()},
        "orphaned": {"me": 1},
        "a link": {"paths": (str(tmp_path / "link"),)},
    }
    options = cases[case]
    said = _in_a_child(lambda: _renewing(tmp_path / "scratch", _users()[0], **options))
    shown = tmp_path / ("link" if case == "a link" else "plain")
    assert said == f"70\nsandbox: the run's folders cannot be renewed: {why.format(shown)}\n"


def test_the_renewer_dies_with_its_launcher() -> None:
    """The renewer can enter its sandbox's namespaces: killed with the launcher that started it (as a run
    is), though its sandbox's side of the socket is still open, it leaves nothing behind."""
    out, into = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # the sandbox's end stays here
    outer = os.fork()
    if outer == 0:
        try:
            launcher._start_renewer({"paths": [], "options": ""}, ours.fileno(), 1, os.getpid())
            os.write(into, str(launcher._children()[0]).encode())
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(into)
    ours.close()
    renewer = int(os.read(out, 64))
    os.close(out)
    try:
        for _ in range(500):  # until it has set itself up: it ignores ^C once its parent-death signal is set
            if int(_status(renewer)["SigIgn"], 16) >> (signal.SIGINT - 1) & 1:
                break
            time.sleep(0.01)
        os.kill(outer, signal.SIGKILL)
        os.waitpid(outer, 0)
        assert _ended(renewer), "the renewer outlived its launcher"
    finally:
        theirs.close()
        if _state(renewer) not in ("", "Z"):
            os.kill(renewer, signal.SIGKILL)


def test_the_renewer_follows_only_bubblewraps_child_and_reads_its_name_as_the_kernel_writes_it() -> None:
    """The process that asks must be the sandbox's first: its parent is read from /proc/PID/stat after
    the name, which may hold ") " and numbers; and a process in the renewer's own mount namespace is no
    sandbox."""

    def asking() -> str:
        ready, readied = os.pipe()
        child = os.fork()
        if child == 0:
            launcher.libc.prctl(15, b") S 1 1 1 1", 0, 0, 0)  # PR_SET_NAME
            os.write(readied, b"r")
            time.sleep(30)
            os._exit(0)
        os.read(ready, 1)
        said = []
        for first in (os.getpid(), os.getppid()):  # whose child the sandbox's first process is said to be
            try:
                launcher._join(child, first)
            except OSError as error:
                said.append(error.strerror)
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        return " / ".join(str(s) for s in said)

    other = "the renewal was asked by a process that is not the sandbox's first"
    assert _in_a_child(asking) == f"the sandbox has no mount namespace of its own / {other}"


def test_the_sender_of_a_renewal_is_the_process_the_kernel_names() -> None:
    """SCM_CREDENTIALS among the message's other control data; none (or one cut short) is an error."""
    credentials = launcher.CREDENTIALS.pack(4321, 0, 0)
    rights = (socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", 5))
    assert launcher._sender([rights, (socket.SOL_SOCKET, socket.SCM_CREDENTIALS, credentials)]) == 4321
    for extra in ([], [rights], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, credentials[:8])]):
        with pytest.raises(OSError, match=r"^\[Errno 0\] the sandbox's launcher sent no credentials$"):
            launcher._sender(extra)


def test_a_renewal_asked_of_a_renewer_gone_or_silent_is_not_waited_for() -> None:
    """Asking a renewer that has gone does not fail (its answer, none, does); one that does not answer
    (here within a moment) ends the launcher inside, saying why."""

    def unanswered() -> str:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        launcher._renew(ours)
        asked = theirs.recv(64)
        theirs.close()
        launcher._renew(ours)  # gone: no error
        silent, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        silent.settimeout(0.01)
        errors = os.memfd_create("errors")
        os.dup2(errors, 2)
        statuses = []
        for renewer in (silent, ours):
            child = os.fork()
            if child == 0:
                launcher._renewed(renewer)
                os._exit(0)
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
        os.lseek(errors, 0, os.SEEK_SET)
        return f"{asked!r} {statuses}\n{os.read(errors, 4096).decode()}"

    why = "sandbox: the run's folders cannot be renewed:"
    assert _in_a_child(unanswered) == f"b'renew' [70, 70]\n{why} timed out\n{why} the renewer has gone\n"


def test_a_message_sent_before_credentials_were_asked_for_names_no_sender() -> None:
    """The kernel gives pid 0 for a message queued before SO_PASSCRED was set (the renewer's socket is
    set before the sandbox starts: a renewal asked at once failed, rarely, with "No such file")."""
    from site_builder.sandbox import launcher

    early = [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, launcher.CREDENTIALS.pack(0, 65534, 65534))]
    with pytest.raises(OSError, match="before its credentials were asked for"):
        launcher._sender(early)
    assert launcher._sender([(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, launcher.CREDENTIALS.pack(7, 0, 0))]) == 7
