"""The archive's stamp: what ``stat`` says of every file a build reads (path, size, times, inode), as
one digest, with each folder's part of it; no file is read. A build whose stamp is the one it
recorded reads nothing (``freshness.py``); a quick build finds the folders that changed by their parts
(``quick.py``)."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Collection, Container, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from .walk import BUILDER_MARKER, Listing, is_unread

_name = attrgetter("name")


@dataclass(frozen=True, slots=True)
class Stamp:
    """What ``stat`` says about every file of an archive (path, size, times, inode), as one digest."""

    digest: str
    newest_ns: int  # the latest modification or status-change time of any file
    # The folders as listed for the stamp: loading the archive right after need not list them again.
    listing: Listing = field(default_factory=dict, compare=False, repr=False)
    skip: Container[str] = field(default=frozenset(), compare=False, repr=False)  # the folders it did not enter
    # Each folder's own part, by its path: the digest of its lines (its files and subfolders), and the
    # latest time of its files. Two stamps differ in the folders where something changed.
    folders: Mapping[str, tuple[str, int]] = field(default_factory=dict, compare=False, repr=False)


def load_stamp(archive: Path, skip: Container[str] = frozenset()) -> Stamp:
    """The archive's stamp, from its folders and ``stat`` alone: no file is read.

    A file cannot change without changing its stamp (a rewrite sets the change time, which no
    program can set back), except within one tick of the file system's clock: a stamp only vouches
    for files whose times are older than that (see ``newest_ns``). The folders ``find_problem_folders``
    does not enter (``skip``, and those with the ``BUILDER_MARKER``) are not stamped either.

    One ``stat`` per file is most of the time (120,000 files: 1.2 s here), and the system's share of it
    runs on one CPU per process: below the first folders, a second process stamps every other one
    (``_stamped_apart``), where there is a CPU for it. Its folders are not in ``listing``. (With a
    watcher, only the folders that changed are stamped again: ``restamp``.)"""
    return walk_stamp(archive, skip)[0]


# A folder's part of the stamp, kept between builds to stamp again only what changed (``restamp``): its
# digest and latest time (as in ``Stamp.folders``), its subfolders, and whether it must be stamped
# every time (it holds a symbolic link, whose target's times are not its folder's to watch, or could
# not be listed).
Part = tuple[str, int, tuple[str, ...], bool]


def walk_stamp(archive: Path, skip: Container[str] = frozenset(), parts: bool = False) -> tuple[Stamp, dict[str, Part]]:
    """``load_stamp``, and with ``parts``, each folder's ``Part`` (else none)."""
    walk = _StampWalk(skip, parts)
    pending = [str(archive)]
    while pending and len(pending) < _SHARED_FROM:  # breadth first: the folders to share
        pending += walk.folder(pending.pop(0))
    apart = _stamped_apart(pending[1::2], skip, parts) if len(pending) > 1 and _may_fork() else None
    for top in pending[0::2] if apart is not None else pending:
        walk.below(top)
    if apart is not None:
        found = apart.result()
        if found is None:
            walk.below_all(pending[1::2])
        else:
            walk.folders.update(found[0])
            walk.tree.update(found[1])
    return _stamp_of(walk.folders, walk.listing, skip), walk.parts()


def restamp(
    archive: Path, skip: Container[str], last: dict[str, Part], changed: Collection[str]
) -> tuple[Stamp, dict[str, Part]]:
    """The stamp from the ``last`` parts, each folder in ``changed`` (or new, or to be stamped every time)
    stamped again: the stamp ``walk_stamp`` would give, if ``changed`` holds every folder in which a
    file, or the list of files, changed since ``last`` was taken. Each folder's part, as then.

    Where no folder stamped again has other subfolders than before, the others are as they were;
    else the archive's tree is followed from its top, to drop the folders gone and stamp those new."""
    walk = _StampWalk(skip, True)
    if str(archive) in last:  # (else no folder is known: each is new)
        parts = dict(last)
        again = [folder for folder in changed if folder in last]
        again += [folder for folder, part in last.items() if part[3] and folder not in changed]
        for folder in again:
            walk.folder(folder)
            (digest, latest), (below, volatile) = walk.folders[folder], walk.tree[folder]
            if below != last[folder][2]:
                break
            parts[folder] = (digest, latest, below, volatile)
        else:  # (a folder in ``changed`` but not in ``last`` is new only if its parent's subfolders changed)
            return _stamp_of({f: (p[0], p[1]) for f, p in parts.items()}, walk.listing, skip), parts
    parts = {}
    pending = [str(archive)]
    while pending:
        folder = pending.pop()
        part = last.get(folder)
        if part is None or part[3] or folder in changed:
            if folder not in walk.folders:
                walk.folder(folder)
            (digest, latest), (below, volatile) = walk.folders[folder], walk.tree[folder]
            part = (digest, latest, below, volatile)
        parts[folder] = part
        pending += part[2]
    return _stamp_of({f: (p[0], p[1]) for f, p in parts.items()}, walk.listing, skip), parts


def _stamp_of(found: dict[str, tuple[str, int]], listing: Listing, skip: Container[str]) -> Stamp:
    folders = dict(sorted(found.items()))
    whole = "\n".join(f"{folder}\0{digest}" for folder, (digest, _) in folders.items())
    digest = hashlib.sha256(whole.encode("utf-8", "surrogateescape")).hexdigest()
    newest = max((latest for _, latest in folders.values()), default=0)
    return Stamp(digest, newest, listing, skip, folders)


_SHARED_FROM = 256  # folders found before the walk is shared between two processes


class _StampWalk:
    """The stamp's walk of some folders: each folder's part of the stamp, and the folders as listed."""

    def __init__(self, skip: Container[str], parts: bool = False) -> None:
        self.skip, self.keep_tree = skip, parts
        self.listing: Listing = {}
        self.folders: dict[str, tuple[str, int]] = {}
        self.tree: dict[str, tuple[tuple[str, ...], bool]] = {}  # with ``parts``: subfolders, and ``Part``'s last
        self.unread: dict[str, bool] = {}  # ``is_unread`` by name: an archive repeats a few names thousands of times

    def below(self, top: str) -> None:
        pending = [top]
        while pending:
            pending += self.folder(pending.pop())

    def below_all(self, tops: list[str]) -> dict[str, tuple[str, int]]:
        for top in tops:
            self.below(top)
        return self.folders

    def parts(self) -> dict[str, Part]:
        return {f: (d, t, *self.tree[f]) for f, (d, t) in self.folders.items()} if self.keep_tree else {}

    def folder(self, folder: str) -> list[str]:
        """Stamp one folder (its files and the names of its subfolders); its subfolders to stamp."""
        lines: list[str] = []
        add = lines.append
        latest = 0
        subfolders: list[str] = []
        volatile = False
        if folder in self.skip:
            add(f"{folder}\0skipped")
            found = []
        else:
            try:
                with os.scandir(folder) as scan:
                    found = self.listing[folder] = sorted(scan, key=_name)
            except OSError as e:
                add(f"{folder}\0{e.errno}")
                found, volatile = [], True
        if any(entry.name == BUILDER_MARKER for entry in found):
            add(f"{folder}\0{BUILDER_MARKER}")
            found = []
        unread = self.unread
        for entry in found:
            name = entry.name
            hidden = unread.get(name)
            if hidden is None:
                hidden = unread[name] = is_unread(name)
            if hidden:
                continue
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
                add(entry.path + "/")
                continue
            if self.keep_tree and entry.is_symlink():
                volatile = True
            try:
                info = entry.stat()
            except OSError as e:
                add(f"{entry.path}\0{e.errno}")
                volatile = True
                continue
            changed, moved = info.st_mtime_ns, info.st_ctime_ns  # ``file_signature``, written out: 100,000 files
            add(f"{entry.path}\0{info.st_size} {changed} {moved} {info.st_ino}")
            if changed > latest:
                latest = changed
            if moved > latest:
                latest = moved
        own = "\n".join(lines).encode("utf-8", "surrogateescape")
        self.folders[folder] = (hashlib.sha1(own).hexdigest(), latest)
        if self.keep_tree:
            self.tree[folder] = (tuple(subfolders), volatile)
        return subfolders[::-1]  # popped last first: in order of name


def _may_fork() -> bool:
    """Whether a second process may stamp folders: a CPU for it, and no other thread in this one
    (a forked copy of a process with threads may find a lock held forever)."""
    affinity = getattr(os, "sched_getaffinity", None)  # (Linux's; elsewhere, every CPU the machine has)
    cpus = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    return hasattr(os, "fork") and cpus > 1 and threading.active_count() == 1


class _Apart:
    """The stamp's parts of some folders, taken by a forked copy of this process."""

    def __init__(self, pid: int, reader: int) -> None:
        self.pid, self.reader = pid, reader

    def result(self) -> tuple[dict[str, tuple[str, int]], dict[str, tuple[tuple[str, ...], bool]]] | None:
        """Its folders' parts, and their ``_StampWalk.tree``; None if it failed (the caller stamps them itself)."""
        with os.fdopen(self.reader, "rb") as reader:
            data = reader.read()  # until the copy closes the pipe
        _, status = os.waitpid(self.pid, 0)
        if status != 0:
            return None
        try:
            found = json.loads(data)
        except ValueError:
            return None
        folders = {row[0]: (row[1], row[2]) for row in found}
        return folders, {row[0]: (tuple(row[3]), row[4]) for row in found if len(row) == 5}


def _stamped_apart(tops: list[str], skip: Container[str], parts: bool = False) -> _Apart | None:
    """Start stamping the folders below ``tops`` in a forked copy of this process (None if it cannot
    start). The copy lists and stats, and writes back each folder's part as JSON, then ends at once."""
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # pragma: no cover - the copy, measured by its parent's result
        code = 1
        try:
            os.close(reader)
            walk = _StampWalk(skip, parts)
            found = walk.below_all(tops).items()
            tree = walk.tree
            data = json.dumps([[f, d, t, *tree[f]] if parts else [f, d, t] for f, (d, t) in found]).encode()
            with os.fdopen(writer, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    return _Apart(pid, reader)
