"""Shared fixtures: throwaway archives from a dict, build options, and the golden-file flag."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The tokens of the caches the tests' builds make (publish/trust.py): never in the home folder.
os.environ["XDG_STATE_HOME"] = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"site-builder-test-state-{os.getuid()}")

from site_builder.model import Entry
from site_builder.publish.output import SiteWriter
from site_builder.source.config import BuildOptions, make_options
from site_builder.source.theme import Theme

ROOT = Path(__file__).resolve().parent.parent

ArchiveMaker = Callable[[dict[str, str | bytes]], Path]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from current output")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def write_tree(base: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def fixture_files(fixture: Path, folder: str, changes: dict[str, str | None]) -> dict[str, str | bytes]:
    """A fixture folder's files as ``make_archive`` takes them, at ``folder`` in the archive, with files
    changed (or removed, for None)."""
    files: dict[str, str | bytes] = {
        f"{folder}/{p.relative_to(fixture).as_posix()}": p.read_text() for p in fixture.rglob("*") if p.is_file()
    }
    for name, text in changes.items():
        files.pop(f"{folder}/{name}", None)
        if text is not None:
            files[f"{folder}/{name}"] = text
    return files


def load_one(make_archive: ArchiveMaker, files: dict[str, str | bytes]) -> tuple[Path, Any]:
    """The archive made of ``files``, and its one entry as loaded (with no archive-level problem)."""
    from site_builder.source.archive import load_archive

    archive = make_archive(files)
    entries, problems = load_archive(archive, "archive", {})
    assert problems == []
    return archive, entries[0]


@pytest.fixture
def make_archive(tmp_path: Path) -> ArchiveMaker:
    """``make_archive({"icpc/2020/A-x/solution.tex": "..."})`` -> the archive folder."""

    def make(files: dict[str, str | bytes]) -> Path:
        archive = tmp_path / "archive"
        archive.mkdir(exist_ok=True)
        write_tree(archive, files)
        return archive

    return make


def a_bare_launcher() -> tuple[Any, subprocess.Popen[bytes]]:
    """The sandbox's launcher started alone, as the builder starts it: the builder's end of its
    socket, and the process (its errors on ``stderr``)."""
    import socket

    from site_builder.sandbox import runner

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", str(runner.LAUNCHER), str(theirs.fileno())],
        pass_fds=(theirs.fileno(),),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    theirs.close()
    return ours, process


def an_entry(path: str = "t/a", **fields: Any) -> Entry:
    """An entry of the built model with nothing in it but ``fields``: its track is ``path``'s first
    folder, its title the last, what it shows as ``archive/<path>``, and every other field empty."""
    empty: dict[str, Any] = {
        "path": path,
        "track": path.split("/")[0],
        "groups": (),
        "label": None,
        "title": path.rsplit("/", 1)[-1],
        "year": None,
        "source": None,
        "tags": (),
        "rating": None,
        "summary_html": None,
        "summary_text": None,
        "status": "complete",
        "statement": None,
        "solution": None,
        "solvers": (),
        "sources": (),
        "samples": (),
        "files": (),
        "statement_pdf": None,
        "updated": "",
        "display_path": f"archive/{path}",
    }
    return Entry(**(empty | fields))


@pytest.fixture(params=["namespaces", "no namespaces"])
def launchers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Fresh sandbox launchers (``runner._Launchers``), either isolating runs or as on a machine where
    namespaces are not available, standing in for the builder's own pool."""
    from site_builder.sandbox import runner

    pool = runner._Launchers(namespaces=request.param == "namespaces")
    monkeypatch.setattr(runner, "_LAUNCHERS", pool)
    yield pool
    pool.close()


def refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Callable[..., Any]:
    """``os.scandir`` refuses ``folder``, as for one whose permissions forbid it (the tests may run as
    root); the ``os.scandir`` it replaced."""
    scandir = os.scandir

    def refusing(path: str) -> object:
        if path == str(folder):
            raise PermissionError(13, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    return scandir


def options_for(archive: Path, out: Path, **kwargs: object) -> BuildOptions:
    """Build options that use this project's templates and static files with any archive."""
    base = make_options(ROOT, archive, out, jobs=1)
    return BuildOptions(**{**{f: getattr(base, f) for f in base.__slots__}, "cache": out.parent / ".cache", **kwargs})  # type: ignore[arg-type]


def writer_for(options: BuildOptions) -> SiteWriter:
    """The site's writer for ``options``, with the theme its templates and static folders make."""
    return SiteWriter(options, Theme((options.templates,), (options.static,)))


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped archive, built once per test session (its cache beside it, in .cache), with two
    worker processes as ``make site`` has on a two-core machine. Where pytest-xdist runs the session
    on several processes, the first to need it builds it for all (in the folder their own temporary
    folders share), and the others wait for it: the tests that use it only read it."""
    from site_builder.build import build_site

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    folder, out = shared / "built", shared / "built" / "site"
    with open(shared / "built.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "done").exists():
            folder.mkdir(exist_ok=True)
            report = build_site(options_for(ROOT / "archive", out, jobs=2))
            assert [str(d) for d in report.diagnostics if d.level == "error"] == []
            assert report.published
            (folder / "done").write_text("")
    return out


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright (a test tool's own browser download cannot work here)."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def pinned(cpu: int) -> str:
    """Python code that keeps its program to one CPU, at nice 19. Where the kernel shares a CPU between
    sessions first (autogroup), whatever their nice, each session gets a share; without autogroup,
    programs of equal nice do: a test's solver and its ``cpu_burners`` both start with this."""
    return f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nos.nice(19)\n"


@contextlib.contextmanager
def cpu_burners(cpu: int, count: int = 3) -> Iterator[None]:
    """``count`` programs burning CPU ``cpu`` (``pinned``), each a session of its own, for the block.
    Each also ends when this process does (the kernel's parent-death signal) and after two minutes
    at most: a test stopped half-way, as a mutation run's timeout stops one, leaves none running."""
    burn = (
        f"import ctypes, time\nctypes.CDLL(None).prctl(1, 9)\nif os.getppid() != {os.getpid()}:\n    raise SystemExit\n"
        "end = time.monotonic() + 120\nwhile time.monotonic() < end:\n    pass\n"
    )
    burners = [
        subprocess.Popen([sys.executable, "-c", pinned(cpu) + burn], stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(count)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """The folder over HTTP on localhost, at the URL given."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
