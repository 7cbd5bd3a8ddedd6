"""The archive's watcher: a process that outlives the build which started it, watches every folder of
the archive (inotify, ``inotify.py``) and tells the next build which folders changed since the stamp it
last took, so that it need not ``stat`` every file again (``watched.py`` is the builder's side).

It answers on a Unix socket in the cache folder, one JSON line each way. ``since``, the ``[token, seq]``
of an earlier answer, asks for the folders changed after it (paths from the archive's folder, "" for
the archive's own); the answer says ``lost`` when it cannot tell (another watcher, events the kernel
dropped), with a new ``[token, seq]`` to stamp from. Before it answers, it reads every event queued,
and the kernel queues an event in the call that made the change: a change made before the question
is in the answer. It watches no folder a stamp does not enter by its name (``walk.is_unread``), nor
the output and cache folders, and ends after an hour without a question, when its socket is removed
or replaced, or when the archive's folder is deleted or moved."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import selectors
import socket
import time
from collections.abc import Iterable
from typing import Any, Protocol

from . import inotify
from .walk import is_unread
from .watchsocket import peer_uid

IDLE_SECONDS = 3600.0  # without a question, the watcher ends
CHECK_SECONDS = 5.0  # how often it looks whether its socket and archive are still there
BUSY_SECONDS = 0.05  # how often, while a build it runs is not over, the host looks whether it is
REQUEST_MOST = 1 << 22  # bytes of a question (a build's holds its environment: Linux allows 2 MiB with the arguments)


class Ended(Exception):
    """The watcher cannot go on: its archive is gone, or it has too many folders to watch (``lasting``:
    a new watcher would not do better; ``watched.start_watcher`` starts none for a day, see ``ENDED``)."""

    def __init__(self, why: str, lasting: bool = False) -> None:
        super().__init__(why)
        self.lasting = lasting


class Host(Protocol):
    """What else the watcher's process does (``buildhost.py``): handles a request that says ``build``."""

    def ready(self) -> None: ...  # once, when the socket is there

    def hand(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> bool: ...  # end?

    def busy(self) -> bool: ...  # a build runs: the loop turns often, to reap it soon after it ends

    def reap(self) -> None: ...  # after each turn of the loop


ENDED = ".ended"  # beside the socket: why the last watcher could not watch this archive


class Tree:
    """The watched folders, and when each last changed (a sequence number per event)."""

    def __init__(self, notify: inotify.Inotify, root: str, own: frozenset[str], most: int) -> None:
        self.notify, self.root, self.own, self.most = notify, root, own, most
        self.paths: dict[int, str | None] = {}  # watch descriptor -> folder (None: moved out of sight)
        self.wds: dict[str, int] = {}
        self.changed: dict[str, int] = {}  # folder (from the archive's) -> ``seq`` of its last change
        self.token = secrets.token_hex(8)
        self.seq = 0
        self.lost_at = 0  # changes up to this one may have been missed

    def start(self) -> None:
        self.add(self.root, mark=False)

    def watchable(self, folder: str, name: str) -> bool:
        return not is_unread(name) and folder not in self.own

    def add(self, top: str, mark: bool = True) -> None:
        """Watch ``top`` and every folder below it; each is marked changed (``mark``). A folder is watched
        before it is listed, so a subfolder made after the listing shows as an event."""
        pending = [top]
        while pending:
            folder = pending.pop()
            try:
                wd = self.notify.watch(folder)
            except OSError as e:
                if e.errno in (errno.ENOSPC, errno.ENOMEM):
                    raise Ended(f"no more watches: {e}", lasting=True) from e
                continue  # gone already: its parent's event says so
            self.paths[wd], self.wds[folder] = folder, wd
            if len(self.wds) > self.most:
                raise Ended(f"more than {self.most} folders (a quarter of the user's inotify watches)", lasting=True)
            if mark:
                self.mark(folder)
            try:
                with os.scandir(folder) as scan:
                    found = [e.path for e in scan if e.is_dir(follow_symlinks=False) and self.watchable(e.path, e.name)]
            except OSError:
                continue
            pending += found

    def mark(self, folder: str) -> None:
        self.seq += 1
        self.changed[folder[len(self.root) + 1 :] if folder != self.root else ""] = self.seq

    def take(self, events: Iterable[inotify.Event]) -> None:
        for event in events:
            if event.mask & inotify.OVERFLOW:
                self.lose()
                continue
            folder = self.paths.get(event.wd)
            if event.mask & inotify.IGNORED:  # the watch is gone
                self.paths.pop(event.wd, None)
                if folder is not None and self.wds.get(folder) == event.wd:
                    del self.wds[folder]
                continue
            if folder is None:
                continue
            self.mark(folder)
            if folder == self.root and event.mask & (inotify.DELETE_SELF | inotify.MOVE_SELF):
                raise Ended("the archive's folder was deleted or moved")
            if event.mask & inotify.ISDIR and event.name:
                self.moved(event, folder + "/" + event.name)

    def moved(self, event: inotify.Event, child: str) -> None:
        """A subfolder came or went (made, deleted, or renamed in or out)."""
        if event.mask & (inotify.CREATE | inotify.MOVED_TO):
            if self.watchable(child, event.name):
                self.add(child)
        elif event.mask & inotify.MOVED_FROM:  # its watches follow it: no longer where they say
            for path in [p for p in self.wds if p == child or p.startswith(child + "/")]:
                self.mark(path)
                self.paths[self.wds.pop(path)] = None
        elif event.mask & inotify.DELETE and child in self.wds:
            self.paths[self.wds.pop(child)] = None

    def lose(self) -> None:
        """Events were lost: nothing before now can be vouched for, and folders made since the last
        event read may not be watched yet."""
        self.seq += 1
        self.lost_at = self.seq
        self.paths, self.wds, self.changed = {}, {}, {}
        self.add(self.root, mark=False)

    def answer(self, since: Any) -> dict[str, Any]:
        now = {"token": self.token, "seq": self.seq, "archive": self.root, "own": sorted(self.own)}
        if not (isinstance(since, list) and since[:1] == [self.token] and len(since) == 2):
            return {**now, "lost": True}
        after = since[1]
        if not isinstance(after, int) or after < self.lost_at or after > self.seq:
            return {**now, "lost": True}
        return {**now, "changed": sorted(f for f, seq in self.changed.items() if seq > after)}


def serve(root: str, path: str, own: frozenset[str], host: Host | None = None) -> None:
    """Watch ``root`` and answer on the socket ``path`` until there is no reason to (see the module).
    ``Ended`` when it cannot go on; if for good, it says why beside the socket (``ENDED``)."""
    with open(path + ".lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another watcher has this socket
        notify = inotify.Inotify()
        try:
            _watched(notify, root, path, own, host)
        except Ended as e:
            if e.lasting:
                with contextlib.suppress(OSError), open(path + ENDED, "w") as why:
                    why.write(f"{e}\n")
            raise
        finally:
            notify.close()


def _watched(notify: inotify.Inotify, root: str, path: str, own: frozenset[str], host: Host | None) -> None:
    tree = Tree(notify, root, own, inotify.watch_limit() // 4)
    tree.start()
    listener = _listen(path)
    mine = os.stat(path).st_ino
    try:
        if host is not None:
            host.ready()
        _loop(tree, notify, listener, path, mine, host)
    finally:
        listener.close()
        _unlink_own(path, mine)


def _listen(path: str) -> socket.socket:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a watcher's that ended without removing it (it holds no lock)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(8)
    return listener


def _loop(
    tree: Tree, notify: inotify.Inotify, listener: socket.socket, path: str, mine: int, host: Host | None = None
) -> None:
    selector = selectors.DefaultSelector()
    selector.register(notify.fd, selectors.EVENT_READ)
    selector.register(listener, selectors.EVENT_READ)
    asked = checked = time.monotonic()
    while True:
        for key, _ in selector.select(BUSY_SECONDS if host is not None and host.busy() else CHECK_SECONDS):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                with conn:
                    if _answer(conn, tree, notify, host):
                        return
                asked = time.monotonic()
            else:
                tree.take(notify.read())
        if host is not None:
            host.reap()
        now = time.monotonic()
        if now - asked > IDLE_SECONDS:
            return
        if now - checked > CHECK_SECONDS:
            checked = now
            try:
                if os.stat(path).st_ino != mine or not os.path.isdir(tree.root):
                    return
            except OSError:
                return


def _answer(conn: socket.socket, tree: Tree, notify: inotify.Inotify, host: Host | None = None) -> bool:
    """Answer one question, or hand a build to the host; whether it asked the watcher to stop."""
    conn.settimeout(2.0)
    fds: list[int] = []
    try:
        if peer_uid(conn) != os.getuid():
            return False
        data = b""
        while not data.endswith(b"\n") and len(data) < REQUEST_MOST:
            piece, passed, _, _ = socket.recv_fds(conn, 1 << 16, 8)
            fds += passed
            if not piece:
                break
            data += piece
        question = json.loads(data)
        if host is not None and isinstance(question, dict) and "build" in question:
            return host.hand(conn, question, fds)
        tree.take(notify.read())  # every change made before the question
        answer = tree.answer(question.get("since")) if isinstance(question, dict) else {}
        conn.sendall(json.dumps(answer).encode() + b"\n")
        return isinstance(question, dict) and question.get("stop") is True
    except (OSError, ValueError):
        return False
    finally:
        for fd in fds:  # (a build's child has its own copies)
            os.close(fd)


def _unlink_own(path: str, mine: int) -> None:
    try:
        if os.stat(path).st_ino == mine:
            os.unlink(path)
    except OSError:
        pass
