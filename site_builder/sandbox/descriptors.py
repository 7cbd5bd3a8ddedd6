"""The files a run is given, and the files the builder reads back: an anonymous memory file for
stdin, pipes, a plain working folder (without isolation), and a capped read of a regular file that
never follows a link or waits on a FIFO."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _safe_name(name: str) -> str:
    """A path inside the working folder: never absolute, never with ``..`` or an empty part."""
    if any(part in ("", ".", "..") for part in name.split("/")):  # an absolute name's first part is empty
        raise ValueError(f"not a plain relative path: {name!r}")
    return name


@contextlib.contextmanager
def _workdir(files: dict[str, tuple[bytes, int]], dirs: tuple[str, ...]) -> Iterator[str]:
    """Without isolation: a temporary folder holding the run's files, removed afterwards."""
    workdir = Path(tempfile.mkdtemp(prefix="site-builder-run-"))
    try:
        for name, (data, mode) in files.items():
            target = workdir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(mode)
        for name in dirs:
            (workdir / _safe_name(name)).mkdir(parents=True, exist_ok=True)
        yield str(workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _memfd(data: bytes, opened: list[int]) -> int:
    """A descriptor reading ``data`` from the start: an anonymous file, on no disk and in no folder."""
    fd = os.memfd_create("site-builder", os.MFD_CLOEXEC)
    opened.append(fd)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _pipe(opened: list[int]) -> tuple[int, int]:
    read, write = os.pipe2(os.O_CLOEXEC)
    opened += (read, write)
    return read, write


def _close(fds: list[int], opened: list[int]) -> None:
    for fd in fds:
        if fd in opened:
            opened.remove(fd)
            os.close(fd)


def read_regular(path: Path, cap: int) -> bytes:
    """At most ``cap`` bytes of the regular file ``path``: a link, FIFO or device is an OSError, never a hang."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        chunks, size = [], 0
        while size < cap and (chunk := os.read(fd, min(1 << 20, cap - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
