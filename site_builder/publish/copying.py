"""Placing files into the site: ``copy_file``, an archive file by the cheapest safe means, and
``Copier``, a process that copies a build's many archive files and writes pages while the builder
renders.

A cold build publishes every archive file beside its page: ten thousand at 1,000 entries, with four
thousand pages, whose making costs the kernel seconds (0.1 ms a file, up to 0.75 ms in the minutes
after many files were removed). The render workers are done by then and the builder renders pages
on one core, so a second process on the other core copies the archive's files meanwhile, and then
writes the pages the builder hands it whenever it is idle (the builder writes the others itself).
A thread would not: each of its system calls waits for the builder's Python to let go of the
interpreter. This file is that process's program (``python -I -S copying.py``): it imports nothing
but the standard library.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

COPIER_LEAST = 256  # a build with fewer files to place (copies and pages) places them itself: a process costs 30 ms

_FICLONE = 0x40049409  # Linux's ioctl that shares a file's blocks, copy-on-write (Btrfs, XFS, bcachefs)
# The ioctl's answers for "these file systems make no clones": asked once per pair of devices, since a
# failed try costs as much as the copy itself (creating the target, and removing it again).
_CANNOT_CLONE = frozenset({errno.EOPNOTSUPP, errno.EXDEV, errno.EINVAL, errno.ENOTTY, errno.ENOSYS})
_UNCLONABLE: set[tuple[int, int]] = set()  # (source's device, target folder's device)


def copy_file(source: str, target: Path, link: bool = False) -> None:
    """Publish the archive file ``source`` at ``target`` (which does not exist) by the cheapest safe
    means: a copy-on-write clone where the file system makes them; else, for ``link`` files (test
    data, which the site only offers for download), a hard link when the file is on the same file
    system and every user may read it; else a copy in the kernel (``sendfile``). The builder never
    holds the bytes, and never writes into a published file (it only replaces one), so neither a
    clone nor a link can carry a write back into the archive."""
    try:
        info = os.stat(source)
        devices = (info.st_dev, os.stat(target.parent).st_dev)
    except OSError:
        info, devices = None, None
    if devices not in _UNCLONABLE and _clone(source, target, devices):
        return
    if link and info is not None and devices is not None:
        try:
            if info.st_mode & 0o004 and devices[0] == devices[1]:
                os.link(source, target)
                return
        except OSError:
            pass  # another owner's file (protected_hardlinks), or a file system without links
    shutil.copyfile(source, target)


def _clone(source: str, target: Path, devices: tuple[int, int] | None) -> bool:
    try:
        with open(source, "rb") as src, open(target, "xb") as dst:
            try:
                fcntl.ioctl(dst.fileno(), _FICLONE, src.fileno())
                return True
            except OSError as e:
                if e.errno in _CANNOT_CLONE and devices is not None:
                    _UNCLONABLE.add(devices)
    except OSError:
        return False
    target.unlink()
    return False


class Copier:
    """A process placing files into the site's temporary folder while the builder goes on: archive
    files to copy (``copy``: source, target, whether test data: see ``copy_file``), then generated
    files to write (``write``: pages, as they are rendered), making their folders; ``wait`` says how
    it went. It says on its standard output when it has copied a list (``.``) and written a file
    (a newline), so that the builder gives it a page only when it is idle (``ready``) and makes the
    others itself: both cores make files, and neither waits for the other."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", __file__, str(os.getpid())], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.stdout = self.process.stdout.fileno()
        os.set_blocking(self.stdout, False)
        self.lists = self.files = 0  # lists of copies and files sent
        self.copied = self.written = 0  # and done, as far as it said so
        self.error = bytearray()  # what it said after its progress: why it failed
        with contextlib.suppress(OSError):  # a larger pipe: the builder goes on while a list is read
            fcntl.fcntl(self.stdin.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)

    def copy(self, files: list[tuple[str, str, bool]]) -> None:
        self.lists += 1
        self._send(b"C", "", json.dumps(files).encode())

    def ready(self) -> bool:
        """Whether it has copied every list and written all but a few of the files it was sent."""
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.stdout, 1 << 16):
                self._heard(chunk)
        return self.copied >= self.lists and self.written + _AHEAD > self.files

    def write(self, target: str, data: bytes) -> None:
        self.files += 1
        self._send(b"W", target, data)

    def _send(self, kind: bytes, target: str, data: bytes) -> None:
        """Raises ``BrokenPipeError`` when the process has ended (``wait`` then says why)."""
        path = os.fsencode(target)
        self.stdin.write(_HEADER.pack(kind, len(path), len(data)) + path)
        self.stdin.write(data)
        self.stdin.flush()

    def wait(self) -> str | None:
        """None when every file was placed, else why not (the first file that failed)."""
        assert self.process.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            self.stdin.close()
        os.set_blocking(self.stdout, True)
        while chunk := os.read(self.stdout, 1 << 16):
            self._heard(chunk)
        self.process.stdout.close()  # (the file object owns the descriptor)
        if self.process.wait() == 0:
            return None
        try:
            return str(json.loads(self.error)["error"])
        except (ValueError, KeyError, TypeError):
            return f"the process placing the site's files ended with code {self.process.returncode}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.wait()

    def _heard(self, chunk: bytes) -> None:
        if not self.error:
            rest = chunk.lstrip(b".\n")
            progress = chunk[: len(chunk) - len(rest)]
            self.copied += progress.count(b".")
            self.written += progress.count(b"\n")
            chunk = rest
        self.error += chunk


_HEADER = struct.Struct("<cIQ")  # what follows: copies (C, a JSON list) or a file's bytes (W); path, data lengths
_AHEAD = 2  # files sent to the process and not yet written, at most (more would keep the builder waiting at the end)


def _records(fd: int) -> Iterator[tuple[bytes, str, bytes]]:
    """The records of a pipe, as they come."""
    buffer = bytearray()
    while True:
        while len(buffer) < _HEADER.size or len(buffer) < _HEADER.size + sum(_HEADER.unpack_from(buffer)[1:]):
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                if buffer:
                    raise OSError(errno.EPIPE, "the builder's pipe ended within a file")
                return
            buffer += chunk
        kind, path_size, data_size = _HEADER.unpack_from(buffer)
        start = _HEADER.size + path_size
        yield kind, os.fsdecode(bytes(buffer[_HEADER.size : start])), bytes(buffer[start : start + data_size])
        del buffer[: start + data_size]


def _place_all(fd: int) -> None:
    """Copy each list and write each file, as they come, saying so on standard output."""
    made: set[str] = set()

    def folder_of(target: str) -> None:
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)

    for kind, target, data in _records(fd):
        if kind == b"C":
            for source, copied, link in json.loads(data):
                folder_of(copied)
                copy_file(source, Path(copied), link)
            os.write(1, b".")
        else:
            folder_of(target)
            with open(target, "wb") as file:
                file.write(data)
            os.write(1, b"\n")


def die_with(builder: int) -> None:
    """End (SIGKILL) when the builder ends, however it ends: a builder killed during a cold build
    would otherwise leave this process copying its list of ten thousand files into a folder no one
    will publish. (Else it ends at the end of its list, when its standard input has closed.)"""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != builder:  # it ended before this process could ask
        os._exit(1)


_PR_SET_PDEATHSIG = 1  # Linux's prctl: the signal this process gets when its parent ends


def main() -> int:
    """The placing process: records on standard input; the error of the first file that failed, as
    JSON, on standard output. Its argument: the builder's process ID."""
    if len(sys.argv) > 1:
        die_with(int(sys.argv[1]))
    try:
        _place_all(sys.stdin.fileno())
    except (OSError, ValueError) as e:
        sys.stdout.write(json.dumps({"error": str(e)}))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
