"""``site-builder`` handing a build to the archive's watcher (``launch.py``), which runs it in a forked
child (``buildhost.py``) as the build would have run itself; and running it itself when it cannot."""

from __future__ import annotations

import gc
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, ArchiveMaker
from test_watcher import processes, wait_for, watcher_pid

from site_builder import buildhost, launch, store
from site_builder.publish import resume
from site_builder.source import watched
from site_builder.source.watchsocket import SOCKET

ENTRY = {
    "site.yaml": "title: T\n",
    "t/A-echo/solution.md": "## Idea\n\nEcho the line.\n",
    "t/A-echo/solution.py": "print(input())\n",
    "t/A-echo/samples/1.in": "7\n",
    "t/A-echo/samples/1.ans": "7\n",
}


def run(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m site_builder ARGV`` as a maintainer at a terminal would run it (with a watcher)."""
    environment = {**os.environ, "SITE_BUILDER_WATCH": "1", "PYTHONPATH": str(ROOT), **(env or {})}
    command = [sys.executable, "-m", "site_builder", *argv]
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(make_archive: ArchiveMaker, tmp_path: Path) -> Iterator[Path]:
    """A project folder whose archive has a watcher (started by a first build), stopped at the end."""
    make_archive(ENTRY)
    first = run(tmp_path, "build", "--no-verify", "--archive", "archive")
    assert first.returncode == 0, first.stderr
    assert "Ran in the archive's watcher" not in first.stderr
    wait_for(lambda: watched.ask(tmp_path / ".cache", {"since": None}) is not None, 30)  # (it imports the builder)
    yield tmp_path
    (tmp_path / ".cache" / SOCKET).unlink(missing_ok=True)


def handed(result: subprocess.CompletedProcess[str]) -> bool:
    return "Ran in the archive's watcher: peak RSS" in result.stderr


def test_a_build_is_handed_to_the_watcher_and_runs_as_it_would_itself(project: Path) -> None:
    (project / "archive/t/A-echo/solution.md").write_text("## Idea\n\nPrint the line it reads.\n")
    result = run(project / "archive", "build", "--no-verify", "--timings", "--root", "..", "--archive", ".")
    assert result.returncode == 0 and handed(result), result.stderr
    assert "Built 1 entry" in result.stdout and "\n  write " in result.stdout  # its streams are this process's
    assert "Built" not in result.stderr
    page = next((project / "site").rglob("A-echo*/index.html")).read_text()
    assert "Print the line it reads." in page  # the working folder was this process's
    quiet = run(project, "build", "--no-verify", "--archive", "archive", "-q")
    assert quiet.returncode == 0 and not quiet.stdout and not handed(quiet)  # (said only with --timings)


def test_a_handed_build_takes_this_process_s_environment_and_exit_code(project: Path) -> None:
    (project / "archive/t/A-echo/solution.py").write_text("print(int(input()) + 1)\n")
    argv = ["build", "--archive", "archive", "--format", "github", "--fail-on", "failing", "--timings"]
    big = {f"BIG_{n}": "x" * 100_000 for n in range(4)}  # (a request of 400 kB: more than one send, or recv)
    failing = run(project, *argv, env={"GITHUB_WORKSPACE": str(project / "archive"), **big})
    assert failing.returncode == 1 and handed(failing), failing.stderr
    assert "file=t/A-echo/samples/1.in" in failing.stdout  # named from GITHUB_WORKSPACE, set here only
    (project / "archive/t/A-echo/solution.py").write_text("print(input())\n")
    passing = run(project, *argv)
    assert passing.returncode == 0 and handed(passing), passing.stderr


def children_of(pid: int) -> list[int]:
    return [found for found, _, _, parent in processes() if parent == pid]


def default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_interrupts_the_handed_build_and_its_child_ends(project: Path) -> None:
    (project / "archive/t/A-echo/solution.py").write_text("import time\ntime.sleep(60)\n")
    host = watcher_pid(project / ".cache")
    assert host is not None
    command = [sys.executable, "-m", "site_builder", "build", "--archive", "archive", "--jobs", "1"]
    environment = {**os.environ, "SITE_BUILDER_WATCH": "1", "PYTHONPATH": str(ROOT)}
    # Started as at a terminal, with Ctrl-C's default: a test run started in the background (``cmd &``)
    # ignores SIGINT, and so would every process it starts.
    client = subprocess.Popen(
        command, cwd=project, env=environment, stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c
    )
    wait_for(lambda: children_of(host), 30)  # the build runs in the watcher's child
    time.sleep(1.0)
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=60)
    assert client.returncode == 130 and "Interrupted; the previous site was left as it was." in err, err
    wait_for(lambda: not children_of(host), 30)


def test_without_a_watcher_or_with_watching_off_the_build_runs_itself(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = make_archive(ENTRY)
    argv = ["build", "--no-verify", "--root", str(tmp_path), "--archive", str(archive), "-q"]
    monkeypatch.setenv("SITE_BUILDER_WATCH", "0")
    monkeypatch.setattr(launch, "connect", lambda *_: pytest.fail("asked a watcher"))
    assert launch.main(argv) == 0 and (tmp_path / "site/index.html").is_file()
    monkeypatch.setenv("SITE_BUILDER_WATCH", "")
    monkeypatch.setenv("CI", "true")  # ("ask": a running watcher only)
    asked: list[Path] = []
    monkeypatch.setattr(launch, "connect", lambda cache, _: asked.append(cache))
    assert launch.main(argv) == 0
    assert asked == [tmp_path / ".cache"]


class Refusing:
    """A watcher that answers a build's request with ``answer`` (or not at all), and keeps what it got."""

    def __init__(self, cache: Path, answer: bytes | None) -> None:
        cache.mkdir(parents=True, exist_ok=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(cache / SOCKET))
        self.listener.listen(1)
        self.answer, self.request, self.fds = answer, b"", 0
        self.files: list[tuple[int, int]] = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        conn, _ = self.listener.accept()
        while not self.request.endswith(b"\n"):
            data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 8)
            self.request, self.fds = self.request + data, self.fds + len(fds)
            self.files += [(os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in fds]
            for fd in fds:
                os.close(fd)
        if self.answer == b"hold":
            self.held = conn  # (no answer, and the connection kept open)
            return
        if self.answer is not None:
            conn.sendall(self.answer)
        conn.close()


@pytest.mark.parametrize(
    "answer",
    [b'{"refused": "the builder changed since this watcher started"}\n', b"{}\n", b"[1]\n", b"", None, b"hold"],
)
def test_a_build_the_watcher_does_not_start_runs_itself(
    answer: bytes | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(launch, "START_SECONDS", 0.5)
    watcher = Refusing(tmp_path / "cache", answer)
    started = time.monotonic()
    assert launch.hand_off(["build", "--no-verify"], tmp_path / "cache") is None
    assert time.monotonic() - started < 5
    request = json.loads(watcher.request)
    assert request["build"] == ["build", "--no-verify"] and watcher.fds == 4  # three streams and a folder
    assert request["environment"] == dict(os.environ) and request["identity"] == buildhost.identity()
    assert request["limits"]["RLIMIT_NOFILE"] == list(resource.getrlimit(resource.RLIMIT_NOFILE))
    mask = os.umask(0o022)
    os.umask(mask)
    assert request["umask"] == mask and request["program"] == sys.argv[0]
    assert request["encodings"] == [[sys.stdout.encoding, sys.stdout.errors], [sys.stderr.encoding, sys.stderr.errors]]
    standard = [(os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in (0, 1, 2)]
    assert watcher.files[:3] == standard and watcher.files[3] == (os.stat(".").st_dev, os.stat(".").st_ino)


@pytest.mark.parametrize(
    ("ended", "code"), [(b'{"code": 3, "usage": {}}\n', 3), (b'{"usage": {}}\n', 1), (b"", 1), (b"[3]\n", 1)]
)
def test_a_handed_build_ends_with_its_child_s_code_or_says_it_has_none(
    ended: bytes, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    mine, theirs = socket.socketpair()
    theirs.sendall(ended)
    theirs.close()
    assert launch._outcome(mine, mine.makefile("rb"), False) == code
    assert ("ended without an exit code" in capsys.readouterr().err) == (code == 1)


def answered(host: buildhost.BuildHost, request: dict[str, Any], fds: int = 4) -> tuple[bool, dict[str, Any]]:
    mine, theirs = socket.socketpair()
    with mine, theirs:
        passed = [os.open(os.devnull, os.O_RDONLY) for _ in range(fds)]
        try:
            ends = host.hand(mine, request, passed)
        finally:
            for fd in passed:
                os.close(fd)
        theirs.settimeout(5)
        return ends, json.loads(theirs.makefile("rb").readline())


def test_a_build_from_another_builder_python_or_place_is_refused_and_another_builder_ends_the_watcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = tmp_path / "site_builder"
    (code / "render").mkdir(parents=True)
    (code / "render/content.py").write_text("x = 1\n")
    monkeypatch.setattr(buildhost, "PACKAGE", code)
    host = buildhost.BuildHost(tmp_path / "cache")
    host.code = buildhost.code_stamp()
    assert str(code / "render/content.py") in host.code
    assert any(entry.endswith("site-packages") for entry in host.code)  # (where pip installs libraries)
    good = {"build": ["build"], "identity": buildhost.identity()}
    for other in ({"python": ["/usr/bin/python3", sys.version]}, {"package": "/elsewhere"}):
        assert answered(host, {**good, "identity": {**good["identity"], **other}}) == (
            True,
            {"refused": "the builder changed since this watcher started"},
        )
    elsewhere = {"refused": "the build runs in another cgroup or namespace"}
    assert answered(host, {**good, "identity": {**good["identity"], "place": []}}) == (False, elsewhere)
    assert answered(host, {**good, "identity": "me"}) == (False, elsewhere)
    assert answered(host, {**good, "build": "build"}) == (False, {"refused": "not a build's request"})
    assert answered(host, good, fds=3) == (False, {"refused": "not a build's request"})
    (code / "render/content.py").write_text("x = 2\n")
    assert answered(host, good)[0] is True
    assert not host.children


def test_the_identity_is_the_python_the_builder_s_folder_and_the_place() -> None:
    assert buildhost.identity() == {
        "python": [sys.executable, sys.version],
        "package": str(Path(buildhost.__file__).resolve().parent),
        "place": buildhost.place(),
    }


def test_the_code_stamp_follows_the_builder_s_files_and_pip_s_folders_not_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, libraries = tmp_path / "site_builder", tmp_path / "site-packages"
    (code / "__pycache__").mkdir(parents=True)
    libraries.mkdir()
    (code / "cli.py").write_text("x = 1\n")
    monkeypatch.setattr(buildhost, "PACKAGE", code)
    monkeypatch.setattr(buildhost.site, "getsitepackages", lambda: [str(libraries)])
    monkeypatch.setattr(buildhost.site, "getusersitepackages", lambda: str(tmp_path / "no-such-folder"))
    first = buildhost.code_stamp()
    assert first.keys() == {str(code / "cli.py"), str(libraries)}
    (code / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"compiled")  # (compileall, or an import)
    assert buildhost.code_stamp() == first
    (libraries / "jinja2-9.dist-info").mkdir()  # pip installed another version
    assert buildhost.code_stamp() != first


def test_the_place_is_the_cgroup_and_namespaces() -> None:
    place = buildhost.place()
    assert place[0] == Path("/proc/self/cgroup").read_text()
    assert place[1:] == [os.readlink(f"/proc/self/ns/{name}") for name in ("ipc", "mnt", "net", "pid", "user", "uts")]


def test_the_child_takes_the_build_s_streams_folder_mask_limits_and_environment(tmp_path: Path) -> None:
    """``buildhost._become`` in a forked child, which writes what it then is to the stream it got as stdout."""
    folder, out = tmp_path / "here", tmp_path / "out.json"
    folder.mkdir()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    request = {
        "umask": 0o027,
        "limits": {"RLIMIT_NOFILE": [min(soft, 200), min(hard, 300)], "RLIMIT_BOGUS": [1, 1]},
        "environment": {"ONLY": "this"},
        "program": "site-builder",
        "build": ["build", "-q"],
        "encodings": [["utf-8", "strict"], ["utf-8", "backslashreplace"]],
    }
    mine, theirs = socket.socketpair()
    extra = os.open(os.devnull, os.O_RDONLY)  # an inherited descriptor the child must not keep
    stdin, stdout = os.open(os.devnull, os.O_RDONLY), os.open(out, os.O_WRONLY | os.O_CREAT)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # (as the host's shell left it)
            buildhost._become(theirs, request, [stdin, stdout, stdout, os.open(folder, os.O_PATH)])
            kept = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
            seen = {
                "cwd": os.getcwd(),
                "umask": os.umask(0),
                "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
                "environment": dict(os.environ),
                "argv": sys.argv,
                "fds": kept,
                "conn": theirs.fileno(),
                "timeout": theirs.gettimeout(),
                "ctrl_c": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
            }
            sys.stdout.write(json.dumps(seen))
            sys.stdout.flush()
        finally:
            os._exit(0)
    for fd in (extra, stdin, stdout):
        os.close(fd)
    os.waitpid(pid, 0)
    mine.close()
    seen = json.loads(out.read_text())
    assert seen["cwd"] == str(folder) and seen["umask"] == 0o027 and seen["environment"] == {"ONLY": "this"}
    assert seen["nofile"] == [min(soft, 200), min(hard, 300)] and seen["argv"] == ["site-builder", "build", "-q"]
    assert seen["fds"][:3] == [0, 1, 2] and seen["conn"] in seen["fds"] and extra not in seen["fds"]
    assert len(seen["fds"]) <= 5 and seen["timeout"] is None  # (and the one listdir reads through)
    assert seen["ctrl_c"] is True


def test_the_host_reads_the_record_ahead_after_its_builds_end(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.cli import main

    archive = make_archive(ENTRY)
    assert main(["build", "--no-verify", "--root", str(tmp_path), "--archive", str(archive), "-q"]) == 0
    monkeypatch.setattr(store, "_READ_AHEAD", {})
    host = buildhost.BuildHost(tmp_path / ".cache")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - a build's child
        os._exit(0)
    host.children.add(pid)
    assert host.busy()
    wait_for(lambda: (host.reap(), not host.busy())[1])
    assert store._READ_AHEAD  # every file resume.load read, with its bytes
    noted = next(v["items"]["t/A-echo"] for _, v in store._READ_AHEAD.values() if "t/A-echo" in v.get("items", {}))
    record = resume.load(tmp_path / ".cache")
    assert record is not None and record.entries["t/A-echo"] is noted  # read ahead, not read again
    assert not store._READ_AHEAD  # each handed once


def test_a_value_read_ahead_is_handed_once_and_only_for_the_same_bytes(tmp_path: Path) -> None:
    kept = store.PickleStore(tmp_path)
    kept.put("one", {"a": [1]})
    kept.put("two", {"b": [2]})
    assert not store._reading_ahead
    with store.reading_ahead():
        first = kept.get("one")
        kept.get("two")
    assert store._READ_AHEAD.keys() == {tmp_path / "on/one.pickle", tmp_path / "tw/two.pickle"}
    kept.put("two", {"b": [3]})
    assert kept.get("one") is first  # (the host's: a child has a copy of it)
    assert kept.get("one") == first and kept.get("one") is not first
    assert kept.get("two") == {"b": [3]}  # other bytes: read again
    assert not store._READ_AHEAD
    kept.get("one")
    assert not store._READ_AHEAD  # nothing kept outside ``reading_ahead``


class Host:
    def __init__(self) -> None:
        self.handed: list[tuple[dict[str, Any], list[int]]] = []

    def hand(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> bool:
        assert isinstance(conn, socket.socket)  # (the child answers on it)
        self.handed.append((request, [os.dup(fd) for fd in fds]))
        return request["build"] == ["stop"]


@pytest.mark.parametrize("build", [["build"], ["stop"]])
def test_the_watcher_hands_a_build_s_request_and_descriptors_to_its_host_and_closes_its_own(build: list[str]) -> None:
    from site_builder.source.watcher import _answer

    host, (mine, theirs) = Host(), socket.socketpair()
    with mine, theirs, open(os.devnull) as null:
        asked = json.dumps({"build": build, "environment": {"BIG": "x" * 200_000}}).encode() + b"\n"
        theirs.setblocking(False)  # (more than one piece: the descriptors come with the first)
        sent = socket.send_fds(theirs, [asked], [null.fileno()] * 4)
        rest = threading.Thread(target=lambda: (theirs.setblocking(True), theirs.sendall(asked[sent:])))
        rest.start()
        passed = os.dup(null.fileno())  # (the number the first passed descriptor had in mine, now free)
        os.close(passed)
        assert _answer(mine, None, None, host) is (build == ["stop"])  # type: ignore[arg-type]
        rest.join()
        [(request, fds)] = host.handed
        assert request["build"] == build and len(fds) == 4
        with pytest.raises(OSError):
            os.fstat(passed)  # the watcher's copies are closed: the child has its own
        for fd in fds:
            os.close(fd)


def test_the_host_reads_the_kept_stamp_parts_ahead_as_a_build_reads_them(tmp_path: Path) -> None:
    kept = store.PickleStore(tmp_path / "stamp")
    parts = {f"/a/{n}": (f"d{n}", n, (), False) for n in range(40)}
    first = watched._Kept(kept, {})
    first.save({"key": "k"}, parts)  # a base
    second = watched._Kept(kept, kept.get(watched.HEAD))
    assert second.parts() == parts
    second.save({"key": "k"}, {**parts, "/a/1": ("changed", 1, (), False)})  # and its differences
    expected = {**parts, "/a/1": ("changed", 1, (), False)}
    assert watched.kept_parts(tmp_path) == expected
    with store.reading_ahead():
        watched.kept_parts(tmp_path)
    assert {path.parent.parent for path in store._READ_AHEAD} == {tmp_path / "stamp"}
    store._READ_AHEAD.clear()
    (tmp_path / "stamp").rename(tmp_path / "gone")
    assert watched.kept_parts(tmp_path) is None


@pytest.mark.parametrize("isolated", [True, False])
def test_the_host_keeps_a_working_sandbox_s_probe_and_not_a_failed_one(
    isolated: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.sandbox import isolation

    class Probe:
        cleared = False

        def __call__(self) -> Any:
            return isolation.Isolation("root" if isolated else "none", reason="" if isolated else "no bwrap")

        def cache_clear(self) -> None:
            self.cleared = True

    probe = Probe()
    monkeypatch.setattr(isolation, "detect", probe)
    monkeypatch.setattr(store, "_READ_AHEAD", {})
    host = buildhost.BuildHost(tmp_path)
    try:
        host.ready()
    finally:
        gc.unfreeze()
    assert probe.cleared is not isolated
    assert host.code == buildhost.code_stamp()  # what later builds' code is compared with


def test_a_running_build_is_not_reaped_and_nothing_is_read_ahead_while_none_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = buildhost.BuildHost(tmp_path)
    read: list[bool] = []
    monkeypatch.setattr(host, "read_ahead", lambda: read.append(True))
    host.reap()
    assert not read  # (the loop turns every few seconds, busy or not)
    running = subprocess.Popen(["sleep", "30"])
    try:
        host.children.add(running.pid)
        host.reap()
        assert host.children == {running.pid} and not read
    finally:
        running.kill()
        wait_for(lambda: (host.reap(), not host.busy())[1])
    assert read == [True]


def test_the_host_forks_a_child_that_runs_the_build_and_says_its_code(tmp_path: Path) -> None:
    host = buildhost.BuildHost(tmp_path)
    host.code = buildhost.code_stamp()
    out, folder = tmp_path / "out.txt", tmp_path / "here"
    folder.mkdir()
    request = {
        "build": ["schema", "site"],
        "identity": buildhost.identity(),
        "program": "site-builder",
        "environment": dict(os.environ),
        "umask": 0o022,
        "limits": {},
        "encodings": [["utf-8", "strict"], ["utf-8", "backslashreplace"]],
    }
    mine, theirs = socket.socketpair()
    with mine, theirs:
        passed = [os.open(os.devnull, os.O_RDONLY), os.open(out, os.O_WRONLY | os.O_CREAT), os.open(folder, os.O_PATH)]
        try:
            assert host.hand(mine, request, [passed[0], passed[1], passed[1], passed[2]]) is False
        finally:
            for fd in passed:
                os.close(fd)
        assert len(host.children) == 1
        theirs.settimeout(60)
        said = theirs.makefile("rb")
        started, ended = json.loads(said.readline()), json.loads(said.readline())
    assert started == {"started": next(iter(host.children))}
    assert ended["code"] == 0 and ended["usage"]["maxrss_kib"] > 0
    assert json.loads(out.read_text())["title"]  # site.yaml's JSON Schema, printed by the child
    wait_for(lambda: (host.reap(), not host.busy())[1])


class Interrupted:
    """A reader of the watcher's answers that Ctrl-C interrupts ``times`` times, then reads ``line``."""

    def __init__(self, times: int, line: bytes | None) -> None:
        self.times, self.line = times, line

    def readline(self) -> bytes:
        if self.times:
            self.times -= 1
            raise KeyboardInterrupt
        if self.line is None:
            raise ConnectionResetError
        return self.line


def test_ctrl_c_while_a_handed_build_runs_asks_the_watcher_to_interrupt_it() -> None:
    mine, theirs = socket.socketpair()
    with mine, theirs:
        assert launch._outcome(mine, Interrupted(1, b'{"code": 130, "usage": {}}\n'), False) == 130
        theirs.settimeout(5)
        assert theirs.recv(10) == b"\n"  # the child's thread interrupts the build, which says what it kept
        assert launch._outcome(mine, Interrupted(1, b'{"code": 0, "usage": {}}\n'), False) == 0
        assert launch._outcome(mine, Interrupted(2, b""), False) == 130  # a second Ctrl-C: not waited for
        assert launch._outcome(mine, Interrupted(0, None), False) == 1  # (the watcher's process was killed)


def test_the_cache_a_build_asks_in_is_the_one_its_options_name(tmp_path: Path) -> None:
    from site_builder.arguments import command_parser
    from site_builder.source.config import make_options

    for argv in (["build", "--root", str(tmp_path)], ["check", "--root", str(tmp_path), "--cache", "c"]):
        args = command_parser().parse_args(argv)
        assert launch._cache(args) == make_options(args.root, args.archive, args.out, cache=args.cache).cache


def test_only_a_build_or_a_check_is_handed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SITE_BUILDER_WATCH", "1")
    asked: list[tuple[list[str], Path, bool]] = []
    monkeypatch.setattr(launch, "hand_off", lambda argv, cache, timings: asked.append((argv, cache, timings)) or 7)
    assert launch.main(["schema", "site"]) == 0 and not asked
    check, build = ["check", "--root", str(tmp_path)], ["build", "--root", str(tmp_path), "--timings"]
    assert launch.main(check) == 7 and launch.main(build) == 7
    assert asked == [(check, tmp_path / ".cache", False), (build, tmp_path / ".cache", True)]
    monkeypatch.setattr(sys, "argv", ["site-builder", "schema", "site"])
    capsys.readouterr()
    assert launch.main() == 0 and json.loads(capsys.readouterr().out)["title"] == "site.yaml"  # (its own arguments)
    monkeypatch.setattr(sys, "argv", ["site-builder", *check])
    assert launch.main() == 7 and asked[-1][0] == check


def test_a_watcher_without_a_host_answers_a_build_s_request_as_a_question(tmp_path: Path) -> None:
    from site_builder.source.inotify import Inotify
    from site_builder.source.watcher import Tree, _answer

    notify = Inotify()
    try:
        tree = Tree(notify, str(tmp_path), frozenset(), 100)
        tree.start()
        mine, theirs = socket.socketpair()
        with mine, theirs:
            theirs.sendall(json.dumps({"build": ["build"]}).encode() + b"\n")
            assert _answer(mine, tree, notify, None) is False
            theirs.settimeout(5)
            assert json.loads(theirs.makefile("rb").readline())["lost"] is True  # (no "started": built by itself)
    finally:
        notify.close()
