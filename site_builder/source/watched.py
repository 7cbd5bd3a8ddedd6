"""The archive's stamp with a watcher (``watcher.py``): the build asks the watcher which folders changed
since its last stamp and stamps only those again (``stamp.restamp``), from each folder's part kept in
the cache; it starts a watcher when there is none and it may (``start``). Without an answer it takes
the whole stamp, as a build without a watcher does: a watcher only ever saves time."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sys
import time
from collections.abc import Callable, Container, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..store import PickleStore
from .stamp import Part, Stamp, load_stamp, restamp, walk_stamp
from .walk import Skip
from .watchsocket import connect, socket_path

# What the last stamp taken with a watcher left: its digest, the watcher's ``[token, seq]`` it was taken
# after, and the names of the records of each folder's ``stamp.Part``: a base, and the parts that
# differ from it (so that one edit writes a few parts, not 20,000). Each record is written first,
# under a new name, then the head that names it.
HEAD = "stamp-head-v2"
PARTS = "stamp-parts-v2-"
REBASE_FROM = 0.1  # a share of the folders in the differences: written as a new base
ANSWER_SECONDS = 2.0  # a watcher slower than this to answer is not waited for
ANSWER_MOST = 1 << 26
HOST = "site_builder.buildhost"  # the watcher's process: a watcher that also runs builds handed to it
GIVE_UP_SECONDS = 86400.0  # after a watcher that could not watch every folder, none is started for a day


def watched_stamp(archive: Path, skip: Container[str], cache: Path, own: frozenset[str], start: bool) -> Stamp:
    """The archive's stamp (``stamp.load_stamp``), from the watcher's answer where it has one. When no
    folder changed, it is the kept stamp, whose folders are read only if they are asked for."""
    root = str(archive)
    store = PickleStore(cache / "stamp")
    head = store.get(HEAD)
    key = _parts_key(root, skip)
    head = head if isinstance(head, dict) and head.get("key") == key else {}
    since = head.get("since")
    answer = ask(cache, {"since": since})
    if answer is not None and (answer.get("archive") != root or answer.get("own") != sorted(own)):
        ask(cache, {"stop": True})  # another archive's, or its output and cache folders were elsewhere
        answer = None
    if answer is None:
        if start:
            start_watcher(cache, root, own)
        return load_stamp(archive, skip)
    now = [answer.get("token"), answer.get("seq")]
    changed = answer.get("changed")
    kept = _Kept(store, head)
    if since is None or not isinstance(changed, list):  # (a new watcher, or one that lost events)
        stamp, parts = walk_stamp(archive, skip, parts=True)
    elif not changed and not head.get("volatile"):
        folders = _KeptFolders(lambda: _folders(kept.parts(), archive, skip))
        return Stamp(head["digest"], head["newest"], {}, skip, folders)
    else:
        last = kept.parts()
        if last is None:  # (gone: another build has replaced them)
            stamp, parts = walk_stamp(archive, skip, parts=True)
        else:
            stamp, parts = restamp(archive, skip, last, _absolute(root, changed))
        if now == since and parts == last:
            return stamp
    kept.save({"key": key, "since": now, "digest": stamp.digest, "newest": stamp.newest_ns}, parts)
    return stamp


class _Kept:
    """The parts kept by the last stamp taken with a watcher (see ``HEAD``)."""

    def __init__(self, store: PickleStore, head: dict[str, Any]) -> None:
        self.store, self.head = store, head
        self.base: dict[str, Part] | None = None

    def parts(self) -> dict[str, Part] | None:
        """Each folder's part, as last kept; None if they are gone (a build since has replaced them)."""
        base = self.store.get(self.head.get("base", ""))
        changes = self.store.get(self.head["changes"]) if self.head.get("changes") else {}
        if not isinstance(base, dict) or not isinstance(changes, dict):
            return None
        self.base = base
        parts = dict(base)
        for folder, part in changes.items():
            if part is None:
                parts.pop(folder, None)
            else:
                parts[folder] = part
        return parts

    def save(self, head: dict[str, Any], parts: dict[str, Part]) -> None:
        base = self.base
        changes: dict[str, Part | None] = {}
        if base is not None:
            changes = {folder: part for folder, part in parts.items() if base.get(folder) != part}
            changes.update((folder, None) for folder in base.keys() - parts.keys())
        old = [self.head.get("base"), self.head.get("changes")]
        if base is None or len(changes) > REBASE_FROM * len(parts):
            head["base"] = self._put(parts)
        else:
            head["base"], head["changes"] = old[0], self._put(changes)
            old = old[1:]
        self.store.put(HEAD, {**head, "volatile": [folder for folder, part in parts.items() if part[3]]})
        for name in old:
            if isinstance(name, str) and name.startswith(PARTS):
                self.store.delete(name)

    def _put(self, parts: dict[str, Any]) -> str:
        name = PARTS + secrets.token_hex(8)
        self.store.put(name, parts)
        return name


def kept_parts(cache: Path) -> dict[str, Part] | None:
    """The folders' parts the last stamp with a watcher kept (as ``watched_stamp`` reads them)."""
    store = PickleStore(cache / "stamp")
    head = store.get(HEAD)
    return _Kept(store, head).parts() if isinstance(head, dict) else None


def _absolute(root: str, changed: list[Any]) -> set[str]:
    return {root + "/" + f if f else root for f in changed if isinstance(f, str)}


def _folders(parts: dict[str, Part] | None, archive: Path, skip: Container[str]) -> dict[str, tuple[str, int]]:
    """``Stamp.folders`` from kept parts; if they are gone, from a stamp taken now."""
    if not isinstance(parts, dict):
        return dict(load_stamp(archive, skip).folders)
    return {folder: (part[0], part[1]) for folder, part in sorted(parts.items())}


class _KeptFolders(Mapping[str, tuple[str, int]]):
    """``Stamp.folders``, read when first asked for."""

    def __init__(self, load: Callable[[], dict[str, tuple[str, int]]]) -> None:
        self._load: Callable[[], dict[str, tuple[str, int]]] | None = load
        self._folders: dict[str, tuple[str, int]] = {}

    def _all(self) -> dict[str, tuple[str, int]]:
        if self._load is not None:
            self._folders, self._load = self._load(), None
        return self._folders

    def __getitem__(self, folder: str) -> tuple[str, int]:
        return self._all()[folder]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _parts_key(root: str, skip: Container[str]) -> str:
    """What kept parts are good for: the archive, the folders it skips, and the code that stamps."""
    if isinstance(skip, Skip):
        skipped = repr((sorted(skip.folders), skip.archive, skip.exclude, sorted(skip.site)))
    else:
        skipped = repr(sorted(skip)) if isinstance(skip, (set, frozenset)) else repr(skip)
    code = Path(__file__).parent
    digest = hashlib.sha256(f"{root}\0{skipped}".encode("utf-8", "surrogateescape"))
    for name in ("stamp.py", "walk.py", "watched.py"):
        digest.update((code / name).read_bytes())
    return digest.hexdigest()


def ask(cache: Path, question: dict[str, Any]) -> dict[str, Any] | None:
    """The watcher's answer (see ``watcher.py``); None when there is no watcher, or it does not answer."""
    conn = connect(cache, ANSWER_SECONDS)
    if conn is None:
        return None
    try:
        with conn:
            conn.sendall(json.dumps(question).encode() + b"\n")
            data = b""
            while len(data) < ANSWER_MOST and (piece := conn.recv(1 << 20)):
                data += piece
    except OSError:
        return None
    try:
        answer = json.loads(data)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) and isinstance(answer.get("seq"), int) else None


def start_watcher(cache: Path, root: str, own: frozenset[str]) -> None:
    """Start a watcher for ``root`` that answers on ``cache``'s socket, in a session of its own (a
    terminal's Ctrl-C does not reach it); it ends by itself (see ``watcher.py``)."""
    path = socket_path(cache)
    if not sys.platform.startswith("linux") or path is None:
        return
    from .watcher import ENDED

    with contextlib.suppress(OSError):
        if time.time() - os.stat(path + ENDED).st_mtime < GIVE_UP_SECONDS:
            return  # the last one could not watch every folder (``watcher.Ended``)
    package = str(Path(__file__).resolve().parents[2])
    code = f"import sys; sys.path.insert(0, {package!r}); from {HOST} import main; main(sys.argv[1:])"
    _spawn([sys.executable, "-c", code, root, path, *sorted(own)])


def _spawn(args: list[str]) -> None:
    """Start ``args`` in a new session, as no process's child: a shell starts it in the background and
    ends at once (reaped here), so that no one waits for it, nor reaps it by surprise (``os.wait``)."""
    null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    shell = ["/bin/sh", "-c", '"$@" &', "sh", *args]
    with contextlib.suppress(OSError):  # (no watcher: the next build stamps every file again, as this one)
        os.waitpid(os.posix_spawn(shell[0], shell, os.environ, file_actions=null, setsid=True), 0)
