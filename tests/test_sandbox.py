"""The sandbox's launchers: runs are limited and leave nothing behind, with namespaces and without them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.runner import Limits, RunResult
from site_builder.verify.runtimes import python_runtime

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["namespaces", "no namespaces"])
def launchers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[sandbox._Launchers]:
    """Fresh launchers, either isolating runs or as on a machine where namespaces are not available."""
    pool = sandbox._Launchers(namespaces=request.param == "namespaces")
    monkeypatch.setattr(sandbox, "_LAUNCHERS", pool)
    yield pool
    pool.close()


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
    assert time.perf_counter() - started < 4
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
        f"(3, 3) {512 << 20}",
        "(0, 0) True ['main.py']",
        "0 True",
    ]


def test_a_missing_program_is_a_failed_run_with_a_reason(launchers: sandbox._Launchers) -> None:
    result = sandbox.run(["no-such-program-here"], None, Limits(wall=2))
    assert result.exit_code in (1, 127)  # bubblewrap's own failure, or setpriv's, or the launcher's
    assert "no-such-program-here" in result.stderr and "No such file" in result.stderr


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


def test_a_launcher_whose_builder_goes_away_during_a_run_ends_quietly() -> None:
    """A build that fails (a full disk) exits while a run is going: the launcher, finding no one to
    report to, ends the run and itself without a traceback in the middle of the build's messages.
    (Here the builder's side stops reading at once, so the launcher's first report cannot arrive.)"""
    import marshal
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", str(sandbox.LAUNCHER), str(theirs.fileno())],
        pass_fds=(theirs.fileno(),),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    theirs.close()
    assert marshal.loads(ours.recv(1 << 16)) == {"ready": True}
    null = os.open(os.devnull, os.O_RDWR)
    request = {"argv": ["sleep", "31.4159"], "env": {"PATH": "/usr/bin:/bin"}, "rlimits": [], "streams": 3}
    socket.send_fds(ours, [marshal.dumps(request)], [null, null, null])
    os.close(null)
    ours.shutdown(socket.SHUT_RD)
    _, errors = process.communicate(timeout=10)
    ours.close()
    assert b"Traceback" not in errors, errors.decode()
    assert alive("sleep 31.4159") == []
