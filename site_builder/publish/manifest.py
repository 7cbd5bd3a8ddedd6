"""The manifest of the published site, in the cache: what a build wrote, and whether the site is still so.

Three files. ``published.json``, the base: every published file's digest, size and time, and each
generated file's digest, as a full build wrote them (a few hundred thousand at 10,000 entries, 27 MB).
``published-delta.json``: the folders a quick build (``quick.py``) wrote since, each described whole
again (``Delta``), so that one edited entry does not load and write the base again. And
``published-head.json``, written last by every build: the site's stamp, the inputs' digest and the
summary, all a build that changes nothing reads, and the serial number of the base the delta is of.

The manifest vouches for the site while the site's stamp (``site_stamp``) is the head's: every writer
changes the stamp (``unstamp``) before it changes a published file, and the head is saved after.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..source.config import BuildOptions
from ..store import JsonStore, write_json

MANIFEST = "published.json"  # in the cache: every published file's digest, size and time
DELTA = "published-delta.json"  # the folders quick builds wrote since the base
HEAD = "published-head.json"  # the manifest's few fields a build that changes nothing reads

Record = tuple[str, dict[str, Any]]  # the digest of a build's inputs, and the summary it reported
FileRecord = tuple[str, int, int]  # a published file's digest, size and modification time


def records(out: Path, files: dict[str, str]) -> dict[str, FileRecord]:
    """The manifest's record of each published file: its digest, size and modification time."""
    found = {}
    root = f"{out}/"  # (a string joined, not a Path made, per file: a cold build has 160,000 at 10,000 entries)
    for name, key in files.items():
        info = os.stat(root + name)
        found[name] = (key, info.st_size, info.st_mtime_ns)
    return found


def current_summary(options: BuildOptions, inputs: str) -> dict[str, Any] | None:
    """The summary of the published build, if it was built from exactly ``inputs`` and the site is
    as it left it (see ``site_stamp``); None otherwise. Reads no more than the manifest's head."""
    head = JsonStore(options.cache / HEAD, "manifest")
    summary = head.get("summary")
    if head.get("inputs") != inputs or not isinstance(summary, dict) or head.get("out") != str(options.out):
        return None
    if options.rerun:
        return summary if current_pages(options, inputs) is not None else None
    return summary if head.get("stamp") == site_stamp(options.out) else None


def current_pages(options: BuildOptions, inputs: str) -> tuple[dict[str, str], dict[str, Any]] | None:
    """Like ``current_summary``, with the digest of every generated file, by path."""
    stored = stored_manifest(options.cache)
    summary, pages = stored.get("summary"), stored.get("pages")
    if stored.get("inputs") != inputs or not isinstance(summary, dict) or not isinstance(pages, dict):
        return None
    if trusted_files(stored, options.out, options.rerun) is None:
        return None
    return pages, summary


def stored_manifest(cache: Path) -> dict[str, Any]:
    """The manifest as the last build left it: the head's fields, with the base's files and pages as the
    delta changes them ({} when the base is not the head's: a build stopped between the two)."""
    head = JsonStore(cache / HEAD, "manifest").data
    base = JsonStore(cache / MANIFEST, "manifest").data
    files, pages = base.get("files"), base.get("pages", {})
    if head.get("serial") != base.get("serial") or not isinstance(files, dict) or not isinstance(pages, dict):
        return {}
    delta = JsonStore(cache / DELTA, "manifest").data
    if delta.get("serial") == head.get("serial") and isinstance(delta.get("folders"), dict):
        Delta(delta["folders"]).apply(files, pages)
    return {**head, "files": files, "pages": pages}


def site_stamp(out: Path) -> list[list[Any]] | None:
    """The output folder's identity and time, and those of each file and folder at its top (None if
    it cannot be read). A build that swaps in a new site changes it, so does adding or removing
    anything at the top, and every writer of this module changes it (``unstamp``) before it changes
    a published file. What it cannot see is a file below the top edited or removed by hand: a build
    with ``--rerun`` checks every published file's size and time instead."""
    try:
        root = os.stat(out)
        with os.scandir(out) as scan:
            top = sorted((entry.name, entry.stat(follow_symlinks=False)) for entry in scan)
    except OSError:
        return None
    stamps = [[".", root.st_dev, root.st_ino, root.st_mtime_ns]]
    return stamps + [[name, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns] for name, info in top]


def unstamp(out: Path) -> None:
    """Change the site's stamp: the manifest no longer vouches for it (until it is saved again)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(out)


def same_file(path: str, recorded: FileRecord) -> bool:
    """Whether the file still has the size and time recorded when it was written (a plain string
    path: this runs over every published file)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns) == (recorded[1], recorded[2])


def trusted_files(stored: dict[str, Any], out: Path, every_file: bool) -> dict[str, FileRecord] | None:
    """The files of the manifest (``stored_manifest``), if it describes this output folder: by the site's
    stamp, or (``every_file``) by the size and time of every published file."""
    if stored.get("out") != str(out) or not out.is_dir():
        return None
    files = stored.get("files")
    if not isinstance(files, dict):
        return None
    if not every_file:
        return _files(files) if stored.get("stamp") == site_stamp(out) else None
    manifest = _files(files)
    base = str(out) + os.sep
    if not all(same_file(base + name, recorded) for name, recorded in manifest.items()):
        return None  # someone changed the published site: write everything again
    return manifest


def _files(files: dict[str, Any]) -> dict[str, FileRecord]:
    return {p: (v[0], v[1], v[2]) for p, v in files.items() if isinstance(v, list | tuple) and len(v) == 3}


def save_manifest(
    cache: Path,
    out: Path,
    wanted: dict[str, str],
    record: Record | None = None,
    pages: dict[str, str] | None = None,
    known: dict[str, FileRecord] | None = None,
) -> int:
    """Describe the published folder (``known``: a manifest just checked against it, reused) in a new
    base, with no delta; returns the bytes of its files."""
    if known is None:
        known = records(out, wanted)
    size = sum(value[1] for value in known.values())
    head: dict[str, Any] = {"out": str(out), "stamp": site_stamp(out), "serial": secrets.token_hex(8)}
    if record is not None and pages is not None:
        head.update({"inputs": record[0], "summary": {**record[1], "bytes": size}})
    (cache / DELTA).unlink(missing_ok=True)
    # each file's (digest, size, time): a tuple is a JSON array, as ``_files`` reads it back
    write_json(cache / MANIFEST, {**head, "files": known, **({"pages": pages} if "inputs" in head else {})})
    write_json(cache / HEAD, head)  # what a build that changes nothing reads: not 100,000 files
    return size


@dataclass(slots=True)
class Delta:
    """Folders of the site described whole again since the base: by folder (a path ending in "/"; or a
    file's path, for that file alone), the names below it that are another's (``except``) and every
    file of it, as ``[digest, size, time, generated]`` (generated: a page, not an archive file)."""

    folders: dict[str, Any] = field(default_factory=dict)

    def apply(self, files: dict[str, Any], pages: dict[str, Any]) -> None:
        """Change the base's ``files`` and ``pages`` as the delta says: one pass over the base's files
        (each looked up by the folders above it), whatever the number of folders."""
        for path in list(files):
            if self._claimed(path):
                del files[path]
                pages.pop(path, None)
        for spec in self.folders.values():
            for path, (key, size, time, generated) in spec["files"].items():
                files[path] = [key, size, time]
                if generated:
                    pages[path] = key

    def _claimed(self, path: str) -> bool:
        if path in self.folders:  # a file described alone
            return True
        end = path.find("/")
        while end != -1:
            spec = self.folders.get(path[: end + 1])
            if spec is not None and not path.startswith(tuple(spec["except"])):
                return True
            end = path.find("/", end + 1)
        return False

    def describe(self, out: Path, folder: str, other: tuple[str, ...], digests: dict[str, tuple[str, bool]]) -> int:
        """Describe ``folder`` of the site as it is on disk, but for the names below it that start with
        one of ``other``, each file by its digest in ``digests`` (with whether it is generated), else read
        now; returns the bytes of its files."""
        found: dict[str, list[object]] = {}
        size = 0
        for path, info in files_below(out, folder, other).items():
            key, generated = digests.get(path) or (file_digest(out / path), False)
            found[path] = [key, info.st_size, info.st_mtime_ns, generated]
            size += info.st_size
        self.folders[folder] = {"except": list(other), "files": found}
        return size


def files_below(out: Path, folder: str, other: tuple[str, ...] = ()) -> dict[str, os.stat_result]:
    """Every file of the site below ``folder`` (a path ending in "/"), by path, but those whose paths
    start with one of ``other``; or the file ``folder`` names, if it is one."""
    found = {}
    if not folder.endswith("/"):
        with contextlib.suppress(FileNotFoundError):
            info = (out / folder).lstat()
            if stat.S_ISREG(info.st_mode):
                found[folder] = info
        return found
    pending = [out / folder]
    while pending:
        try:
            with os.scandir(pending.pop()) as scan:
                for entry in scan:
                    path = os.path.relpath(entry.path, out).replace(os.sep, "/")
                    if path.startswith(other):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        found[path] = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
    return found


def load_delta(cache: Path, serial: object) -> Delta:
    """The delta of the base with this serial number (empty if there is none)."""
    stored = JsonStore(cache / DELTA, "manifest").data
    folders = stored.get("folders")
    return Delta(folders if stored.get("serial") == serial and isinstance(folders, dict) else {})


def save_delta(cache: Path, out: Path, delta: Delta, head: dict[str, Any], record: Record, size: int) -> None:
    """Keep ``delta`` for the base of ``head``, then the head anew: the site's stamp now, ``record``,
    and the site's ``size``."""
    write_json(cache / DELTA, {"serial": head.get("serial"), "folders": delta.folders})
    fields = {"stamp": site_stamp(out), "inputs": record[0], "summary": {**record[1], "bytes": size}}
    write_json(cache / HEAD, {**head, **fields})


def file_digest(path: Path | str) -> str:
    """``output.digest`` of a file's bytes, read a piece at a time (a published file may be gigabytes)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha1").hexdigest()
