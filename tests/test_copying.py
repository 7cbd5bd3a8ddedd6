"""Placing files into the site: archive files copied by the cheapest safe means, and the process
that copies them and writes pages while the builder renders (``publish/copying.py``)."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import ArchiveMaker, options_for, writer_for

from site_builder.build import build_site
from site_builder.errors import BuildError
from site_builder.publish import copying, output
from site_builder.publish.outputs import Output


def test_a_published_file_is_a_link_only_when_it_is_test_data_every_user_may_read(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    for name, mode in (("open.in", 0o644), ("private.in", 0o600), ("code.py", 0o644), ("odd.in", 0o641)):
        (tmp_path / name).write_text(name)
        (tmp_path / name).chmod(mode)
    copying.copy_file(str(tmp_path / "open.in"), tmp_path / "site/open.in", link=True)
    copying.copy_file(str(tmp_path / "private.in"), tmp_path / "site/private.in", link=True)
    copying.copy_file(str(tmp_path / "code.py"), tmp_path / "site/code.py")
    copying.copy_file(str(tmp_path / "odd.in"), tmp_path / "site/odd.in", link=True)  # others may run it, not read it
    linked = {p.name for p in (tmp_path / "site").iterdir() if p.samefile(tmp_path / p.name)}
    assert linked == {"open.in"}
    assert [(tmp_path / "site" / n).read_text() for n in ("open.in", "private.in", "code.py")] == [
        "open.in",
        "private.in",
        "code.py",
    ]


# The ioctl's answer, and how many of three files it is asked for: every one where it clones, or
# where the error is the file's own (EIO); once where it says the file systems make no clones.
CLONES = {
    "clones": (None, 3),
    "EIO": (5, 3),
    **{n: (getattr(errno, n), 1) for n in ("EOPNOTSUPP", "EXDEV", "EINVAL", "ENOTTY", "ENOSYS")},
}


@pytest.mark.parametrize(("answer", "asked"), CLONES.values(), ids=CLONES.keys())
def test_a_file_system_that_makes_no_clones_is_asked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: int | None, asked: int
) -> None:
    import fcntl

    requests: list[int] = []

    def ioctl(fd: int, request: int, arg: int) -> int:
        requests.append(request)
        if answer is not None:
            raise OSError(answer, "no clone")
        return 0

    monkeypatch.setattr(fcntl, "ioctl", ioctl)
    monkeypatch.setattr(copying, "_UNCLONABLE", set())
    (tmp_path / "site").mkdir()
    for n in range(3):
        (tmp_path / f"{n}.in").write_text(f"{n}\n")
        copying.copy_file(str(tmp_path / f"{n}.in"), tmp_path / f"site/{n}.in")
    assert requests == [copying._FICLONE] * asked
    if answer is not None:
        assert [(tmp_path / f"site/{n}.in").read_text() for n in range(3)] == ["0\n", "1\n", "2\n"]


class Copiers(copying.Copier):
    """The placing processes a test's builds start: how many files each was given to copy, and
    to write."""

    started: ClassVar[list[Copiers]] = []
    always_ready: ClassVar[bool | None] = None  # (None: as it says)

    def __init__(self) -> None:
        Copiers.started.append(self)
        self.sizes: list[int] = []
        super().__init__()

    def copy(self, files: list[tuple[str, str, bool]]) -> None:
        self.sizes.append(len(files))
        super().copy(files)

    def ready(self) -> bool:
        said = super().ready()
        return said if Copiers.always_ready is None else Copiers.always_ready


@pytest.fixture
def copiers(monkeypatch: pytest.MonkeyPatch) -> type[Copiers]:
    monkeypatch.setattr(output, "Copier", Copiers)
    monkeypatch.setattr(Copiers, "started", [])
    return Copiers


def test_many_new_archive_files_are_copied_by_a_process_while_the_pages_are_made(
    tmp_path: Path, make_archive: ArchiveMaker, copiers: type[Copiers]
) -> None:
    many = copying.COPIER_LEAST + 4
    archive = make_archive(
        {"t/A-one/solution.md": "One.\n", **{f"t/A-one/notes/{n}.txt": f"note {n}\n" for n in range(many)}}
    )
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    assert [c.sizes for c in copiers.started] == [[many + 1]]  # (and the entry's solution.md)
    notes = tmp_path / "site/t/A-one/notes"
    assert sorted(p.read_text() for p in notes.iterdir()) == sorted(f"note {n}\n" for n in range(many))
    (archive / "t/A-one/notes/7.txt").write_text("note seven\n")
    build_site(options)
    assert len(copiers.started) == 1  # one changed file: copied by the builder itself
    assert (notes / "7.txt").read_text() == "note seven\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []


def raw_files(folder: Path, count: int) -> list[output.RawFile]:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"{n}.in").write_text(f"{n}\n")
    return [output.RawFile(str(folder / f"{n}.in"), f"t/e/{n}.in", f"digest {n}") for n in range(count)]


def pages(count: int) -> list[Output]:
    return [Output(f"p/{n % 7}/{n}.html", f"page {n}\n".encode() * (n % 3)) for n in range(count)]


@pytest.mark.parametrize("ready", [True, False])
def test_pages_are_written_by_the_process_when_it_is_idle_and_here_when_it_is_busy(
    tmp_path: Path, copiers: type[Copiers], monkeypatch: pytest.MonkeyPatch, ready: bool
) -> None:
    monkeypatch.setattr(Copiers, "always_ready", ready)
    written: list[str] = []

    def write(self: Copiers, target: str, data: bytes) -> None:
        written.append(target)
        copying.Copier.write(self, target, data)

    monkeypatch.setattr(Copiers, "write", write)
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    count = copying.COPIER_LEAST + 40
    with writer_for(options) as writer:
        writer.add(pages(count))
        writer.finish()
    assert len(copiers.started) == 1  # once the build had that many files to place
    # (the static files and the first pages by the builder, the rest by the process when it is ready)
    assert len(written) == (len(writer.staged) - copying.COPIER_LEAST + 1 if ready else 0)
    for page in pages(count):
        assert (tmp_path / "site" / page.path).read_bytes() == page.data


def test_a_busy_process_is_not_ready_until_it_has_copied_its_lists_and_written_its_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name in ("slow.html", "slower.html"):  # files it cannot write until this test reads them
        os.mkfifo(out / name)
    (tmp_path / "a.txt").write_text("a\n")
    copier = copying.Copier()
    copier.write(str(out / "slow.html"), b"slow\n")
    copier.copy([(str(tmp_path / "a.txt"), str(out / "a.txt"), False)])
    time.sleep(0.2)
    assert not copier.ready()  # a list not copied
    assert (out / "slow.html").read_bytes() == b"slow\n"
    assert eventually(copier.ready) and (out / "a.txt").read_text() == "a\n"
    copier.write(str(out / "slower.html"), b"slower\n")
    copier.write(str(out / "deep/1.html"), b"1\n")
    time.sleep(0.2)
    assert not copier.ready()  # two files not written
    assert (out / "slower.html").read_bytes() == b"slower\n"
    assert eventually(lambda: copier.ready() and copier.written == 3)
    assert copier.wait() is None and (out / "deep/1.html").read_text() == "1\n"


def eventually(check: object, seconds: float = 10) -> bool:
    assert callable(check)
    until = time.monotonic() + seconds
    while not check():
        if time.monotonic() > until:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("count", [3, copying.COPIER_LEAST])
def test_an_archive_file_that_cannot_be_copied_fails_the_build_and_leaves_the_site_as_it_was(
    tmp_path: Path, count: int
) -> None:
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    (tmp_path / "site").mkdir()
    (tmp_path / "site/index.html").write_text("the published site")
    raw = raw_files(tmp_path / "archive/t/e", count)
    (tmp_path / "archive/t/e/1.in").unlink()
    # (at once, or when the copying process is waited for)
    with writer_for(options) as writer, pytest.raises(BuildError) as failed:
        writer.add_raw(raw)
        writer.finish()
    assert "cannot write the site" in str(failed.value) and str(tmp_path / "archive/t/e/1.in") in str(failed.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive", "site"]  # (no temporary folder left)
    assert [p.name for p in (tmp_path / "site").iterdir()] == ["index.html"]


@pytest.mark.parametrize("ready", [True, False])
def test_a_page_that_cannot_be_written_fails_the_build_whoever_writes_it(
    tmp_path: Path, copiers: type[Copiers], monkeypatch: pytest.MonkeyPatch, ready: bool
) -> None:
    monkeypatch.setattr(Copiers, "always_ready", ready)
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    with writer_for(options) as writer, pytest.raises(BuildError) as failed:
        # a page where a folder of other pages is: it fails at once, or when the process is waited for
        writer.add([*pages(copying.COPIER_LEAST + 10), Output("p/3", b"a file"), *pages(40)])
        writer.finish()
    assert "cannot write the site" in str(failed.value) and "p/3" in str(failed.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert copiers.started and all(c.process.returncode is not None for c in copiers.started)


def test_a_writer_given_up_stops_its_copying_process(tmp_path: Path) -> None:
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    with writer_for(options) as writer:
        writer.add_raw(raw_files(tmp_path / "archive/t/e", copying.COPIER_LEAST))
        copier = writer.copier
        assert copier is not None
        with pytest.raises(ValueError, match="added once"):
            writer.add_raw([])
    assert copier.process.returncode is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive"]  # nothing published, nothing left


def test_a_process_places_files_whose_names_are_not_utf8(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.in")  # (Latin-1 bytes: a str with a surrogate)
    (tmp_path / name).write_text("data\n")
    copier = copying.Copier()
    copier.copy([(str(tmp_path / name), str(tmp_path / "out" / name), False)])
    assert eventually(copier.ready)
    copier.write(str(tmp_path / "out" / f"page-{name}.html"), b"page\n")
    assert copier.wait() is None
    assert sorted(os.listdir(os.fsencode(tmp_path / "out"))) == [b"caf\xe9.in", b"page-caf\xe9.in.html"]


def test_a_copying_process_says_which_file_failed_or_how_it_ended(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    good = copying.Copier()
    good.copy([(str(tmp_path / "a.txt"), str(tmp_path / "out/deep/a.txt"), False)])
    assert good.wait() is None and (tmp_path / "out/deep/a.txt").read_text() == "a\n"
    bad = copying.Copier()
    bad.copy([(str(tmp_path / "gone.txt"), str(tmp_path / "out/gone.txt"), False)])
    assert bad.wait() == f"[Errno 2] No such file or directory: '{tmp_path / 'gone.txt'}'"
    cut = copying.Copier()  # a file's bytes cut short: the builder's end is not taken for the file's
    cut.stdin.write(copying._HEADER.pack(b"W", 5, 100) + b"a.txt" + b"short")
    assert cut.wait() == f"[Errno {errno.EPIPE}] the builder's pipe ended within a file"
    killed = copying.Copier()
    killed.process.kill()
    assert killed.wait() == "the process placing the site's files ended with code -9"


def test_archive_files_are_copied_here_when_no_copying_process_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process() -> None:
        raise FileNotFoundError(2, "No such file or directory", "python")

    monkeypatch.setattr(output, "Copier", no_process)
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    with writer_for(options) as writer:
        writer.add_raw(raw_files(tmp_path / "archive/t/e", copying.COPIER_LEAST))
        writer.add(pages(copying.COPIER_LEAST))
        writer.finish()
    assert sorted(p.read_text() for p in (tmp_path / "site/t/e").iterdir()) == sorted(
        f"{n}\n" for n in range(copying.COPIER_LEAST)
    )
    assert all((tmp_path / "site" / page.path).read_bytes() == page.data for page in pages(copying.COPIER_LEAST))


def test_the_placing_process_ends_with_a_builder_that_was_killed(tmp_path: Path) -> None:
    """A builder killed (SIGKILL: no clean-up) while its process copies a list: the process ends with
    it, rather than copying the rest into a folder no one will publish."""
    blocked = tmp_path / "blocked.in"
    os.mkfifo(blocked)  # a file whose copy waits for a writer that never comes
    builder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            f"sys.path.insert(0, {str(Path(copying.__file__).parents[2])!r})\n"  # the code under test
            "from site_builder.publish.copying import Copier\n"
            "copier = Copier()\n"
            f"copier.copy([({str(blocked)!r}, {str(tmp_path / 'out/blocked.in')!r}, False)])\n"
            "print(copier.process.pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert builder.stdout is not None
    placing = int(builder.stdout.readline())
    try:
        time.sleep(0.3)  # (it has started its list)
        assert alive(placing)
        builder.kill()
        builder.wait()
        assert eventually(lambda: not alive(placing))
    finally:
        with contextlib.suppress(OSError):
            os.kill(placing, signal.SIGKILL)


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie no one has reaped yet does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_process_links_test_data_copies_the_rest_and_counts_every_list(tmp_path: Path) -> None:
    """What the process is handed, it places as ``copy_file`` would here: test data linked, the rest
    copied; and it is ready only once it has copied every list it was sent, not just one."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("data.in", "code.py"):
        (tmp_path / name).write_text(name)
        (tmp_path / name).chmod(0o644)
    os.mkfifo(out / "late.html")  # a page it cannot write until this test reads it
    copier = copying.Copier()
    copier.copy([(str(tmp_path / "data.in"), str(out / "data.in"), True)])
    copier.write(str(out / "late.html"), b"late\n")
    copier.copy([(str(tmp_path / "code.py"), str(out / "code.py"), False)])
    assert eventually(lambda: not copier.ready() and copier.copied == 1)  # (``ready`` reads what it said)
    time.sleep(0.2)
    assert not copier.ready() and copier.copied == 1  # a list of two to go
    assert (out / "late.html").read_bytes() == b"late\n"
    assert eventually(copier.ready) and copier.wait() is None
    assert (out / "data.in").samefile(tmp_path / "data.in")
    assert not (out / "code.py").samefile(tmp_path / "code.py") and (out / "code.py").read_text() == "code.py"


def test_a_process_stopped_while_it_copies_ends_at_once(tmp_path: Path) -> None:
    """``stop`` (a build given up) kills a process in the middle of its list, rather than waiting for it."""
    os.mkfifo(tmp_path / "never.in")  # its copy would wait forever
    copier = copying.Copier()
    copier.copy([(str(tmp_path / "never.in"), str(tmp_path / "out/never.in"), False)])
    time.sleep(0.2)
    started = time.monotonic()
    with contextlib.suppress(OSError):
        copier.stop()
    assert copier.process.returncode is not None and time.monotonic() - started < 30


def test_a_record_that_comes_in_pieces_is_read_whole() -> None:
    """The process waits for the whole of a record (its path and its bytes) however the pipe cuts it."""
    read, write = os.pipe()
    path, data = "/site/a/page.html", b"<p>page</p>\n" * 100
    record = copying._HEADER.pack(b"W", len(path), len(data)) + path.encode() + data
    os.write(write, record[:-3])  # all but the last bytes: the header and more than the data's length
    later = threading.Timer(0.2, lambda: (os.write(write, record[-3:]), os.close(write)))
    later.start()
    try:
        assert list(copying._records(read)) == [(b"W", path, data)]
    finally:
        later.join()
        os.close(read)
