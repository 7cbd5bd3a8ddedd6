"""Reading a problem folder's files: the listing (in natural order, links kept inside the archive,
paths too deep refused), and each file read as text, or only hashed a piece at a time (test data, and
files too large to show), with the limits on what is published and shown."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Container
from pathlib import Path

from ..errors import Diagnostic
from ..model import MAX_TEXT_BYTES, SourceFile
from .images import HEAD_BYTES, image_size, is_image_name
from .paths import joined
from .testdata import hashed_only, is_test_data
from .walk import BUILDER_MARKER, Listing, _entries, _natural_name, is_ignored, site_names, too_deep

MiB = 1024 * 1024


MAX_FILE_BYTES = 256 * MiB  # larger files are not published (nor read: a 5 GB sparse file reads as zeros)


def _list_files(
    folder: Path,
    root: str,
    where: str,
    diagnostics: list[Diagnostic],
    listed: Listing | None = None,
    rel_root: str = "",
    skip: Container[str] = frozenset(),
) -> list[tuple[str, str, os.stat_result]]:
    """Every file of a problem folder (files first, then subfolders, in natural order): its name in
    the folder, its path, and what ``stat`` says of it. ``root``: the archive folder with symbolic
    links resolved; links may not lead out of it. No folder the builder wrote is listed (its output
    or cache), nor one of ``skip`` (absolute paths; see ``walk.Skip``), nor a name at the top that
    ``skip`` says is the site's."""
    listing = []
    pending = [("", str(folder))]
    top = site_names(skip)
    while pending:
        prefix, directory = pending.pop(0)
        entries = _entries(directory, listed)
        if prefix and any(e.name == BUILDER_MARKER for e in entries):
            continue
        found = sorted((e for e in entries if not is_ignored(e.name)), key=_natural_name)
        subfolders = []
        for entry in found:
            rel = prefix + entry.name
            if not prefix and entry.name in top:
                continue
            if deep := too_deep(joined(rel_root, rel)):
                diagnostics.append(Diagnostic(f"{where}/{rel}", 0, f"{deep}; not published"))
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.path not in skip:
                    subfolders.append((rel + "/", entry.path))
                continue
            if entry.is_symlink() and not os.path.realpath(entry.path).startswith(root + os.sep):
                diagnostics.append(
                    Diagnostic(f"{where}/{rel}", 0, "symbolic link leads outside the archive; not published")
                )
                continue
            try:
                if entry.is_file():
                    listing.append((rel, entry.path, entry.stat()))
            except OSError as e:  # a link in a loop, or a file gone meanwhile
                diagnostics.append(Diagnostic(f"{where}/{rel}", 0, f"cannot read it: {e.strerror}; not published"))
        pending[0:0] = subfolders
    return listing


def _load_files(
    listing: list[tuple[str, str, os.stat_result]],
    where: str,
    diagnostics: list[Diagnostic],
    git_dates: dict[str, int],
    rel_root: str,
    digests: dict[str, str],
) -> tuple[list[SourceFile], int]:
    """The listed files, read (test data only hashed, or its digest taken from ``digests``), and
    the newest date among them (git's, else the modification time)."""
    files: list[SourceFile] = []
    newest = 0
    for rel, path, info in listing:
        if hashed_only(rel):
            item = _load_test_data(path, info.st_size, rel, f"{where}/{rel}", diagnostics, digests.get(rel))
        else:
            item = _load_file(path, info.st_size, rel, f"{where}/{rel}", diagnostics)
        if item is not None:
            files.append(item)
            stamp = git_dates.get(joined(rel_root, rel))
            newest = max(newest, stamp if stamp is not None else int(info.st_mtime))
    return files, newest


def _read_bytes(path: str, size: int) -> bytes:
    """A whole file of ``size`` bytes (as ``stat`` said), with plain system calls.

    A buffered file object costs more than the read itself, and so does a large read buffer: it is
    allocated fresh for every call. One read of ``size + 1`` bytes finds a file that is as ``stat``
    said; one that grew or shrank meanwhile is read on to its end."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(fd, size + 1)
        if len(data) == size:
            return data
        chunks, total = [data], len(data)
        while total <= MAX_TEXT_BYTES and (chunk := os.read(fd, 1 << 16)):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _digest_file(path: str) -> tuple[str, int]:
    """The SHA-1 and size of a file too large to hold as text, read a piece at a time."""
    digest = hashlib.sha1()
    size = 0
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise OSError(errno.EFBIG, "it grew while being read")
    finally:
        os.close(fd)
    return digest.hexdigest(), size


TEST_DATA = "test data: published as it is, shown on no page"


def _load_test_data(
    path: str, size: int, rel: str, shown: str, diagnostics: list[Diagnostic], known: str | None
) -> SourceFile | None:
    """A test data file, never read whole: hashed a piece at a time (``known``: its digest, when
    ``stat`` says it is unchanged since it was last hashed)."""
    if _over_limit(size, shown, diagnostics):
        return None
    if known is not None:
        return SourceFile(name=rel, text=None, size=size, digest=known, binary=TEST_DATA)
    try:
        digest, size = _digest_file(path)
    except OSError as e:
        diagnostics.append(Diagnostic(shown, 0, f"cannot read: {e.strerror}"))
        return None
    return SourceFile(name=rel, text=None, size=size, digest=digest, binary=TEST_DATA)


def _over_limit(size: int, shown: str, diagnostics: list[Diagnostic]) -> bool:
    if size <= MAX_FILE_BYTES:
        return False
    message = f"{size / MiB:.0f} MiB is over the {MAX_FILE_BYTES // MiB} MiB limit for a file; not published"
    diagnostics.append(Diagnostic(shown, 0, message, "warning"))
    return True


def _load_file(path: str, size: int, rel: str, shown: str, diagnostics: list[Diagnostic]) -> SourceFile | None:
    if _over_limit(size, shown, diagnostics):
        return None
    try:
        if size > MAX_TEXT_BYTES:
            digest, size = _digest_file(path)
            why = f"{size / MiB:.1f} MiB is over the {MAX_TEXT_BYTES // MiB} MiB limit for text the site shows"
            pixels = image_size(rel, _read_head(path)) if is_image_name(rel) else None
            return SourceFile(name=rel, text=None, size=size, digest=digest, binary=why, image_size=pixels)
        data = _read_bytes(path, size)
    except OSError as e:
        diagnostics.append(Diagnostic(shown, 0, f"cannot read: {e.strerror}"))
        return None
    digest = hashlib.sha1(data).hexdigest()
    pixels = image_size(rel, data) if is_image_name(rel) else None
    if len(data) > MAX_TEXT_BYTES:  # it grew since ``stat``
        why = f"{len(data) / MiB:.1f} MiB is over the {MAX_TEXT_BYTES // MiB} MiB limit for text the site shows"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why, image_size=pixels)
    if (nul := data.find(b"\x00", 0, 8192)) >= 0:
        why = f"binary data (a NUL byte at offset {nul}), not text"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why, image_size=pixels)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if _is_text_name(rel) and not is_test_data(rel):
            line = data.count(b"\n", 0, e.start) + 1
            diagnostics.append(
                Diagnostic(shown, line, f"not valid UTF-8 (byte offset {e.start}); save the file as UTF-8")
            )
        why = f"not valid UTF-8 (byte offset {e.start})"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why)
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceFile(name=rel, text=text, size=len(data), digest=digest, image_size=pixels)


def _read_head(path: str) -> bytes:
    """The first bytes of a file, where an image's header says its size."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, HEAD_BYTES)
    finally:
        os.close(fd)


_TEXT_SUFFIXES = {
    ".tex",
    ".md",
    ".txt",
    ".py",
    ".cpp",
    ".cc",
    ".c",
    ".h",
    ".java",
    ".yaml",
    ".yml",
    ".in",
    ".ans",
    ".out",
}


def _is_text_name(name: str) -> bool:
    return Path(name).suffix.lower() in _TEXT_SUFFIXES
