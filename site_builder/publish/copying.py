"""Copying archive files into the site: ``copy_file``, by the cheapest safe means, and ``Copier``, a
process that copies a build's many files while the builder renders its pages.

A cold build publishes every archive file beside its page: ten thousand at 1,000 entries, whose
making costs the kernel seconds (a tenth of the build, one file at a time). The render workers are
done by then and the builder renders pages on one core, so a second process on the other core does
the copying meanwhile. A thread would not: each of its system calls waits for the builder's Python
to let go of the interpreter. This file is that process's program (``python -I -S copying.py``):
it imports nothing but the standard library.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

COPIER_LEAST = 256  # fewer files than this are copied by the builder itself: a process costs 30 ms

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
    import fcntl  # here, not at the top: only builds that publish files need it

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
    """A process copying ``files`` (source, target, whether test data: see ``copy_file``), making
    their folders; ``wait`` says how it went."""

    def __init__(self, files: list[tuple[str, str, bool]]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.process.stdin is not None
        try:
            with self.process.stdin:
                self.process.stdin.write(json.dumps(files).encode())
        except BrokenPipeError:
            pass  # (it ended before it read the list: ``wait`` says so)

    def wait(self) -> str | None:
        """None when every file was copied, else why not (the first file that failed)."""
        assert self.process.stdout is not None
        with self.process.stdout:
            said = self.process.stdout.read()
        if self.process.wait() == 0:
            return None
        try:
            return str(json.loads(said)["error"])
        except (ValueError, KeyError, TypeError):
            return f"the process copying the archive's files ended with code {self.process.returncode}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.wait()


def _copy_all(files: list[tuple[str, str, bool]]) -> None:
    made: set[str] = set()
    for source, target, link in files:
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        copy_file(source, Path(target), link)


def main() -> int:
    """The copying process: the list on standard input; the error of the first file that failed, as
    JSON, on standard output."""
    try:
        _copy_all(json.load(sys.stdin.buffer))
    except OSError as e:
        sys.stdout.write(json.dumps({"error": str(e)}))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
