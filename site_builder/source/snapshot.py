"""Problem folders as the last build loaded them, trusted while ``stat`` says the same of every file.

A file cannot change without changing what ``stat`` says of it (its size, its modification and
change times, its inode: a rewrite always moves the change time, which no program can set back),
except within one tick of the file system's clock. So a folder is remembered only when every
file's times are older than the build by more than such a tick (``settled_ns``), the rule git
uses for its index. No I/O here: ``archive`` takes the stats and reads the files.
"""

from __future__ import annotations

import os

from ..model import EntrySource

SETTLED_NS = 2_000_000_000  # two seconds: the coarsest timestamps in use (FAT) tick that slowly

Signature = tuple[object, ...]


def file_signature(info: os.stat_result) -> tuple[int, int, int, int]:
    """What ``stat`` says of a file that a rewrite always changes (the archive's stamp, ``stamp.load_stamp``, writes
    out the same four numbers)."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def same_bytes(before: object, now: object) -> bool:
    """Whether two ``file_signature``s agree but for their change times: a file's bytes as they were,
    though a hard link to it was made or removed (which moves only the change time)."""
    if not (isinstance(before, tuple) and isinstance(now, tuple) and len(before) == len(now) == 4):
        return False
    return before[:2] == now[:2] and before[3] == now[3]


def settled(info: os.stat_result, settled_ns: int) -> bool:
    return max(info.st_mtime_ns, info.st_ctime_ns) < settled_ns


class Snapshot:
    """Folders loaded before, by path: each with the signature of everything it was loaded from
    (its files' stats and names, their git dates, the messages listing it gave)."""

    def __init__(self, settled_ns: int, known: dict[str, tuple[Signature, EntrySource]] | None = None) -> None:
        self.settled_ns = settled_ns
        self.known = known or {}
        self.seen: dict[str, tuple[Signature, EntrySource]] = {}  # what the next build may take
        self.fresh = False  # a folder was remembered now as it was not before

    @property
    def changed(self) -> bool:
        return self.fresh or len(self.seen) != len(self.known)

    def get(self, folder: str, signature: Signature) -> EntrySource | None:
        hit = self.known.get(folder)
        if hit is None or hit[0] != signature:
            return None
        self.seen[folder] = hit
        return hit[1]

    def previous(self, folder: str) -> tuple[Signature, EntrySource] | None:
        """The folder as it was last loaded, whatever has changed since (None if it was not)."""
        return self.known.get(folder)

    def remember(self, folder: str, signature: Signature, stats: list[os.stat_result], source: EntrySource) -> None:
        if all(settled(info, self.settled_ns) for info in stats):
            self.seen[folder] = (signature, source)
            self.fresh = True
