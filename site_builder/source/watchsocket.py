"""Where the archive's watcher answers (a Unix socket in the cache folder), and who is at its other end.
Imported by a build before anything else (``launch.py``): it needs no more than the standard library."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

SOCKET = "watcher.sock"  # in the cache folder


def socket_path(cache: Path) -> str | None:
    """The watcher's socket, if its path is short enough to be one's address."""
    path = str(cache / SOCKET)
    return path if len(os.fsencode(path)) <= 100 else None


def peer_uid(conn: socket.socket) -> int:
    """The user the process at the other end of a Unix socket runs as."""
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return int(uid)


def connect(cache: Path, timeout: float) -> socket.socket | None:
    """A connection to the watcher of ``cache``'s socket, if one runs as this user."""
    path = socket_path(cache)
    if path is None:
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(path)
        if peer_uid(conn) == os.getuid():
            return conn
    except OSError:
        pass
    conn.close()
    return None
