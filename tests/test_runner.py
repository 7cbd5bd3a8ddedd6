"""What the builder makes of a run, without starting one: how ``runner.py`` reads a launcher's answers and
a run's pipes into a verdict's facts (limits met or exceeded, signals, what was read), against a stand-in
launcher at the other end of a socket. The same paths with real launchers are in ``test_sandbox.py``."""

from __future__ import annotations

import contextlib
import marshal
import os
import resource
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from site_builder.sandbox import isolation
from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.runner import KILL, STDERR_KEPT, Limits, RunResult

MiB = 1 << 20


@dataclass
class StandIn:
    """The launcher's side of a ``Launcher``: its socket's other end, and the run's pipes' writing ends."""

    launcher: sandbox.Launcher
    peer: socket.socket
    writers: dict[str, int]
    readers: dict[str, int]
    groups: list[tuple[int, int]] = field(default_factory=list)
    kills: list[bytes] = field(default_factory=list)  # what the stand-in read while waiting for a stop

    def write(self, name: str, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.writers[name], view) :]

    def end(self, status: int = 0, **extra: Any) -> None:
        """The run ends: its pipes close, and the launcher reports it."""
        self.close_pipes()
        self.peer.send(marshal.dumps({"status": status, "cpu": 0.25, **extra}))

    def close_pipes(self) -> None:
        for name in list(self.writers):
            os.close(self.writers.pop(name))

    def wait_for_kill(self) -> None:
        """Wait (a few seconds at most: then the run ends anyway) for the builder to stop the run."""
        self.peer.settimeout(5.0)
        with contextlib.suppress(TimeoutError):
            self.kills.append(self.peer.recv(1 << 16))

    def told(self) -> list[bytes]:
        """What the builder sent the launcher (and has not been read yet)."""
        messages, self.kills = self.kills, []
        self.peer.setblocking(False)
        try:
            while True:
                messages.append(self.peer.recv(1 << 16))
        except BlockingIOError:
            return messages
        finally:
            self.peer.settimeout(20.0)

    def follow(self, limits: Limits, started: float | None = None, **caps: int) -> sandbox._Ended:
        streams = {self.readers[name]: cap for name, cap in caps.items()}
        return self.launcher.follow(streams, limits, time.perf_counter() if started is None else started)


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    ours, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    peer.settimeout(20.0)  # a stand-in waiting for a message that never comes gives up
    launcher = object.__new__(sandbox.Launcher)
    launcher.sock = launcher.outer = ours
    launcher.limits = Limits()
    launcher.broken = False
    launcher.process = SimpleNamespace(poll=lambda: 3)  # type: ignore[assignment]
    pipes = {name: os.pipe() for name in ("out", "err", "col")}
    for _, write in pipes.values():
        os.set_blocking(write, False)
    made = StandIn(launcher, peer, {n: w for n, (_, w) in pipes.items()}, {n: r for n, (r, _) in pipes.items()})
    launcher.group = SimpleNamespace(limit=lambda *limits: made.groups.append(limits))  # type: ignore[assignment]
    yield made
    made.close_pipes()
    for read in made.readers.values():
        os.close(read)
    ours.close()
    peer.close()


class Clock:
    """``time`` as ``runner`` reads it, where each reading is a minute after the one before: every deadline
    has passed by the next look, and waiting for one never waits. A builder that never gives up is
    failed after a few hundred readings (rather than left to fill the launcher's socket with requests
    to stop, and hang)."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 60.0
        if self.now > 100 * 60.0:
            raise AssertionError("still waiting after 100 minutes")
        return self.now


def test_a_run_that_ends_in_time_is_read_whole_with_its_end(stand_in: StandIn) -> None:
    stand_in.write("out", b"answer\n")
    stand_in.write("err", b"warning\n")
    stand_in.write("col", b"collected")
    stand_in.end(status=3 << 8, ended=12.5)
    ended = stand_in.follow(Limits(wall=5), out=100, err=-100, col=100)
    assert ended.read == {
        stand_in.readers["out"]: b"answer\n",
        stand_in.readers["err"]: b"warning\n",
        stand_in.readers["col"]: b"collected",
    }
    assert (ended.status, ended.cpu, ended.at) == (3 << 8, 0.25, 12.5)
    assert not (ended.stopped or ended.timed_out or ended.output_exceeded or ended.lost)
    assert stand_in.told() == []


def test_a_run_that_ends_before_its_deadline_is_not_stopped(stand_in: StandIn) -> None:
    """The run ends a moment after it started, within its second: nothing tells it to stop."""
    later = threading.Timer(0.3, stand_in.end)
    later.daemon = True
    later.start()
    ended = stand_in.follow(Limits(wall=5), out=100)
    assert not ended.timed_out and stand_in.told() == []


def test_a_run_past_its_deadline_is_told_to_stop_once_and_reported_timed_out(stand_in: StandIn) -> None:
    def launcher() -> None:
        stand_in.wait_for_kill()
        stand_in.write("out", b"late")  # what it writes once told to stop is not kept
        stand_in.end(status=int(signal.SIGKILL))

    thread = threading.Thread(target=launcher, daemon=True)
    thread.start()
    ended = stand_in.follow(Limits(wall=0.05), out=100)
    thread.join()
    assert ended.timed_out and ended.stopped and not ended.output_exceeded and not ended.lost
    assert ended.status == signal.SIGKILL
    assert ended.read[stand_in.readers["out"]] == b""
    assert stand_in.told() == [KILL]


def test_the_deadline_counts_from_when_the_run_started(stand_in: StandIn) -> None:
    def launcher() -> None:
        stand_in.wait_for_kill()
        stand_in.end(status=int(signal.SIGKILL))

    thread = threading.Thread(target=launcher, daemon=True)
    thread.start()
    ended = stand_in.follow(Limits(wall=5), started=time.perf_counter() - 5, out=100)
    thread.join()
    assert ended.timed_out and stand_in.told() == [KILL]


def test_a_launcher_is_given_time_to_end_a_run_it_was_told_to_stop(stand_in: StandIn) -> None:
    """Killing a run and everything it started takes a moment: the builder waits for the launcher's
    report (up to 10 s) rather than give it up as broken."""

    def launcher() -> None:
        stand_in.wait_for_kill()
        time.sleep(0.5)
        stand_in.end(status=int(signal.SIGKILL))

    thread = threading.Thread(target=launcher, daemon=True)
    thread.start()
    ended = stand_in.follow(Limits(wall=0.05), out=100)
    thread.join()
    assert ended.timed_out and not ended.lost and ended.status == signal.SIGKILL


def test_a_launcher_is_given_time_to_end_a_run_stopped_for_its_output(stand_in: StandIn) -> None:
    def launcher() -> None:
        stand_in.wait_for_kill()
        time.sleep(0.5)
        stand_in.end(status=int(signal.SIGKILL))

    stand_in.write("out", b"z" * 200)
    thread = threading.Thread(target=launcher, daemon=True)
    thread.start()
    ended = stand_in.follow(Limits(wall=5), out=100)
    thread.join()
    assert ended.output_exceeded and not ended.lost and ended.status == signal.SIGKILL


def test_a_launcher_that_does_not_end_a_run_it_stopped_is_given_up_on(
    stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "time", Clock())
    ended = stand_in.follow(Limits(wall=1), started=0.0, out=100)
    assert ended.timed_out
    assert ended.lost == "the sandbox's launcher did not end a run it was told to stop"
    assert stand_in.told() == [KILL]


def test_output_past_its_limit_stops_the_run_and_is_cut_at_the_limit(stand_in: StandIn) -> None:
    """Read in pieces of 64 KiB: the second passes the limit; the run is told to stop once, and what
    comes after is not kept."""
    import fcntl

    fcntl.fcntl(stand_in.writers["out"], fcntl.F_SETPIPE_SZ, 1 * MiB)
    data = bytes(range(256)) * 1024  # 256 KiB
    stand_in.write("out", data)
    stand_in.end(status=int(signal.SIGKILL))
    ended = stand_in.follow(Limits(wall=5), out=100_000, err=-100)
    assert ended.output_exceeded and not ended.timed_out
    assert ended.read[stand_in.readers["out"]] == data[:100_000]
    assert stand_in.told() == [KILL]


def test_output_of_exactly_the_limit_is_kept_whole(stand_in: StandIn) -> None:
    stand_in.write("out", b"x" * 1000)
    stand_in.write("col", b"y" * 1000)
    stand_in.end()
    ended = stand_in.follow(Limits(wall=5), out=1000, col=1000)
    assert not ended.output_exceeded and stand_in.told() == []
    assert ended.read[stand_in.readers["out"]] == b"x" * 1000


def test_standard_error_keeps_its_end(stand_in: StandIn) -> None:
    import fcntl

    fcntl.fcntl(stand_in.writers["err"], fcntl.F_SETPIPE_SZ, 1 * MiB)
    data = b"".join(b"line %6d\n" % n for n in range(6000))  # 66,000 bytes: read as 64 KiB, then 464 bytes
    stand_in.write("err", data)
    stand_in.end(status=1 << 8)
    ended = stand_in.follow(Limits(wall=5), err=-len(data))
    kept = ended.read[stand_in.readers["err"]]
    assert data.endswith(kept) and STDERR_KEPT <= len(kept) <= 3 * STDERR_KEPT
    assert not ended.output_exceeded and stand_in.told() == []


def test_standard_error_past_its_limit_stops_the_run(stand_in: StandIn) -> None:
    stand_in.write("err", b"e" * 2000)
    stand_in.end(status=int(signal.SIGKILL))
    ended = stand_in.follow(Limits(wall=5), err=-1999)
    assert ended.output_exceeded and stand_in.told() == [KILL]


def test_a_launcher_gone_during_a_run_is_reported_and_what_the_run_wrote_is_read(stand_in: StandIn) -> None:
    stand_in.write("out", b"partial")
    stand_in.close_pipes()
    stand_in.peer.close()
    ended = stand_in.follow(Limits(wall=5), out=100)
    assert ended.lost == "the sandbox's launcher has gone (exit code 3)"
    assert ended.read[stand_in.readers["out"]] == b"partial"
    assert not ended.timed_out


def test_a_launcher_gone_while_the_runs_pipes_stay_open_is_not_waited_for(
    stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Something else holds the run's pipes open (a process that escaped the kill): the builder reads
    on for a moment after the launcher's end, then gives up, without telling anyone to stop."""
    monkeypatch.setattr(sandbox, "time", Clock())
    stand_in.launcher.process = SimpleNamespace(poll=lambda: None)  # type: ignore[assignment]
    stand_in.peer.close()
    ended = stand_in.follow(Limits(wall=5), started=0.0, out=100)
    assert ended.lost == "the sandbox's launcher has gone"
    assert not ended.timed_out and not ended.stopped


def test_an_end_without_its_time_is_dated_when_it_is_read(stand_in: StandIn) -> None:
    stand_in.end(status=0)
    before = time.perf_counter()
    ended = stand_in.follow(Limits(wall=5), out=100)
    assert before <= ended.at <= time.perf_counter()


def test_a_run_is_started_with_its_limits_and_a_refusal_is_an_error(stand_in: StandIn) -> None:
    stand_in.peer.send(marshal.dumps({}))
    stand_in.launcher.start({"argv": ["./a"]}, [], Limits(processes=3, memory=100 * MiB))
    (request,) = stand_in.told()
    assert marshal.loads(request) == {"argv": ["./a"]}
    assert stand_in.groups == [sandbox._group_limits(Limits(processes=3, memory=100 * MiB))]
    stand_in.peer.send(marshal.dumps({}))
    stand_in.launcher.start({"argv": ["./a"]}, [], Limits(processes=3, memory=100 * MiB, wall=1))
    assert len(stand_in.groups) == 1  # the same group limits: not set again
    stand_in.told()
    stand_in.peer.send(marshal.dumps({"error": "No such file"}))
    with pytest.raises(sandbox.LauncherError, match=r"could not start \./b: No such file"):
        stand_in.launcher.start({"argv": ["./b"]}, [], Limits(processes=3, memory=100 * MiB))


def test_a_run_sent_to_a_launcher_gone_says_so(stand_in: StandIn) -> None:
    stand_in.peer.close()
    with pytest.raises(sandbox.LauncherGone, match="the sandbox's launcher has gone"):
        stand_in.launcher.start({"argv": ["./a"]}, [], Limits())


def result(status: int, wrapped: bool = False, lost: str = "", **kept: Any) -> RunResult:
    facts = sandbox._Ended(status=status, cpu=0.5, at=7.0, read={1: b"out", 2: b"err", 3: b"col"}, lost=lost)
    for name, value in kept.items():
        setattr(facts, name, value)
    return sandbox._result(facts, 1.5, (1, 2, 3), wrapped)


def test_a_runs_result_says_how_it_ended() -> None:
    assert result(3 << 8) == RunResult(
        exit_code=3,
        signal=None,
        wall=1.5,
        cpu=0.5,
        stdout=b"out",
        stderr="err",
        timed_out=False,
        output_exceeded=False,
        collected=b"col",
        ended=7.0,
    )
    killed = result(signal.SIGKILL, timed_out=True, output_exceeded=True)
    assert (killed.exit_code, killed.signal, killed.timed_out, killed.output_exceeded) == (None, 9, True, True)


@pytest.mark.parametrize(
    ("code", "wrapped", "expected"),
    [
        (137, True, (None, 9)),  # the collecting shell's report of SIGKILL
        (137, False, (137, None)),  # the program's own exit code
        (128, True, (128, None)),
        (129, True, (None, 1)),
        (192, True, (None, 64)),
        (193, True, (193, None)),
        (0, True, (0, None)),
    ],
)
def test_a_signal_is_read_from_the_collecting_shells_exit_code(
    code: int, wrapped: bool, expected: tuple[int | None, int | None]
) -> None:
    got = result(code << 8, wrapped)
    assert (got.exit_code, got.signal) == expected


def test_a_run_killed_with_its_sandbox_says_why_at_the_end_of_its_standard_error() -> None:
    got = result(0, lost="the sandbox's launcher has gone")
    assert (got.exit_code, got.signal) == (None, signal.SIGKILL)
    assert got.stderr == "err\nsandbox: the sandbox's launcher has gone; the run was killed with its sandbox\n"


def test_a_runs_standard_error_is_its_last_bytes_decoded_leniently() -> None:
    facts = sandbox._Ended(read={2: b"\xff" + b"a" * (STDERR_KEPT - 2) + b"\xfe", 3: b""})
    got = sandbox._result(facts, 0.0, (-1, 2, 3), False)
    assert got.stderr == "\ufffd" + "a" * (STDERR_KEPT - 2) + "\ufffd"
    assert got.stdout == b""  # its output went to another run
    facts.read[2] = b"x" + b"a" * STDERR_KEPT
    assert sandbox._result(facts, 0.0, (-1, 2, 3), False).stderr == "a" * STDERR_KEPT


def test_a_result_without_an_end_time_is_dated_when_it_is_made() -> None:
    before = time.perf_counter()
    got = sandbox._result(sandbox._Ended(read={2: b"", 3: b""}), 0.0, (-1, 2, 3), False)
    assert before <= got.ended <= time.perf_counter()


@pytest.mark.parametrize("root", [True, False])
def test_the_rlimits_are_those_of_the_limits(root: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    monkeypatch.setattr(sandbox, "_running_processes", lambda: 40)
    limits = Limits(wall=2.5, memory=300 * MiB, file_size=5 * MiB, processes=7, stack=64 * MiB)
    expected = {  # (soft, hard): CPU time stops at a second past the wall-clock limit, SIGXCPU then SIGKILL
        resource.RLIMIT_CPU: (3, 4),
        resource.RLIMIT_FSIZE: (5 * MiB, 5 * MiB),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_AS: (300 * MiB, 300 * MiB),
        resource.RLIMIT_STACK: (64 * MiB, 64 * MiB),
    }
    if not root:  # a per-user count: room for the run's processes besides those the user has
        expected[resource.RLIMIT_NPROC] = (47, 47)
    got = sandbox._rlimits(limits)
    assert {name: (soft, hard) for name, soft, hard in got} == expected and len(got) == len(expected)
    assert dict((n, (s, h)) for n, s, h in sandbox._rlimits(Limits(cpu=1.2)))[resource.RLIMIT_CPU] == (2, 3)


def test_no_address_space_or_stack_limit_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    got = {name: (soft, hard) for name, soft, hard in sandbox._rlimits(Limits(address_space=False, stack=0))}
    assert resource.RLIMIT_AS not in got and resource.RLIMIT_STACK not in got


def test_a_launchers_group_holds_the_run_and_its_helpers_and_every_tmpfs() -> None:
    """The run's own processes and the program, the launcher, its renewer, bubblewrap's two and the
    collecting shell; memory for the run, each tmpfs full, and 64 MiB for the launcher and bubblewrap."""
    limits = Limits(processes=5, memory=200 * MiB, scratch=10 * MiB)
    assert sandbox._group_limits(limits) == (5 + 6, 200 * MiB + len(isolation.SCRATCH) * 10 * MiB + 64 * MiB)


def test_a_launcher_that_does_not_answer_in_time_is_an_error_and_its_socket_blocks_again(stand_in: StandIn) -> None:
    late = threading.Timer(5.0, stand_in.peer.send, (marshal.dumps({"late": 1}),))  # a builder that waits on fails
    late.daemon = True
    late.start()
    with pytest.raises(sandbox.LauncherError, match=r"^the sandbox's launcher did not answer: timed out$"):
        stand_in.launcher._receive(0.05)
    assert stand_in.launcher.sock.gettimeout() is None
    late.cancel()
    stand_in.peer.send(marshal.dumps({"started": 1}))
    assert stand_in.launcher._receive(5.0) == {"started": 1}
    assert stand_in.launcher.sock.gettimeout() is None


def test_a_stopped_run_is_told_to_stop_at_once_and_said_interrupted(stand_in: StandIn) -> None:
    """Ctrl-C (``stop_runs``) ends a run that has minutes left on its clock now, not at its limit."""
    from site_builder.sandbox import stopping

    followed: list[sandbox._Ended] = []
    thread = threading.Thread(target=lambda: followed.append(stand_in.follow(Limits(wall=600), out=100)))
    thread.start()
    try:
        stopping.stop_runs()
        stand_in.wait_for_kill()
        assert stand_in.kills == [KILL]
        stand_in.end(status=int(signal.SIGKILL))
        thread.join(20)
        [ended] = followed
        assert ended.interrupted and ended.stopped and not ended.timed_out and not ended.lost
        with pytest.raises(stopping.RunStopped):  # and no run starts until the runs resume
            sandbox.run(["true"], b"", Limits())
    finally:
        stopping.resume_runs()
        thread.join(20)
    assert not stopping.stopped()


def test_a_stop_is_one_and_the_process_s_own() -> None:
    """``stop_runs`` stops this process's runs alone: a forked child (a render worker, the watcher's
    build) has a stop of its own, which does not reach the parent, nor the parent's reach it; a stop
    asked any number of times is one, and ``resume_runs`` undoes it."""
    import select

    from site_builder.sandbox import stopping

    fresh = stopping._Stop()  # (the module's own was made at import)
    fresh.stop()
    assert fresh.stopped and select.select([fresh.fd()], [], [], 0)[0]
    fresh.resume()
    assert not fresh.stopped and not select.select([fresh.fd()], [], [], 0)[0]

    ours = stopping.stop_signal()
    pipe = os.fstat(ours).st_ino  # (a child's pipe may get the same descriptor numbers: told apart by inode)

    def in_child(check: Callable[[], bool]) -> int:
        pid = os.fork()
        if pid == 0:
            try:
                os._exit(0 if check() else 1)
            except BaseException:
                os._exit(2)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    def child_stops() -> bool:
        own = stopping.stop_signal()
        stopping.stop_runs()
        return os.fstat(own).st_ino != pipe and stopping.stopped() and bool(select.select([own], [], [], 0)[0])

    assert in_child(child_stops) == 0
    assert not stopping.stopped() and not select.select([ours], [], [], 0)[0]  # not ours
    try:
        for _ in range(100_000):  # more than a pipe holds: still one stop, and no wait
            stopping.stop_runs()
        assert stopping.stopped() and select.select([ours], [], [], 0)[0]
        not_theirs = lambda: os.fstat(stopping.stop_signal()).st_ino != pipe and not stopping.stopped()  # noqa: E731
        assert in_child(not_theirs) == 0
    finally:
        stopping.resume_runs()
    assert not stopping.stopped() and not select.select([ours], [], [], 0)[0]
