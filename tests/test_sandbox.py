"""The sandbox's launchers: runs are limited and leave nothing behind, with namespaces and without them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import a_bare_launcher, cpu_burners, pinned

from site_builder.sandbox import cgroup
from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.runner import Limits, RunResult
from site_builder.verify.runtimes import python_runtime

# The folder of the site_builder these tests import (a builder started here must run the same code, a mutant's too).
ROOT = Path(sandbox.__file__).resolve().parents[2]


def run(code: str, limits: Limits | None = None, stdin: bytes = b"", args: tuple[str, ...] = ()) -> RunResult:
    exe, toolchain = python_runtime(sys.executable)
    return sandbox.run(
        [exe, "main.py", *args], stdin, limits or Limits(wall=5), files={"main.py": code.encode()}, toolchain=toolchain
    )


def alive(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    return [pid for pid in found if _state(int(pid)) not in ("Z", "")]


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def test_runs_reuse_one_launcher(launchers: sandbox._Launchers) -> None:
    results = [run("print(input())", stdin=f"{n}\n".encode()) for n in range(3)]
    assert [r.stdout for r in results] == [b"0\n", b"1\n", b"2\n"]
    assert len(launchers.started) == 1


def test_a_launchers_channels_keep_each_message_apart(launchers: sandbox._Launchers) -> None:
    """The launcher answers a run's start and then its end: on a stream the two could arrive as one read,
    and the end would be lost. Both the launcher's channel and the sandbox's are of datagrams."""
    assert run("print(1)").stdout == b"1\n"
    (launcher,) = launchers.started
    assert launcher.outer.type == launcher.sock.type == socket.SOCK_SEQPACKET


def test_a_sandbox_that_cannot_start_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap's reason (its first 4 KiB, whatever its bytes), or that there was none, when it ends or
    is still not ready when the time to start is up."""
    from site_builder.sandbox.isolation import Isolation

    def failure(toolchain: sandbox.Toolchain | None = None) -> str:
        pool = sandbox._Launchers(namespaces=True)
        try:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(sandbox, "_LAUNCHERS", pool)
                with pytest.raises(sandbox.LauncherError) as info:
                    sandbox.run(["true"], None, Limits(wall=5), toolchain=toolchain or sandbox.Toolchain())
        finally:
            pool.close()
        return str(info.value)

    missing = "/nonexistent/site-builder-toolchain"
    if sandbox.isolated():
        why = failure(sandbox.Toolchain(((missing, "/opt/tool"),)))
        assert re.fullmatch(f"the sandbox did not start: bwrap: [^\\n]*{missing}[^\\n]*", why), why
    mode = "root" if os.geteuid() == 0 else "user"
    fakes = {
        "silent": "exit 1",
        "long": "printf '\\377' >&2; head -c 5000 /dev/zero | tr '\\0' x >&2; exit 1",
        "hanging": "exec sleep 30",
    }
    for name, script in fakes.items():
        (tmp_path / name).write_text(f"#!/bin/sh\n{script}\n")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setattr(sandbox, "SANDBOX_START", 1.0)
    reasons = {
        "silent": ": no reason given",
        "long": ": \ufffd" + "x" * 4095,
        "hanging": " within 1 s: no reason given",
    }
    for name, reason in reasons.items():
        monkeypatch.setattr(sandbox, "isolation_level", lambda name=name: Isolation(mode, str(tmp_path / name)))
        assert failure() == f"the sandbox did not start{reason}", name


def test_an_interpreter_needs_the_folders_above_its_real_file_outside_usr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its prefix (where its libraries are), found from the file a link leads to; for this build's own
    interpreter, the base of its virtual environment too. Nothing in ``/usr``, and never the root."""
    (tmp_path / "tool" / "bin").mkdir(parents=True)
    (tmp_path / "tool" / "bin" / "run").write_text("")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "run").symlink_to(tmp_path / "tool" / "bin" / "run")
    real_tool = Path(os.path.realpath(tmp_path / "tool"))
    base = Path(os.path.realpath(tmp_path)) / "base"
    monkeypatch.setattr(sys, "base_prefix", str(base))
    assert sandbox.interpreter_folders(str(tmp_path / "tool" / "bin" / "run")) == (real_tool,)
    assert sandbox.interpreter_folders(str(tmp_path / "links" / "run")) == (real_tool,)
    for elsewhere in ("/usr/lib/tool/bin/run", "/usr/local/bin/tool", "/usr", "/tool-at-the-root"):
        assert sandbox.interpreter_folders(elsewhere) == (), elsewhere
    prefix = Path(os.path.realpath(sys.executable)).parent.parent
    own = {base} | ({prefix} if not prefix.is_relative_to("/usr") else set())
    assert sandbox.interpreter_folders(sys.executable) == tuple(sorted(own))


def test_a_toolchain_showing_folders_keeps_the_files_it_makes() -> None:
    made = (("/etc/tool.conf", b"x=1\n"), ("/usr/local/bin/tool", "/opt/tool/bin/tool"))
    assert sandbox.Toolchain.showing(Path("/opt/tool"), made=made) == sandbox.Toolchain(
        (("/opt/tool", "/opt/tool"),), made
    )


def test_a_launcher_killed_while_idle_is_replaced(launchers: sandbox._Launchers) -> None:
    assert run("print(1)").stdout == b"1\n"
    first = launchers.started[0].process
    first.kill()
    first.wait()
    assert run("print(2)").stdout == b"2\n"
    assert [launcher.process.pid for launcher in launchers.started] != [first.pid]


def test_orphans_and_new_sessions_die_with_the_run(launchers: sandbox._Launchers) -> None:
    marker = f"site-builder-sandbox-orphan-{os.getpid()}"
    code = textwrap.dedent(f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "{marker}"], start_new_session=True)
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", "{marker}"])
        time.sleep(0.2)
        print("done")
    """)
    started = time.perf_counter()
    result = run(code)
    assert (result.exit_code, result.stdout) == (0, b"done\n")
    assert time.perf_counter() - started < 30  # not waiting for the children's 60 s; loose for a busy machine
    assert alive(marker) == []


def test_the_deadline_stops_a_run_and_its_children(launchers: sandbox._Launchers) -> None:
    marker = f"site-builder-sandbox-slow-{os.getpid()}"
    child = f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}'])"
    code = f"import subprocess, sys, time\n{child}\ntime.sleep(60)\n"
    result = run(code, Limits(wall=1))
    assert result.timed_out and result.signal == signal.SIGKILL
    assert 1 <= result.wall < 3
    assert alive(marker) == []
    assert run("print('next')").stdout == b"next\n"  # the launcher is in step for the next run


BURN = (
    "import time\n\ndef burn(seconds):\n    start = time.process_time()\n"
    "    while time.process_time() - start < seconds:\n        pass\n"
)


def test_a_runs_cpu_time_is_its_every_process(launchers: sandbox._Launchers) -> None:
    """The program, a child it waits for and an orphan (its parent gone, the launcher reaps it) burn
    0.3 s of CPU time each: the run used all three, not what the first process's own wait counted."""
    code = BURN + textwrap.dedent(
        """
        import os
        if os.fork() == 0:
            burn(0.3)
            os._exit(0)
        os.wait()
        done, told = os.pipe()
        if os.fork() == 0:
            if os.fork() == 0:
                burn(0.3)
                os.write(told, b"x")
            os._exit(0)
        os.wait()
        os.close(told)
        os.read(done, 1)
        burn(0.3)
        print("burnt")
        """
    )
    result = run(code, Limits(wall=30))
    assert result.stdout == b"burnt\n" and result.exit_code == 0, result
    assert 0.85 < result.cpu < 5, result


def test_a_runs_cpu_time_counts_the_kernels_work_for_it_too(launchers: sandbox._Launchers) -> None:
    """A program that has the kernel work for it (reading /dev/zero: clearing pages) for 0.3 s of
    system time: its run's CPU time is at least its user and system time together, as judges count."""
    code = textwrap.dedent(
        """
        import os
        zero = os.open("/dev/zero", os.O_RDONLY)
        while os.times().system < 0.3:
            os.read(zero, 1 << 20)
        times = os.times()
        print(times.user + times.system)
        """
    )
    result = run(code, Limits(wall=30))
    assert result.exit_code == 0, result
    assert float(result.stdout) <= result.cpu < 5, result


def test_cpu_time_stops_a_busy_run_and_the_clock_one_that_waits(launchers: sandbox._Launchers) -> None:
    busy = run("while True:\n    pass\n", Limits(wall=30, cpu=1))
    assert busy.signal == signal.SIGXCPU and not busy.timed_out, busy
    # The kernel stops it by CPU time sampled at each tick, which on a busy machine runs a little
    # ahead of the exact figure the run reports.
    assert 0.7 < busy.cpu < 3, busy
    ignores = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"
    stubborn = run(ignores, Limits(wall=30, cpu=1))
    assert stubborn.signal == signal.SIGKILL and not stubborn.timed_out and 1.4 < stubborn.cpu < 4, stubborn
    waits = run("import time\ntime.sleep(60)\n", Limits(wall=1.5, cpu=1))
    assert waits.timed_out and waits.cpu < 0.5 and 1.5 <= waits.wall < 5, waits


@pytest.mark.serial
def test_a_busy_machine_slows_a_runs_clock_but_not_its_cpu_time(launchers: sandbox._Launchers) -> None:
    """Three programs burning the one CPU the run is kept on, at its priority: the run takes several
    times longer on the clock, and the same CPU time."""
    cpu = min(os.sched_getaffinity(0))
    with cpu_burners(cpu):
        time.sleep(0.2)  # the burners have started and pinned themselves
        result = run(pinned(cpu) + BURN + "burn(0.3)\nprint('done')\n", Limits(wall=30))
    assert result.stdout == b"done\n", result
    assert 0.3 <= result.cpu < 0.6 and result.wall > 2 * result.cpu, result


def test_a_fork_bomb_is_contained(launchers: sandbox._Launchers) -> None:
    marker = f"site-builder-sandbox-bomb-{os.getpid()}"
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = run(code, Limits(wall=2), args=(marker,))
    assert result.timed_out or result.signal is not None
    assert alive(marker) == []
    assert run("print('next')").stdout == b"next\n"


def test_too_much_output_stops_the_run(launchers: sandbox._Launchers) -> None:
    result = run("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n", Limits(wall=5, output=1 << 20))
    assert result.output_exceeded and not result.timed_out
    assert len(result.stdout) == 1 << 20
    # the launcher, told to stop the run, ended the run alone: it starts the next
    (launcher,) = launchers.started
    assert run("print('next')").stdout == b"next\n" and launchers.started == [launcher]


def test_a_file_over_the_size_limit_ends_the_run_with_sigxfsz(launchers: sandbox._Launchers) -> None:
    result = sandbox.run(["sh", "-c", "exec head -c 2097152 /dev/zero > big"], None, Limits(wall=5, file_size=1 << 20))
    assert result.signal == signal.SIGXFSZ


def test_programs_inherit_no_ignored_signals(launchers: sandbox._Launchers) -> None:
    """Python ignores SIGPIPE and SIGXFSZ, and whatever started the build may ignore others (``nohup``
    ignores SIGHUP): a program must not inherit that, or a file size limit is a mere error.

    Signals 32 and 33 are glibc's own (no program can set them through glibc, which takes them over).
    """
    with ignoring(signal.SIGHUP):
        result = sandbox.run(["grep", "SigIgn", "/proc/self/status"], None, Limits(wall=5))
    ignored = int(result.stdout.split()[1], 16)
    assert ignored & ~(0b11 << 31) == 0, f"ignored: {[n + 1 for n in range(64) if ignored >> n & 1]}"


@contextlib.contextmanager
def ignoring(number: signal.Signals) -> Iterator[None]:
    """As if the build were started with ``number`` ignored (the launchers start within)."""
    before = signal.signal(number, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(number, before)


def test_limits_and_environment_reach_the_program(launchers: sandbox._Launchers) -> None:
    code = textwrap.dedent("""
        import os, resource
        print(resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_AS)[0])
        print(resource.getrlimit(resource.RLIMIT_CORE), os.getcwd() == os.environ["HOME"], sorted(os.listdir(".")))
        print(os.environ["PYTHONHASHSEED"], os.getpgid(0) == os.getsid(0))
    """)
    result = run(code, Limits(wall=2, memory=512 << 20))
    assert result.stdout.decode().splitlines() == [
        f"(3, 4) {512 << 20}",  # CPU: SIGXCPU at 3 s (a second over the wall time), SIGKILL at 4
        "(0, 0) True ['main.py']",
        "0 True",
    ]


def test_a_missing_program_is_a_failed_run_with_a_reason(launchers: sandbox._Launchers) -> None:
    """The launcher's child (inside the sandbox, or not) says why, and ends as a shell does (127)."""
    result = sandbox.run(["no-such-program-here"], None, Limits(wall=2))
    reason = "sandbox: cannot start no-such-program-here: No such file or directory\n"
    assert (result.exit_code, result.stderr) == (127, reason)


def test_files_the_scratch_folder_cannot_hold_fail_the_run_with_the_reason(launchers: sandbox._Launchers) -> None:
    """Inside a sandbox the launcher writes the run's files: when it cannot, the run fails with its reason."""
    if not (launchers.namespaces and sandbox.isolated()):
        pytest.skip("the builder writes the files where runs are not in a sandbox")
    with pytest.raises(sandbox.LauncherError, match=r"cannot write the run's files: \[Errno 28\] No space left"):
        sandbox.run(["true"], None, Limits(wall=5, scratch=1 << 20), files={"big": bytes(2 << 20)})


def test_a_program_holds_no_descriptor_but_its_streams(launchers: sandbox._Launchers) -> None:
    """Nothing of the launcher reaches the program: not the descriptors it was sent (the run's streams
    before they were moved, its files' contents), nor any other it holds."""
    code = textwrap.dedent("""
        import os
        def held(fd):
            try:
                os.fstat(fd)
            except OSError:
                return False
            return True
        print([fd for fd in range(1024) if held(fd)])
    """)
    result = run(code)
    assert result.stdout == b"[0, 1, 2, 3]\n", result.stderr


def test_runs_are_killed_and_launchers_end_when_the_builder_dies(tmp_path: Path) -> None:
    marker = f"site-builder-sandbox-abandoned-{os.getpid()}"
    script = textwrap.dedent(f"""
        import os, sys, threading, time
        sys.path.insert(0, {str(ROOT)!r})
        from site_builder.sandbox import runner as sandbox
        code = b"import time\\ntime.sleep(60)\\n"
        args = ([sys.executable, "main.py", "{marker}"], None, sandbox.Limits(wall=60))
        threading.Thread(target=sandbox.run, args=args, kwargs={{"files": {{"main.py": code}}}}, daemon=True).start()
        while not sandbox._LAUNCHERS.started:
            time.sleep(0.05)
        time.sleep(1)
        print(sandbox._LAUNCHERS.started[0].process.pid, flush=True)
        os._exit(1)
    """)
    builder = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    launcher = int(builder.stdout)
    for _ in range(50):
        if _state(launcher) in ("Z", "") and alive(marker) == []:
            break
        time.sleep(0.1)
    assert _state(launcher) in ("Z", "")
    assert alive(marker) == []


def test_a_run_dies_with_its_launcher(launchers: sandbox._Launchers) -> None:
    """A launcher killed during a run (from outside: no run can reach it) takes the run with it, with no
    sandbox as without one: nothing is left running that no launcher follows any more."""
    marker = f"site-builder-orphan-{os.getpid()}-{time.monotonic_ns()}"
    result: list[RunResult] = []
    going = threading.Thread(
        target=lambda: result.append(run("import time\ntime.sleep(30)", Limits(wall=30), args=(marker,)))
    )
    going.start()
    for _ in range(200):
        if found := alive(marker):
            break
        time.sleep(0.05)
    parent = int(Path(f"/proc/{found[0]}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(parent, signal.SIGKILL)  # its launcher: the outer one, or the sandbox's first process
    going.join(10)
    assert [r.signal for r in result] == [signal.SIGKILL]
    for _ in range(50):
        if not alive(marker):
            break
        time.sleep(0.1)
    assert alive(marker) == []


def test_a_launcher_whose_builder_goes_away_during_a_run_ends_quietly() -> None:
    """A build that fails (a full disk) exits while a run is going: the launcher, finding no one to
    report to, ends the run and itself without a traceback in the middle of the build's messages.
    (Here the builder's side stops reading at once, so the launcher's first report cannot arrive.)"""
    import marshal
    import socket

    ours, process = a_bare_launcher()
    assert marshal.loads(ours.recv(1 << 16)) == {"ready": True}
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["sleep", "31.4159"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
    ours.shutdown(socket.SHUT_RD)  # before the run is sent: its start's report always finds no reader
    socket.send_fds(ours, [marshal.dumps(request)], [null, null, null])
    os.close(null)
    _, errors = process.communicate(timeout=10)
    ours.close()
    assert b"Traceback" not in errors, errors.decode()
    assert alive("sleep 31.4159") == []


def test_a_run_whose_launcher_dies_is_killed_and_the_next_run_gets_a_new_one(
    launchers: sandbox._Launchers,
) -> None:
    """Whatever ends a launcher during a run (here a SIGKILL from outside) ends that run, which is
    reported killed with the reason; the launcher is dropped, and the next run starts on a new one."""
    marker = f"site-builder-sandbox-doomed-{os.getpid()}"
    assert run("print(1)").stdout == b"1\n"
    first = launchers.started[0]
    found: list[RunResult] = []
    thread = threading.Thread(target=lambda: found.append(run(SLEEPER, Limits(wall=20), args=(marker,))))
    thread.start()
    try:
        process = _wait_for(marker)
        os.kill(_parent(process), signal.SIGKILL)  # the launcher that forked the run (inside its sandbox, or not)
    finally:
        thread.join(30)
    (result,) = found
    assert result.signal == signal.SIGKILL and not result.timed_out, result
    assert result.wall < 10
    assert result.stderr.rstrip().splitlines()[-1].startswith("sandbox: the sandbox's launcher has gone"), result.stderr
    assert first not in launchers.started
    assert run("print(2)").stdout == b"2\n"
    assert alive(marker) == []


def test_a_run_is_born_in_its_launchers_groups(launchers: sandbox._Launchers) -> None:
    """Where the builder can make cgroups (root), the launcher joins its own before its first run, so
    that each run, and the sandbox, count against its limits of memory and processes."""
    marker = f"site-builder-sandbox-grouped-{os.getpid()}"
    if cgroup.hierarchy() is None:  # asked here: a launcher without a group where one could be made is the bug
        pytest.skip("no cgroups for this user")
    assert run("print(1)").stdout == b"1\n"
    (launcher,) = launchers.started
    assert launcher.group is not None
    found: list[RunResult] = []
    thread = threading.Thread(target=lambda: found.append(run(SLEEPER, Limits(wall=20), args=(marker,))))
    thread.start()
    process = _wait_for(marker)
    try:
        held = [folder for folder in launcher.group.folders if f"{process}" in _members(folder)]
    finally:
        os.kill(process, signal.SIGKILL)
        thread.join(30)
    assert held == list(launcher.group.folders)


def _members(group: Path) -> list[str]:
    return (group / "cgroup.procs").read_text().split()


def test_a_sandbox_gone_while_idle_is_replaced_and_the_run_started_there(launchers: sandbox._Launchers) -> None:
    """A sandbox whose first process died between runs (its outer launcher still alive) is found
    gone when the next run is sent to it: that run starts again, on a new launcher."""
    if not sandbox.isolated():
        pytest.skip("runs are not in a sandbox here")
    assert run("print(1)").stdout == b"1\n"
    (first,) = launchers.started
    outer = first.process.pid
    bwrap = next(pid for pid in _children(outer) if Path(f"/proc/{pid}/exe").resolve().name == "bwrap")
    (inside,) = _children(bwrap)
    os.kill(inside, signal.SIGKILL)
    for _ in range(100):
        if _state(inside) in ("Z", ""):
            break
        time.sleep(0.05)
    assert run("print(2)").stdout == b"2\n"
    assert first not in launchers.started and len(launchers.started) == 1


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


SLEEPER = "import sys, time\nprint('started', flush=True)\ntime.sleep(60)\n"


def _wait_for(marker: str) -> int:
    for _ in range(200):
        if found := alive(marker):
            return int(found[0])
        time.sleep(0.05)
    raise AssertionError(f"no process with {marker} started")


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_the_seccomp_filter_decides_by_number_and_flags() -> None:
    """The filter as the kernel runs it, for this machine's ABI: refused calls fail with EPERM, what
    programs need is allowed, and ``clone``, ``personality`` and ``socket`` are judged by argument."""
    from site_builder.sandbox import seccomp

    abi = seccomp.ABIS.get(os.uname().machine)
    if abi is None:
        pytest.skip("no seccomp filter for this machine")
    program = seccomp.sandbox_filter()
    eperm, enosys, allow = 0x00050000 | 1, 0x00050000 | 38, 0x7FFF0000

    def decide(name: str | int, *args: int, arch: int = abi.arch) -> int:
        number = name if isinstance(name, int) else abi.number(name)
        assert number is not None
        return _run_bpf(program, number, arch, args)

    for names in seccomp.DENIED.values():
        for name in names:
            if abi.number(name) is not None:
                assert decide(name) == eperm, name
    ordinary = ORDINARY[os.uname().machine]
    assert [decide(number) for number in ordinary] == [allow] * len(ordinary)
    assert decide("clone3") == enosys
    assert decide("clone", 0x003D0F00) == allow  # a thread, as pthread_create asks
    assert decide("clone", 0x01200011) == allow  # fork()
    for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        assert decide("clone", flag | 0x11) == eperm, hex(flag)
    assert [decide("personality", v) for v in (0, 8, 0x20000, 0x20008, 0xFFFFFFFF)] == [allow] * 5
    assert decide("personality", 0x0040000) == eperm  # ADDR_NO_RANDOMIZE
    assert decide("socket", 2) == allow and decide("socket", 1) == allow and decide("socket", 10) == allow
    assert decide("socket", 40) == eperm  # AF_VSOCK
    assert decide(0, arch=0x40000003) == enosys  # i386
    assert decide(0x40000000 | 1) == enosys  # x32


# read, write, openat, mmap, execve, futex, rseq (and x86-64's open)
ORDINARY = {"x86_64": (0, 1, 257, 9, 59, 202, 334, 2), "aarch64": (63, 64, 56, 222, 221, 98, 293)}


def _run_bpf(program: bytes, number: int, arch: int, args: tuple[int, ...]) -> int:
    """Classic BPF as seccomp runs it, over ``struct seccomp_data`` (little-endian words)."""
    import struct

    data = struct.pack("<iIQ6Q", number, arch, 0, *(list(args) + [0] * 6)[:6])
    ops = [struct.unpack_from("=HBBI", program, at) for at in range(0, len(program), 8)]
    pc, accumulator = 0, 0
    while True:
        code, jt, jf, k = ops[pc]
        if code == 0x20:  # ld [k]
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif code == 0x06:  # ret k
            return k
        else:
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[code]
            pc += jt if taken else jf
        pc += 1


def test_a_toolchain_under_tmp_is_shown_elsewhere_and_runs(tmp_path: Path) -> None:
    """A toolchain installed under /tmp (a builder in a virtual environment there, as CI's copy is)
    is shown where the sandbox's own /tmp cannot hide it, and the paths of a run's command line that
    name it follow it; the run's /tmp is still its own, empty working folder."""
    assert str(tmp_path).startswith("/tmp/")
    tool = tmp_path / "tool"
    (tool / "bin").mkdir(parents=True)
    (tool / "share.txt").write_text("from the toolchain\n")
    script = tool / "bin" / "show"
    script.write_text(f'#!/bin/sh\ncat "$1"\ncat {tool}/share.txt\nls -A /tmp\n')
    script.chmod(0o755)
    pool = sandbox._Launchers(namespaces=True)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sandbox, "_LAUNCHERS", pool)
            if not sandbox.isolated():
                pytest.skip("runs are not isolated on this machine")
            result = sandbox.run(
                [str(script), f"{tool}/share.txt"], None, Limits(wall=5), toolchain=sandbox.Toolchain.showing(tool)
            )
    finally:
        pool.close()
    assert result.exit_code == 0, result.stderr
    # The argument names the file where the sandbox shows it; the script's own text names the host
    # path, which the sandbox does not have. The run's /tmp holds nothing: not the host's, not the tool.
    assert result.stdout == b"from the toolchain\n"
    assert f"{tool}/share.txt: No such file" in result.stderr


def test_paths_in_the_sandboxs_own_places_are_shown_under_run_host() -> None:
    from site_builder.sandbox import isolation

    assert isolation.shown_at("/opt/tool") == "/opt/tool"
    assert isolation.shown_at("/tmp/venv/bin/python") == "/run/host/tmp/venv/bin/python"
    assert isolation.shown_at("/dev/shm/x") == "/run/host/dev/shm/x"
    assert isolation.shown_at("/tmpx/y") == "/tmpx/y"
    with pytest.raises(ValueError, match="/dev is the sandbox's own"):
        isolation.shown_at("/dev/sda")
    for path in ("/proc", "/proc/1/root"):
        with pytest.raises(ValueError, match="/proc is the sandbox's own"):
            isolation.shown_at(path)
    binds = (("/tmp/venv", "/tmp/venv"), ("/srv/x", "/srv/x"))
    assert isolation.shown_args(["/tmp/venv/bin/python", "-c", "/tmp/venvx", "/srv/x/y", "/tmp/venv"], binds) == [
        "/run/host/tmp/venv/bin/python",
        "-c",
        "/tmp/venvx",
        "/srv/x/y",
        "/run/host/tmp/venv",
    ]


def test_a_clone_whose_flags_look_like_an_allowed_personality_is_still_refused() -> None:
    """The filter judges ``clone`` by its own rule: CLONE_NEWNS alone is 0x20000, which is also the
    UNAME26 personality the filter allows."""
    from site_builder.sandbox import seccomp

    abi = seccomp.ABIS.get(os.uname().machine)
    if abi is None:
        pytest.skip("no seccomp filter for this machine")
    assert seccomp.supported()
    clone = abi.number("clone")
    assert clone is not None
    program = seccomp.sandbox_filter()
    eperm = 0x00050000 | 1
    for flags in (0x00020000, 0x00020008, 0xFFFFFFFF):
        assert _run_bpf(program, clone, abi.arch, (flags,)) == eperm, hex(flags)


def _destinations(args: list[str]) -> list[str]:
    """Every place a bubblewrap command line makes in the sandbox (a folder, a mount, a link or a file)."""
    operands = {"--dir": 1, "--tmpfs": 1, "--proc": 1, "--ro-bind": 2, "--dev-bind": 2, "--symlink": 2, "--file": 2}
    end = args.index("--")
    return [args[i + operands[a]] for i, a in enumerate(args[:end]) if a in operands]


def _holds(args: list[str], *words: str) -> bool:
    """Whether ``words`` stand together, in order, in ``args``."""
    return any(args[i : i + len(words)] == list(words) for i in range(len(args)))


@pytest.mark.parametrize("mode", ["root", "user"])
def test_the_sandbox_command_shows_what_the_spec_names_and_nothing_writable_besides_scratch(mode: str) -> None:
    from site_builder.sandbox import isolation
    from site_builder.sandbox.isolation import Isolation, Spec

    spec = Spec(
        binds=(("/opt/jdk", "/opt/jdk"), ("/tmp/venv", "/tmp/venv")),
        links=(("/opt/jdk/bin/java", "/usr/local/bin/java"),),
        made=(("/etc/passwd", 5),),
        dirs=("/opt/empty",),
        scratch=1 << 20,
        seccomp_fd=7,
    )
    args = isolation.command(Isolation(mode, "/usr/bin/bwrap"), ["/tmp/venv/bin/python", "-c", "x"], spec)
    assert args[0] == "/usr/bin/bwrap" and _holds(args, "--die-with-parent", "--new-session", "--as-pid-1")
    assert _holds(args, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
    if mode == "root":  # started as root with what it needs to become nobody, and nothing else
        assert _holds(args, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
        assert _holds(args, "--cap-add", "CAP_SETPCAP") and "--unshare-user" not in args
    else:
        assert _holds(args, "--unshare-user", "--disable-userns") and _holds(args, "--cap-drop", "ALL")
        assert "--cap-add" not in args
    for name in isolation.DEVICES:
        assert _holds(args, "--dev-bind", f"/dev/{name}", f"/dev/{name}")
    for target, path in isolation.DEV_LINKS:
        assert _holds(args, "--symlink", target, path)
    for where in ("/tmp", "/dev/shm"):
        assert _holds(args, "--perms", "1777", "--size", str(1 << 20), "--tmpfs", where)
    assert _holds(args, "--perms", "0755", "--dir", "/opt", "--ro-bind", "/opt/jdk", "/opt/jdk")
    assert _holds(args, "--ro-bind", "/tmp/venv", "/run/host/tmp/venv")
    assert _holds(args, "--perms", "0755", "--dir", "/usr/local", "--perms", "0755", "--dir", "/usr/local/bin")
    assert _holds(args, "--symlink", "/opt/jdk/bin/java", "/usr/local/bin/java")
    assert _holds(args, "--perms", "0444", "--file", "5", "/etc/passwd")
    assert _holds(args, "--perms", "0755", "--dir", "/opt/empty")
    assert args.count("/opt") == 1, "a folder is made once"
    places = _destinations(args)
    assert len(places) == len(set(places)) and "/" not in places, "nothing is made twice, nor over the root"
    made = {args[i + 1] for i, a in enumerate(args) if a == "--dir"}
    assert made == {"/etc", "/opt", "/run", "/run/host", "/run/host/tmp", "/usr/local", "/usr/local/bin", "/opt/empty"}
    tail = ["--chdir", "/", "--remount-ro", "/dev", "--remount-ro", "/", "--seccomp", "7", "--"]
    assert args[-3 - len(tail) : -3] == tail and args[-3:] == ["/run/host/tmp/venv/bin/python", "-c", "x"]
    assert "--seccomp" not in isolation.command(Isolation(mode, "/usr/bin/bwrap"), ["true"], Spec())
    assert _holds(isolation.command(Isolation(mode, "/usr/bin/bwrap"), ["true"], Spec(seccomp_fd=0)), "--seccomp", "0")


def test_the_isolation_says_what_it_is() -> None:
    from site_builder.sandbox.isolation import Isolation, scratch_options

    assert Isolation("root", "bwrap").describe().startswith("bubblewrap, as nobody (65534), no network")
    assert Isolation("user", "bwrap").describe().startswith(f"bubblewrap, uid {os.getuid()} in a user namespace")
    assert Isolation("none", reason="no bwrap").describe().startswith("NONE: no bwrap; runs have this user's rights")
    assert Isolation("user").isolated and not Isolation("none").isolated
    assert scratch_options(1 << 20) == "mode=1777,size=1048576,nr_inodes=1024"
    assert scratch_options(64 << 20) == "mode=1777,size=67108864,nr_inodes=8192"


def test_the_isolation_probe_says_why_a_sandbox_does_not_start(tmp_path: Path) -> None:
    from site_builder.sandbox import isolation
    from site_builder.sandbox.isolation import Isolation

    found = isolation.detect()
    if found.isolated:
        assert isolation._probe(found) == ""
    mode = "root" if os.geteuid() == 0 else "user"
    missing = tmp_path / "no-bwrap"
    assert isolation._probe(Isolation(mode, str(missing))) == f"[Errno 2] No such file or directory: '{missing}'"
    assert isolation._probe(Isolation(mode, "/bin/false")) == "exit code 1"
    noisy = tmp_path / "noisy-bwrap"
    noisy.write_text("#!/bin/sh\necho first >&2\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    noisy.chmod(0o755)
    assert isolation._probe(Isolation(mode, str(noisy))) == "bwrap: No permissions to create new namespace"


def test_the_isolation_probe_runs_with_nothing_of_the_builder_and_gives_up_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe's bubblewrap reads no input of the builder's and has its own PATH alone; one that hangs is
    stopped; a probe that fails on the way leaves no descriptor open."""
    from site_builder.sandbox import isolation, seccomp
    from site_builder.sandbox.isolation import Isolation

    mode = "root" if os.geteuid() == 0 else "user"
    telling = tmp_path / "telling-bwrap"
    telling.write_text('#!/bin/sh\necho "stdin=$(readlink /proc/self/fd/0) PATH=$PATH HOME=${HOME-none}" >&2\nexit 1\n')
    telling.chmod(0o755)
    read, write = os.pipe()
    saved = os.dup(0)
    try:
        os.dup2(read, 0)  # a builder whose standard input is a pipe, whose data is not the probe's to read
        told = isolation._probe(Isolation(mode, str(telling)))
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read, write):
            os.close(fd)
    assert told == "stdin=/dev/null PATH=/usr/bin:/bin HOME=none"

    hanging = tmp_path / "hanging-bwrap"
    hanging.write_text("#!/bin/sh\nexec sleep 30\n")
    hanging.chmod(0o755)
    monkeypatch.setattr(isolation, "PROBE_TIMEOUT", 0.5)
    assert isolation._probe(Isolation(mode, str(hanging))).endswith("timed out after 0.5 seconds")

    def broken() -> bytes:
        raise OSError("no filter today")

    opened = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(seccomp, "sandbox_filter", broken)
    assert isolation._probe(Isolation(mode, str(telling))) == "no filter today"
    assert set(os.listdir("/proc/self/fd")) == opened
