"""The red-team corpus: archives that attack the machine that builds them, and what must hold.

Each test builds a small hostile archive as a contributor could write it and asserts that the host
is untouched: no marker file outside the run, no host secret and no builder environment variable
in any published file, a bounded build with the right verdict, no process left behind. The
control tests run the same attacks without a sandbox, to show that each one is real.

They run as whoever runs the tests: as root in CI, and as an unprivileged user where ``.ci/run``
can make one (``SITE_BUILDER_REDTEAM_USER``).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.sandbox import isolation, seccomp
from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.runner import Limits
from site_builder.verify import compiler
from site_builder.verify.runtimes import python_runtime

SECRET = f"redteam-secret-{uuid.uuid4().hex}"
ADD_IN, ADD_ANS = "2 3\n", "5\n"

pytestmark = pytest.mark.skipif(not sandbox.isolated(), reason="no sandbox here: bubblewrap is not available")


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    """A credential in the builder's environment, as CI's deploy token is."""
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)
    return SECRET


@pytest.fixture
def markers(tmp_path: Path) -> Iterator[list[Path]]:
    """Places a run must never write: beside the test, in the host's /tmp and /dev/shm."""
    tag = uuid.uuid4().hex
    paths = [tmp_path / "host" / f"marker-{tag}", Path(f"/tmp/redteam-{tag}"), Path(f"/dev/shm/redteam-{tag}")]
    (tmp_path / "host").mkdir()
    yield paths
    for path in paths:
        path.unlink(missing_ok=True)


def host_secrets() -> list[str]:
    """Text of the host's that must never be published: what of /etc/shadow this user can read."""
    try:
        lines = Path("/etc/shadow").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if line.split(":")[1:2] not in ([""], ["*"], ["!"], ["!*"])] or lines[:1]


def published_text(site: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file() and not p.is_symlink())


def build(archive: Path, tmp_path: Path) -> tuple[Path, float]:
    out = tmp_path / "site"
    started = time.perf_counter()
    build_site(options_for(archive, out, verify=True))
    return out, time.perf_counter() - started


def entry(code: str, *, extra: dict[str, str] | None = None, name: str = "A-x") -> dict[str, str | bytes]:
    base = f"t/{name}"
    files: dict[str, str | bytes] = {
        f"{base}/problem.yaml": "time_limit: 3\n",
        f"{base}/solution.py": code,
        f"{base}/samples/1.in": ADD_IN,
        f"{base}/samples/1.ans": ADD_ANS,
    }
    files.update({f"{base}/{k}": v for k, v in (extra or {}).items()})
    return files


def verdicts(out: Path) -> dict[str, list[str]]:
    import json

    found: dict[str, list[str]] = {}
    for result in json.loads((out / "verification.json").read_text())["results"]:
        found.setdefault(f"{result['entry']}/{result['solver']}", []).append(result["verdict"])
    return found


# What a hostile solver tries, printed to standard output, which the entry page publishes.
PROBE = textwrap.dedent(
    """
    import ctypes, glob, os, socket
    libc = ctypes.CDLL(None, use_errno=True)
    found = []

    def attempt(label, action):
        try:
            found.append(f"{label}: {action()!r}"[:4000])
        except BaseException as error:
            found.append(f"{label}: {type(error).__name__} {error}"[:400])

    def call(result):
        return (result, ctypes.get_errno())

    attempt("uid", lambda: (os.getuid(), os.geteuid()))
    attempt("caps", lambda: [l for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "NoNewPrivs"))])
    attempt("environment", lambda: dict(os.environ))
    for path in sorted(glob.glob("/proc/[0-9]*/environ")):
        attempt(path, lambda path=path: open(path, "rb").read())
    for path in ["/etc/shadow", "/etc/passwd", "/root/.bashrc", READ_PATHS]:
        attempt("read " + path, lambda path=path: open(path, "rb").read())
    for path in WRITE_PATHS:
        attempt("write " + path, lambda path=path: open(path, "w").write("pwned"))
    attempt("umount /usr", lambda: call(libc.umount2(b"/usr", 2)))
    attempt("remount / rw", lambda: call(libc.mount(None, b"/", None, 0x20, None)))
    attempt("user namespace", lambda: call(libc.unshare(0x10000000)))
    for path in sorted(glob.glob("/proc/*/ns/mnt")):
        attempt("setns " + path, lambda path=path: call(libc.setns(os.open(path, os.O_RDONLY), 0)))
    attempt("connect", lambda: socket.create_connection(("127.0.0.1", PORT), timeout=1))
    attempt("listing /", lambda: sorted(os.listdir("/")))
    print("\\n".join(found))
    """
)


def probe(write: list[Path], read: list[Path], port: int) -> str:
    return (
        PROBE.replace("READ_PATHS]", ", ".join(repr(str(p)) for p in read) + "]")
        .replace("WRITE_PATHS", repr([str(p) for p in write]))
        .replace("PORT", str(port))
    )


def test_a_solver_reaches_nothing_of_the_host(
    make_archive: ArchiveMaker, tmp_path: Path, secret: str, markers: list[Path]
) -> None:
    import socket

    cache = tmp_path / ".cache"
    with socket.create_server(("127.0.0.1", 0)) as server:
        archive = make_archive({})
        writes = [*markers, archive / "t" / "A-x" / "pwned", cache / "pwned", Path.home() / f".pwned-{markers[0].name}"]
        code = probe(writes, [archive / "t" / "A-x" / "samples" / "1.ans", cache], server.getsockname()[1])
        make_archive(entry(code))
        out, seconds = build(archive, tmp_path)
    text = published_text(out)
    page = (out / "t" / "A-x" / "index.html").read_text()
    assert "user namespace: (-1, 1)" in page  # the probe ran, and EPERM met it
    assert "umount /usr: (-1, 1)" in page and "remount / rw: (-1, 1)" in page
    assert "connect: ConnectionRefusedError" in page
    if os.geteuid() == 0:
        assert "uid: (65534, 65534)" in page
    assert r"CapEff:\t0000000000000000" in page and r"NoNewPrivs:\t1" in page
    assert secret.encode() not in text
    for line in host_secrets():
        assert line.encode() not in text
    for path in writes:
        assert not path.exists(), f"the solver wrote {path}"
    assert not any(cache.rglob("pwned"))
    assert verdicts(out) == {"t/A-x/solution.py": ["WA"]}
    assert seconds < 60


def test_control_without_the_sandbox_the_probe_does_reach_the_host(
    make_archive: ArchiveMaker, tmp_path: Path, secret: str, markers: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same attack where no sandbox can be had: it writes its markers and prints the secret."""
    monkeypatch.setattr(sandbox, "_LAUNCHERS", sandbox._Launchers(namespaces=False))
    code = (
        f"import os\nopen({str(markers[0])!r}, 'w').write('x')\nprint(open(f'/proc/{{os.getppid()}}/environ').read())\n"
    )
    archive = make_archive(entry(code))
    out, _ = build(archive, tmp_path)
    assert markers[0].exists()
    assert secret.encode() in published_text(out)


def test_compilers_see_no_host_file_and_take_no_option_from_a_file_name(
    make_archive: ArchiveMaker, tmp_path: Path, markers: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    monkeypatch.setattr(
        compiler, "COMPILE_LIMITS", Limits(wall=30, cpu=5, memory=1024 << 20, output=64 << 20, scratch=256 << 20)
    )
    main = "int main(){int a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n"
    package = {
        "t/P-pkg/problem.yaml": "problem_format_version: 2025-09\nname: Package\n",
        "t/P-pkg/data/sample/1.in": ADD_IN,
        "t/P-pkg/data/sample/1.ans": ADD_ANS,
        "t/P-pkg/submissions/accepted/a.py": "a, b = map(int, input().split())\nprint(a + b)\n",
        "t/P-pkg/output_validator/validator.cpp": "int main(){return 42;}\n",
        "t/P-pkg/output_validator/@opts.cc": f"-wrapper /bin/sh,-c,touch\\ {markers[0]}\n",
    }
    cpp = {
        "passwd": '#include "/etc/passwd"\n',
        "shadow": 'asm(".incbin \\"/etc/shadow\\"");\n',
        "zero": '#include "/dev/zero"\n',
        "stdin": '#include "/dev/stdin"\n',
        # Each constant is under g++'s operation limit; there are 5,000 of them, minutes of work.
        "bomb": "#include <utility>\nconstexpr long f(long k){ long s = 0; for (long i = 0; i < 1000000; ++i)"
        " s += (i ^ k) & 1; return s; }\ntemplate<long K> constexpr long v = f(K);\n"
        "template<long... K> long total(std::integer_sequence<long, K...>) { return (v<K> + ...); }\n"
        "long all = total(std::make_integer_sequence<long, 5000>{});\n",
    }
    files: dict[str, str | bytes] = dict(package)
    for name, source in cpp.items():
        files |= entry("print(5)\n", extra={"solution.cpp": "#include <iostream>\n" + source + main}, name=f"C-{name}")
    archive = make_archive(files)
    out, seconds = build(archive, tmp_path)
    text = published_text(out)
    assert not markers[0].exists()
    assert "may not start with" in (out / "t" / "P-pkg" / "index.html").read_text()
    passwd = Path("/etc/passwd").read_text().splitlines()[0]
    assert passwd.encode() not in text.replace(b"/etc/passwd", b"")
    for line in host_secrets():
        assert line.encode() not in text
    pages = {name: (out / "t" / f"C-{name}" / "index.html").read_text() for name in cpp}
    assert "/etc/passwd: No such file or directory" in pages["passwd"]
    assert "/etc/shadow" in pages["shadow"] and "redefinition" not in pages["shadow"]
    assert "out of memory" in pages["zero"]
    # stopped at its 5 s of CPU time (on a machine too busy to give it those within 30 s, on the clock)
    assert "g++ took longer than 5 s of CPU time" in pages["bomb"] or "on this busy machine" in pages["bomb"]
    assert "does not compile" not in pages["stdin"] and "compile error" not in pages["stdin"]  # stdin is empty
    assert verdicts(out)["t/C-stdin/solution.cpp"] == ["AC"]
    assert seconds < 120
    assert outlived("cc1plus", seconds=20) == []


def outlived(name: str, seconds: float) -> list[str]:
    """The processes called ``name`` alive now that are still alive ``seconds`` later: a compiler the
    build failed to kill works on for minutes, while one another test (or program) runs meanwhile
    ends within seconds. The same process, not a later one given its number (its start time)."""
    found = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True).stdout.split()
    started = {pid: _start_time(pid) for pid in found}
    deadline = time.monotonic() + seconds
    while (left := [pid for pid, when in started.items() if when and _start_time(pid) == when]) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.2)
    return left


def _start_time(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def test_checker_feedback_comes_through_a_pipe_never_a_link_or_a_fifo(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    checker = textwrap.dedent(
        """
        import os, sys
        kind = open(sys.argv[1]).read().split()[0]
        path = os.path.join(sys.argv[3], "judgemessage.txt")
        if kind == "2":
            os.mkfifo(path)
        else:
            os.symlink("/etc/shadow", path)
        sys.exit(42)
        """
    )
    files: dict[str, str | bytes] = {}
    for name, given in (("A-fifo", "2 3\n"), ("A-link", "1 4\n")):
        extra = {"checker.py": checker, "problem.yaml": "time_limit: 1\n"}  # the FIFO's wait ends at the limit
        files |= entry("a, b = map(int, input().split())\nprint(a + b)\n", extra=extra, name=name)
        files[f"t/{name}/samples/1.in"] = given
    archive = make_archive(files)
    out, seconds = build(archive, tmp_path)
    found = verdicts(out)
    assert found["t/A-link/solution.py"] == ["AC"]  # the link points at nothing the sandbox has
    assert found["t/A-fifo/solution.py"] == ["CE"]  # the copy waits on the FIFO until the time limit
    for line in host_secrets():
        assert line.encode() not in published_text(out)
    assert seconds < 60


def test_git_obeys_nothing_the_archive_configures(
    make_archive: ArchiveMaker, tmp_path: Path, markers: list[Path]
) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    archive = make_archive(entry("print(5)\n"))
    program = tmp_path / "host" / "gpg"
    program.write_text(f"#!/bin/sh\ntouch {markers[0]}\n")
    program.chmod(0o755)
    git = ["git", "-C", str(archive), "-c", "user.name=x", "-c", "user.email=x@x"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    tree = subprocess.run([*git, "write-tree"], check=True, capture_output=True, text=True).stdout.strip()
    signed = (
        f"tree {tree}\nauthor x <x@x> 1700000000 +0000\ncommitter x <x@x> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    made = subprocess.run(
        [*git, "hash-object", "-t", "commit", "-w", "--stdin"], input=signed, check=True, capture_output=True, text=True
    )
    subprocess.run([*git, "update-ref", "HEAD", made.stdout.strip()], check=True)
    subprocess.run([*git, "config", "log.showSignature", "true"], check=True)
    subprocess.run([*git, "config", "gpg.program", str(program)], check=True)
    # Control: git as the builder used to run it does run the program.
    subprocess.run(["git", "-C", str(archive), "log", "-1"], capture_output=True, check=False)
    assert markers[0].exists()
    markers[0].unlink()
    out, _ = build(archive, tmp_path)
    assert not markers[0].exists()
    assert (out / "t" / "A-x" / "index.html").is_file()


def test_the_sandbox_leaves_no_process_and_no_run_folder(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = uuid.uuid4().hex
    scratch = tmp_path / "tmp"  # this build's temporary folders, not those of a build beside it
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code = textwrap.dedent(
        f"""
        import os, subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "{tag}"], start_new_session=True)
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", "{tag}"])
        open("/tmp/left-{tag}", "w").write("x")
        open("/dev/shm/left-{tag}", "w").write("x")
        print(5)
        """
    )
    archive = make_archive(entry(code))
    out, _ = build(archive, tmp_path)
    assert verdicts(out) == {"t/A-x/solution.py": ["AC"]}
    found = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    assert [pid for pid in found if int(pid) != os.getpid()] == []
    assert not Path(f"/tmp/left-{tag}").exists() and not Path(f"/dev/shm/left-{tag}").exists()
    assert list(scratch.iterdir()) == []


def test_isolation_is_reported_and_strict_refuses_without_it(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(entry("print(5)\n"))
    argv = [sys.executable, "-m", "site_builder.cli", "build", "--archive", str(archive), "--out", str(tmp_path / "s")]
    argv += ["--cache", str(tmp_path / "c"), "--strict"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=Path(__file__).parent.parent)
    assert done.stdout.startswith("Sandbox: bubblewrap"), done.stdout + done.stderr
    env = {**os.environ, "PATH": str(tmp_path / "empty")}  # no bwrap on the PATH
    (tmp_path / "empty").mkdir()
    argv[argv.index("--out") + 1] = str(tmp_path / "s2")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=Path(__file__).parent.parent)
    assert done.returncode == 1
    assert "without a sandbox" in done.stderr and "bubblewrap (bwrap) is not installed" in done.stderr
    assert not (tmp_path / "s2").exists()


def test_a_run_leaves_nothing_for_the_next_in_the_same_sandbox() -> None:
    """Runs share their launcher's sandbox one at a time: the next finds no process, file, IPC
    object of the one before, and none can trace or read the sandbox's first process."""
    exe, toolchain = python_runtime(sys.executable)
    first = textwrap.dedent(
        """
        import ctypes, os, subprocess, sys
        libc = ctypes.CDLL(None, use_errno=True)
        open("/tmp/left", "w").write("x")
        open("/dev/shm/left", "w").write("x")
        os.makedirs("/tmp/locked/deep")
        os.chmod("/tmp/locked", 0)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
        print("shm", libc.shmget(0, 4096, 0o1666), ctypes.get_errno())
        print("trace", libc.ptrace(16, 1, None, None), ctypes.get_errno())  # PTRACE_ATTACH to the first process
        try:
            open("/proc/1/mem", "rb")
        except OSError as error:
            print("mem", error.errno)
        """
    )
    second = (
        "import os\nprocesses = sorted(p for p in os.listdir('/proc') if p.isdigit())\n"
        "print(sorted(os.listdir('/tmp')), os.listdir('/dev/shm'), processes == sorted(['1', str(os.getpid())]))\n"
    )
    limits = Limits(wall=10)
    one = sandbox.run([exe, "main.py"], None, limits, files={"main.py": first.encode()}, toolchain=toolchain)
    two = sandbox.run([exe, "main.py"], None, limits, files={"main.py": second.encode()}, toolchain=toolchain)
    assert one.stdout.decode().split("\n")[:3] == ["shm -1 1", "trace -1 1", "mem 13"], one
    assert two.stdout.decode() == "['main.py'] [] True\n", two  # the first process, and this one


# Issue #34, finding 1: what one entry's run leaves must not reach another entry's. Every place a
# run can write is found from the mounts (any read-write one but /proc), filled as far as it goes,
# and planted with an input; /dev/stdin is pointed at it.
HOG = textwrap.dedent(
    """
    import os

    def writable():
        found = set()
        for line in open("/proc/self/mountinfo"):
            point, options = line.split()[4], line.split()[5].split(",")
            if "rw" not in options or point.startswith(("/proc", "/sys")) or not os.path.isdir(point):
                continue
            for top, _, _ in os.walk(point):
                probe = os.path.join(top, f".probe-{os.getpid()}")
                try:
                    os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
                except OSError:
                    continue
                os.unlink(probe)
                found.add(top)
        return sorted(found)

    places = writable()
    print("writable:", " ".join(places))
    try:
        os.unlink("/dev/stdin")
        os.symlink("/tmp/planted", "/dev/stdin")
        print("replaced /dev/stdin")
    except OSError as error:
        print("/dev/stdin:", error.strerror)
    chunk = b"x" * (1 << 20)
    for place in places:
        with open(os.path.join(place, "planted"), "w") as handle:
            handle.write("40 2\\n")
        held = files = 0
        try:
            for n in range(256):  # 256 files of 16 MiB, as the report's solver wrote into /dev
                with open(os.path.join(place, f"hog-{n}"), "wb") as handle:
                    for _ in range(16):
                        handle.write(chunk)
                        held += 1
        except OSError:
            pass
        try:
            for n in range(100000):
                os.close(os.open(os.path.join(place, f"f{n}"), os.O_CREAT | os.O_WRONLY, 0o600))
                files += 1
        except OSError:
            pass
        print(f"{place}: {held} MiB, {files} files")
    """
)
HONEST_STDIN = "a, b = map(int, open('/dev/stdin').read().split())\nprint(a + b)\n"
AFTER = (
    "import os\nfor place in ('/tmp', '/dev/shm'):\n"
    "    s = os.statvfs(place)\n"
    "    used = (s.f_blocks - s.f_bfree) * s.f_frsize >> 20\n"
    "    print(f'{place}: {\" \".join(sorted(os.listdir(place)))}; {used} MiB, {s.f_files - s.f_ffree} files')\n"
)


def test_nothing_a_run_leaves_reaches_the_next_entry(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """The red team's solver held 4 GiB in an unprivileged build's /dev, past every cap, and made
    /dev/stdin a link to its own file, so that the next entry's honest solver read a planted input
    and was judged Wrong Answer. Now the only places a run can write are ``isolation.SCRATCH``, each
    capped in bytes and files (and counted in the run's memory), and each is new for every run."""
    slow = {"problem.yaml": "time_limit: 10\n"}
    files = entry(HOG, extra=slow, name="A-hog") | entry(HONEST_STDIN, name="B-honest")
    files |= entry(AFTER, name="C-after")
    archive = make_archive(files)
    out, seconds = build(archive, tmp_path)
    found = verdicts(out)
    assert found["t/B-honest/solution.py"] == ["AC"], "the honest solver read what the other entry left"
    hog = output_of(out, "A-hog")
    assert f"writable: {' '.join(sorted(isolation.SCRATCH))}\n" in hog, hog
    assert "/dev/stdin: Read-only file system" in hog or "/dev/stdin: Permission denied" in hog, hog
    scratch = Limits().scratch
    for place in isolation.SCRATCH:
        held, files_made = re.search(rf"{place}: (\d+) MiB, (\d+) files", hog).groups()  # type: ignore[union-attr]
        assert int(held) <= scratch >> 20, f"{place} held {held} MiB"
        assert int(files_made) < 10000, f"{place} took {files_made} files"
    assert sandbox._group_limits(Limits())[1] >= Limits().memory + len(isolation.SCRATCH) * scratch
    after = output_of(out, "C-after")
    assert "/tmp: solution.py; 0 MiB, 2 files\n" in after, after
    assert "/dev/shm: ; 0 MiB, 1 files\n" in after, after
    assert seconds < 90


def output_of(out: Path, name: str) -> str:
    """The output an entry's page shows for its solver, as text."""
    return html.unescape((out / "t" / name / "index.html").read_text())


# Issue #34, finding 2: a run that leaves 1,200 nested folders made the launcher's recursive clean-up
# fail; the launcher died, and the build stopped naming no file. Here deeper still: 3,000 levels of
# 200-character names (no path can name the bottom), locked folders, and a folder per inode left.
BURROW = textwrap.dedent(
    """
    import os
    path = "/tmp"
    for _ in range(1200):
        path += "/d"
        os.mkdir(path)
    for top in ("/tmp", "/dev/shm"):
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
        for _ in range(3000):
            os.mkdir("n" * 200, 0o700, dir_fd=fd)
            deeper = os.open("n" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        os.mkdir("locked", 0, dir_fd=fd)
    os.chmod("/tmp/d", 0)
    try:
        for n in range(100000):
            os.mkdir(f"/dev/shm/{n}")
    except OSError:
        pass
    a, b = map(int, input().split())
    print(a + b)
    """
)


def test_no_run_can_take_its_launcher_down(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = entry(BURROW, name="A-burrow") | entry("a, b = map(int, input().split())\nprint(a + b)\n", name="B-next")
    archive = make_archive(files)
    out, seconds = build(archive, tmp_path)
    assert verdicts(out) == {"t/A-burrow/solution.py": ["AC"], "t/B-next/solution.py": ["AC"]}
    assert seconds < 60


def test_a_launcher_that_dies_fails_its_run_alone_and_the_build_goes_on(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """Should a launcher die all the same (here killed from outside during entry A's run), that run
    is an error at A's solver and sample, a new launcher takes the next run, and every entry is
    published."""
    marker = f"redteam-doomed-{uuid.uuid4().hex}"
    again = f"os.execv(sys.executable, [sys.executable, sys.argv[0], {marker!r}])"  # the marker in its command line
    doomed = f"import os, sys, time\nif len(sys.argv) == 1:\n    {again}\ntime.sleep(20)\n"
    honest = "a, b = map(int, input().split())\nprint(a + b)\n"
    archive = make_archive(entry(doomed, name="A-doomed") | entry(honest, name="B-next"))
    killer = threading.Thread(target=_kill_the_launcher_of, args=(marker,), daemon=True)
    killer.start()
    report = build_site(options_for(archive, tmp_path / "site", verify=True))
    killer.join(30)
    out = tmp_path / "site"
    assert verdicts(out) == {"t/A-doomed/solution.py": ["RTE"], "t/B-next/solution.py": ["AC"]}
    (warning,) = [str(d) for d in report.diagnostics if "/t/A-doomed/" in d.path]
    assert warning.endswith("/t/A-doomed/samples/1.in: warning: solution.py: Runtime Error: killed by SIGKILL (killed)")
    assert "the sandbox's launcher has gone" in output_of(out, "A-doomed")
    assert (out / "t" / "B-next" / "index.html").is_file()


def _kill_the_launcher_of(marker: str) -> None:
    """Kill the process that started the one whose command line holds ``marker``: its launcher."""
    for _ in range(600):
        found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        for pid in found:
            parent = _ancestors(int(pid))[:1]
            if parent:
                os.kill(parent[0], signal.SIGKILL)
                return
        time.sleep(0.05)


# Issue #34, finding 3: what the seccomp filter refuses, by family: each call made by a small program
# in the sandbox (C, compiled with gcc, where there is one; else Python's ctypes), with arguments for
# which the kernel itself would not refuse the call where there are such (unshare(0), a user-mode
# userfaultfd, personality(ADDR_NO_RANDOMIZE), shmget...), so that EPERM is the filter's answer.
KEY_SPEC_USER_KEYRING = -4
CALLS: dict[str, tuple[tuple[str, tuple[int, ...]], ...]] = {
    "namespaces": (("unshare", (0,)), ("setns", (-1, 0))),
    "ipc": (("shmget", (0, 4096, 0o600)), ("semget", (0, 1, 0o600)), ("msgget", (0, 0o600)), ("mq_open", (0, 0))),
    "keyring": (
        ("add_key", (0, 0, 0, 0, KEY_SPEC_USER_KEYRING)),
        ("request_key", (0, 0, 0, KEY_SPEC_USER_KEYRING)),
        ("keyctl", (0, KEY_SPEC_USER_KEYRING, 1)),  # KEYCTL_GET_KEYRING_ID, creating it
    ),
    "io_uring": (
        ("io_uring_setup", (1, 0)),
        ("io_uring_enter", (-1, 0, 0, 0, 0)),
        ("io_uring_register", (-1, 0, 0, 0)),
    ),
    "userfaultfd": (("userfaultfd", (1,)),),  # UFFD_USER_MODE_ONLY: allowed to anyone by the kernel
    "perf_event_open": (("perf_event_open", (0, 0, -1, -1, 0)),),
    "bpf": (("bpf", (0, 0, 0)),),
    "ptrace": (
        ("ptrace", (0, 0, 0, 0)),  # PTRACE_TRACEME
        ("process_vm_readv", (0, 0, 0, 0, 0, 0)),
        ("process_vm_writev", (0, 0, 0, 0, 0, 0)),
        ("kcmp", (0, 0, 0, 0, 0)),
        ("pidfd_getfd", (-1, 0, 0)),
        ("process_madvise", (-1, 0, 0, 0, 0)),
    ),
    "personality": (("personality", (0x0040000,)),),  # ADDR_NO_RANDOMIZE
    "kexec": (("kexec_load", (0, 0, 0, 0)), ("kexec_file_load", (-1, -1, 0, 0, 0))),
    "modules": tuple((name, (0, 0, 0)) for name in seccomp.DENIED["modules"]),
    "mount": tuple((name, (0, 0, 0, 0, 0)) for name in seccomp.DENIED["mount"]),
    "system": tuple((name, (0, 0, 0, 0)) for name in seccomp.DENIED["system"]),
    "numa": tuple((name, (0, 0, 0, 0, 0, 0)) for name in seccomp.DENIED["numa"]),
    "vsock": (("socket", (40, 1, 0)),),  # AF_VSOCK, SOCK_STREAM
    "clone": (("clone", (0x40000000 | 17, 0, 0, 0, 0)),),  # CLONE_NEWNET | SIGCHLD
}
EPERM, ENOSYS = 1, 38


def test_every_family_the_filter_refuses_is_probed() -> None:
    probed = {name for calls in CALLS.values() for name, _ in calls}
    assert {name for names in seccomp.DENIED.values() for name in names} <= probed


@pytest.mark.parametrize("family", sorted(CALLS))
def test_the_filter_refuses_what_runs_never_need(family: str, syscall_prober: Prober) -> None:
    answers = syscall_prober(CALLS[family])
    assert answers, "the probe printed nothing"
    assert answers == {name: EPERM for name in answers}, answers


def test_the_filter_leaves_what_programs_need(syscall_prober: Prober) -> None:
    """clone3 fails with ENOSYS, so that the C library falls back to clone; personality may be read."""
    answers = syscall_prober((("clone3", (0, 0)), ("personality", (0xFFFFFFFF,)), ("socket", (2, 1, 0))))
    assert answers == {"clone3": ENOSYS, "personality": 0, "socket": 0}, answers


Prober = Callable[[tuple[tuple[str, tuple[int, ...]], ...]], dict[str, int]]


@pytest.fixture(scope="module")
def syscall_prober(tmp_path_factory: pytest.TempPathFactory) -> Prober:
    """Runs calls in the sandbox; each call's errno, or 0 where it succeeded (ABI-less calls left out)."""
    abi = seccomp.ABIS[os.uname().machine]
    gcc = shutil.which("gcc")

    def probe(calls: tuple[tuple[str, tuple[int, ...]], ...]) -> dict[str, int]:
        present = [(name, args) for name, args in calls if abi.number(name) is not None]
        if gcc is not None:
            program = _compiled(gcc, present, abi, tmp_path_factory.mktemp("probe"))
            result = sandbox.run(["./probe"], None, Limits(wall=10), files={"probe": (program, 0o555)})
        else:
            exe, toolchain = python_runtime(sys.executable)
            code = {"probe.py": _python_probe(present, abi).encode()}
            result = sandbox.run([exe, "probe.py"], None, Limits(wall=10), files=code, toolchain=toolchain)
        assert result.exit_code == 0, result
        return {name: int(errno) for name, errno in (line.split() for line in result.stdout.decode().splitlines())}

    return probe


def _compiled(gcc: str, calls: list[tuple[str, tuple[int, ...]]], abi: seccomp.Abi, folder: Path) -> bytes:
    """A C program making each call, by the C library's number for it where its headers have one."""
    lines = []
    for name, args in calls:
        number = f"SYS_{name}"
        given = ", ".join(f"(long){a}" for a in args)
        lines += [f"#ifndef {number}", f"#define {number} {abi.number(name)}", "#endif"]
        lines.append(f'static void call_{name}(void) {{ report("{name}", syscall({number}, {given})); }}')
    calls_made = "".join(f"    call_{name}();\n" for name, _ in calls)
    source = (
        "#define _GNU_SOURCE\n#include <errno.h>\n#include <stdio.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
        'static void report(const char *name, long r) { printf("%s %d\\n", name, r == -1 ? errno : 0); }\n'
        + "\n".join(lines)
        + f"\nint main(void) {{\n{calls_made}    return 0;\n}}\n"
    )
    (folder / "probe.c").write_text(source)
    subprocess.run([gcc, "-O0", "-o", str(folder / "probe"), str(folder / "probe.c")], check=True)
    return (folder / "probe").read_bytes()


def _python_probe(calls: list[tuple[str, tuple[int, ...]]], abi: seccomp.Abi) -> str:
    made = [(name, abi.number(name), args) for name, args in calls]
    return textwrap.dedent(
        f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for name, number, args in {made!r}:
            ctypes.set_errno(0)
            result = libc.syscall(number, *(ctypes.c_long(a) for a in args))
            print(name, ctypes.get_errno() if result == -1 else 0)
        """
    )


def _carrying(marker: str) -> list[int]:
    """Processes whose environment holds ``marker``: everything a build started, but its sandboxes."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _sandboxes(of: int) -> set[int]:
    """The bubblewrap processes started, at any depth, by process ``of``."""
    found = subprocess.run(["pgrep", "-x", "bwrap"], capture_output=True, text=True).stdout.split()
    return {int(pid) for pid in found if of in _ancestors(int(pid))}


def _ancestors(pid: int) -> list[int]:
    chain = []
    while pid > 1:
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
        chain.append(pid)
    return chain


@pytest.mark.parametrize("delay", [1.5, 4.0])
def test_a_killed_build_leaves_no_process_behind(tmp_path: Path, make_archive: ArchiveMaker, delay: float) -> None:
    """SIGKILL runs no clean-up: workers, Pagefind, Temml, launchers and sandboxes must end by themselves."""
    files: dict[str, str | bytes] = {}
    for number in range(20):  # enough entries for the workers to start while the archive is read
        files |= entry("import time\ntime.sleep(1)\nprint(5)\n", name=f"A-e{number:02}")
        files[f"t/A-e{number:02}/solution.md"] = f"# Entry {number}\n\nSome $x^{number}$ text.\n"
    archive = make_archive(files)
    marker = f"redteam-{uuid.uuid4().hex}"
    argv = [sys.executable, "-m", "site_builder.cli", "build", "--archive", str(archive)]
    argv += ["--out", str(tmp_path / "site"), "--cache", str(tmp_path / "cache")]
    builder = subprocess.Popen(
        argv,
        env={**os.environ, "SITE_BUILDER_REDTEAM": marker},
        cwd=Path(__file__).parent.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(delay)
    try:
        # Each kill waits for what it is to catch (the build's helpers; the later one its sandboxes too),
        # however slow a loaded machine makes the build.
        sandboxes = _sandboxes(of=builder.pid)
        waited = 0.0
        while (
            (len(_carrying(marker)) <= 1 or (delay >= 3 and not sandboxes)) and builder.poll() is None and waited < 60
        ):
            time.sleep(0.1)
            waited += 0.1
            sandboxes = _sandboxes(of=builder.pid)
        assert builder.poll() is None, "the build ended before it could be killed"
        assert len(_carrying(marker)) > 1, "the build started nothing to leave behind"
        assert sandboxes or delay < 3, "by now the build verifies, in sandboxes"
    finally:  # a failed assertion must not leave the build running into the next tests
        builder.kill()
        builder.wait()
    for _ in range(100):
        if not _carrying(marker) and not _alive(sandboxes):
            break
        time.sleep(0.1)
    assert _carrying(marker) == []
    assert _alive(sandboxes) == set()


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists() and _state(pid) != "Z"}


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""
