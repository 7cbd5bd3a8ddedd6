"""Linux's inotify, as much of it as the archive's watcher needs (``watcher.py``): watch folders, read
what happened in them. The standard library has no binding; this is one through ``ctypes``.

The kernel queues an event in the call that causes it (the ``write``, ``rename`` or ``unlink``), so
once that call has returned, a read of the queue to its end sees the event."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from collections.abc import Iterator
from typing import NamedTuple

MODIFY = 0x2
ATTRIB = 0x4
MOVED_FROM = 0x40
MOVED_TO = 0x80
CREATE = 0x100
DELETE = 0x200
DELETE_SELF = 0x400
MOVE_SELF = 0x800
OVERFLOW = 0x4000  # the queue was full: events were lost
IGNORED = 0x8000  # the watch is gone (its folder was deleted, or the watch removed)
ONLYDIR = 0x01000000
DONT_FOLLOW = 0x02000000
ISDIR = 0x40000000

# Everything that changes what ``stat`` says of a folder's files, or which files it holds.
FOLDER_CHANGES = MODIFY | ATTRIB | MOVED_FROM | MOVED_TO | CREATE | DELETE | DELETE_SELF | MOVE_SELF

_NONBLOCK = os.O_NONBLOCK
_CLOEXEC = 0o2000000
_HEAD = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows


class Event(NamedTuple):
    wd: int
    mask: int
    name: str  # the file's or subfolder's name in the watched folder ("" for the folder itself)


class Inotify:
    """One inotify instance: its events come out in the order they happened, across all its watches."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
        self.fd = libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        if self.fd < 0:
            raise _error(ctypes.get_errno(), "inotify")

    def watch(self, folder: str) -> int:
        """Watch a folder (not a link to one): its watch descriptor; the same one again for a folder
        already watched. OSError when it is gone, or the system's limit of watches is reached."""
        wd = self._add(self.fd, os.fsencode(folder), FOLDER_CHANGES | ONLYDIR | DONT_FOLLOW)
        if wd < 0:
            raise _error(ctypes.get_errno(), folder)
        return int(wd)

    def read(self) -> Iterator[Event]:
        """Every event queued now, in order; none when the queue is empty (it never waits)."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            yield from _events(data)

    def close(self) -> None:
        os.close(self.fd)


def _events(data: bytes) -> Iterator[Event]:
    at = 0
    while at + _HEAD.size <= len(data):
        wd, mask, _, length = _HEAD.unpack_from(data, at)
        at += _HEAD.size
        name = os.fsdecode(data[at : at + length].rstrip(b"\0"))
        at += length
        yield Event(wd, mask, name)


def _error(errno: int, what: str) -> OSError:
    return OSError(errno, os.strerror(errno), what)


def watch_limit() -> int:
    """How many watches one user may hold (a kernel setting; 8,192 on older systems)."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches") as limit:
            return int(limit.read())
    except (OSError, ValueError):
        return 8192
