"""The files a run is given and read back (sandbox/descriptors.py): names kept inside the working folder,
the working folder of a run without isolation, the memory file and pipes of its streams, and the capped
read of a file a run left, which never follows a link or waits on a FIFO."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest

from site_builder.sandbox import descriptors
from site_builder.sandbox.descriptors import _close, _memfd, _pipe, _safe_name, _workdir, read_regular


def open_descriptors() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError as e:
        assert e.errno == errno.EBADF
        return False
    return True


def closes_on_exec(fd: int) -> bool:
    return bool(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC)


@pytest.mark.parametrize("name", ["a", "a.txt", "data/in/1.in", "..a", "a..", ".hidden/x"])
def test_a_plain_relative_name_is_kept(name: str) -> None:
    assert _safe_name(name) == name


@pytest.mark.parametrize("name", ["", "/etc/passwd", "..", "../x", "a/../../x", "a//b", "./a", "a/.", "a/"])
def test_a_name_that_could_leave_the_working_folder_is_refused(name: str) -> None:
    with pytest.raises(ValueError) as info:
        _safe_name(name)
    assert str(info.value) == f"not a plain relative path: {name!r}"


def test_a_run_without_isolation_gets_a_folder_of_its_own_with_its_files_and_folders_then_none() -> None:
    files = {"main.sh": (b"echo\n", 0o555), "data/deep/in.txt": (b"42\n", 0o444)}
    with _workdir(files, ("out", "out/deep/er")) as folder:
        work = Path(folder)
        assert work.name.startswith("site-builder-run-") and work.parent == Path(os.environ.get("TMPDIR", "/tmp"))
        assert (work / "main.sh").read_bytes() == b"echo\n" and (work / "main.sh").stat().st_mode & 0o777 == 0o555
        assert (work / "data/deep/in.txt").read_bytes() == b"42\n"
        assert (work / "data/deep/in.txt").stat().st_mode & 0o777 == 0o444
        assert (work / "out").is_dir() and (work / "out/deep/er").is_dir()
    assert not work.exists()


def test_a_folder_named_outside_the_working_folder_is_refused_and_the_folder_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Path] = []

    def mkdtemp(prefix: str) -> str:
        made.append(tmp_path / f"{prefix}{len(made)}")
        made[-1].mkdir()
        return str(made[-1])

    monkeypatch.setattr(descriptors.tempfile, "mkdtemp", mkdtemp)
    with pytest.raises(ValueError), _workdir({"a": (b"x", 0o444)}, ("../escaped",)):
        pass
    assert not made[0].exists() and not (tmp_path / "escaped").exists()
    with pytest.raises(RuntimeError), _workdir({"a": (b"x", 0o444)}, ()):
        raise RuntimeError("the run failed")
    assert [p.name for p in made] == ["site-builder-run-0", "site-builder-run-1"] and not made[1].exists()


@pytest.mark.parametrize("size", [0, 1, 65_536, 3 << 20])  # more than a pipe or one write takes at once
def test_a_run_s_input_is_a_memory_file_read_from_its_start(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    opened: list[int] = []
    fd = _memfd(data, opened)
    try:
        assert opened == [fd] and closes_on_exec(fd)
        assert os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:site-builder")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        assert b"".join(chunks) == data
    finally:
        _close([fd], opened)
    assert opened == [] and not is_open(fd)


def test_pipes_close_on_exec_and_only_the_descriptors_a_call_opened_are_closed() -> None:
    opened: list[int] = []
    read, write = _pipe(opened)
    assert opened == [read, write] and closes_on_exec(read) and closes_on_exec(write)
    os.write(write, b"through")
    assert os.read(read, 7) == b"through"
    mine, other = os.pipe()  # not the call's: left open
    try:
        _close([write, other], opened)
        assert opened == [read]
        assert not is_open(write) and is_open(other)
        _close([read, read], opened)  # twice: closed once
        assert opened == [] and not is_open(read)
    finally:
        os.close(mine)
        os.close(other)


def test_a_file_a_run_left_is_read_up_to_its_cap(tmp_path: Path) -> None:
    data = os.urandom(3 << 20)  # more than one read of 1 MiB
    (tmp_path / "big").write_bytes(data)
    before = open_descriptors()
    assert read_regular(tmp_path / "big", 10 << 20) == data
    assert read_regular(tmp_path / "big", (1 << 20) + 5) == data[: (1 << 20) + 5]
    assert read_regular(tmp_path / "big", 7) == data[:7]
    assert read_regular(tmp_path / "big", 0) == b""
    (tmp_path / "empty").write_bytes(b"")
    assert read_regular(tmp_path / "empty", 100) == b""
    assert open_descriptors() == before


def test_a_link_fifo_folder_or_device_a_run_left_is_an_error_never_a_hang(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("the host's")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    os.mkfifo(tmp_path / "fifo")  # no writer: an open that waited for one would never return
    before = open_descriptors()
    with pytest.raises(OSError) as info:
        read_regular(tmp_path / "link", 100)
    assert info.value.errno == errno.ELOOP
    for path in (tmp_path / "fifo", Path("/dev/zero")):
        with pytest.raises(OSError) as info:
            read_regular(path, 100)
        assert (info.value.errno, info.value.strerror, info.value.filename) == (
            errno.EINVAL,
            "not a regular file",
            str(path),
        )
    with pytest.raises(OSError) as info:
        read_regular(tmp_path, 100)
    assert info.value.errno == errno.EINVAL
    assert open_descriptors() == before
