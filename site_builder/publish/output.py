"""Writing the site: the only module that writes into the output folder.

A build writes every new or changed file into a temporary sibling folder first, and publishes
only when all are there: the first build by swapping the folder in, later ones by renaming the
changed files into place (``SiteWriter``). The dev server's incremental updates replace single
files, each through a rename. A reader never sees a half-written file.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BuildError
from ..source.config import BuildOptions
from ..source.theme import Theme
from ..source.walk import BUILDER_MARKER, MARKER_TEXT
from ..store import write_atomic
from .copying import COPIER_LEAST, Copier, copy_file
from .manifest import Record, file_digest, records, same_file, save_manifest, stored_manifest, trusted_files, unstamp

if TYPE_CHECKING:
    from .outputs import Output


@dataclass(frozen=True, slots=True)
class RawFile:
    """An archive file published byte-identical at ``target``."""

    source: str  # its path (a plain string: a build plans 10,000 of them)
    target: str
    digest: str
    link: bool = False  # test data: may be hard-linked from the archive rather than copied (see ``copy_file``)


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


class SiteWriter:
    """Publishes a site, a file at a time as pages are rendered (so a build never holds them all),
    with work proportional to what changed.

    Every new or changed file is first written in full into a temporary sibling folder. A first
    build (or one whose published site no longer matches its manifest) then swaps that folder in
    with one rename. A later build moves only the files that changed into the published site, each
    with one rename, after all of them are ready, and removes the files no longer wanted: one edited
    write-up costs a few renames, not a link for each of 100,000 files. We never write into a
    published file, we only replace it; a build that changes nothing leaves the site as it is. The
    manifest of the last build, with the size and time of every file it wrote, lives in the cache.
    It is trusted while the site's stamp (``site_stamp``) is the one it recorded; with ``--rerun``,
    only while every published file has its recorded size and time (a file that does not is
    written again).
    """

    def __init__(self, options: BuildOptions, theme: Theme) -> None:
        self.options = options
        self.out = options.out
        self.cache = options.cache
        self.every_file = options.rerun  # check each published file, not only the site's stamp
        self.previous = trusted_files(stored_manifest(options.cache), self.out, self.every_file) or {}
        self.pages: dict[str, str] = {}  # the digest of every generated file, by path
        self.wanted: dict[str, str] = {}  # the digest of every file, by path
        self.staged: dict[str, None] = {}  # written into ``tmp``, new or changed (in order)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(self.out)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.tmp-", dir=self.out.parent))
        self.folders: set[str] = {""}  # made in ``tmp`` so far: one mkdir per folder, not per file
        self.copier: Copier | None = None  # placing files into ``tmp`` meanwhile (``_helper``)
        self.placed = 0  # files placed into ``tmp`` by this process, or to be (see ``_helper``)
        self.raw_added = False
        self._guarded(self.tmp.chmod, 0o755)
        for name, data in _static_files(options, theme).items():
            self._guarded(self._place, f"static/{name}", digest(data), data=data)
        # This folder is no archive's, wherever it is.
        self._guarded(self._place, BUILDER_MARKER, digest(MARKER_TEXT.encode()), data=MARKER_TEXT.encode())

    def has(self, path: str, key: str) -> bool:
        """Whether the published site has this file with this digest (as far as the manifest is
        trusted): an ``Output`` of it may then be ``kept``."""
        old = self.previous.get(path)
        return old is not None and old[0] == key

    @property
    def cold(self) -> bool:
        """Whether no published site is trusted, so that every file is written (a first build)."""
        return not self.previous

    @property
    def written(self) -> int:
        return len(self.staged)

    def __enter__(self) -> SiteWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.abandon()

    def add(self, outputs: Iterable[Output]) -> None:
        """Generated files (pages, the search index...): each placed as it comes, then let go."""
        for item in outputs:
            key = item.kept or item.digest or digest(item.data)
            self.pages[item.path] = key
            if item.written:
                self._guarded(self._placed, item.path, key)
            else:
                self._guarded(self._place, item.path, key, data=item.data, kept=bool(item.kept))

    def add_raw(self, raw: list[RawFile]) -> None:
        """Archive files, copied (or linked, or cloned) from where they are: when many are new, by a
        process of their own while the builder goes on (``_helper``)."""
        if self.raw_added:
            raise ValueError("the archive's files are added once")
        self.raw_added = True
        copies = [file for file in raw if self._staged(file.target, file.digest)]
        helper = self._helper(len(copies))
        if helper is not None:
            self._guarded(
                self._sent, helper.copy, [(file.source, f"{self.tmp}/{file.target}", file.link) for file in copies]
            )
            return
        for file in copies:
            self._guarded(self._copy, file)

    def finish(self, record: Record | None = None) -> tuple[dict[str, str], int, int]:
        """Publish what changed (nothing, if the site is the published one file for file); keep the
        manifest, with ``record`` for ``current_summary``. Returns the digest of every generated
        file, by path, how many files were written, and the site's bytes (also kept in ``record``'s
        summary, as ``bytes``)."""
        self._guarded(self._copied)
        stale = [path for path in self.previous if path not in self.wanted]
        if not self.staged and not stale:
            self.abandon()
            size = save_manifest(self.cache, self.out, self.wanted, record, self.pages, self.previous)
            return self.pages, 0, size
        if self.previous and not self._conflicts():
            self._guarded(unstamp, self.out)  # from now on, until the manifest is saved, not trusted
            self._guarded(self._move_changed, stale)
            kept = {path: self.previous[path] for path in self.wanted if path not in self.staged}
            fresh = records(self.out, {path: self.wanted[path] for path in self.staged})
            self.abandon()
            size = save_manifest(self.cache, self.out, self.wanted, record, self.pages, kept | fresh)
            return self.pages, self.written, size
        self._guarded(self._link_unchanged)
        self._guarded(swap_into_place, self.tmp, self.out)
        return self.pages, self.written, save_manifest(self.cache, self.out, self.wanted, record, self.pages)

    def abandon(self) -> None:
        """Remove what was placed, if it was not published (the published site stays as it was)."""
        copier, self.copier = self.copier, None
        if copier is not None:
            copier.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _helper(self, count: int) -> Copier | None:
        """The process placing files into ``tmp`` meanwhile, once this build has ``COPIER_LEAST`` files
        to place (counting ``count`` more): a cold build's tens of thousands of files cost the kernel
        seconds to make, which the builder then spends rendering; a build that changed a few places
        them itself (a process costs 30 ms to start). None when there is none (or no Python to start)."""
        if self.copier is None and self.placed < COPIER_LEAST:
            self.placed += count
            if self.placed >= COPIER_LEAST:
                with contextlib.suppress(OSError):  # (no Python to start: placed here)
                    self.copier = Copier()
        return self.copier

    def _sent(self, send: Callable[..., None], *args: object) -> None:
        """Hand files to the helper; when it has ended, its reason as an OSError."""
        try:
            send(*args)
        except BrokenPipeError:
            self._copied()
            raise OSError(errno.EPIPE, "the process placing the site's files ended") from None

    def _copied(self) -> None:
        """Wait for the placing process, if there is one; its error as an OSError."""
        copier, self.copier = self.copier, None
        if copier is not None and (problem := copier.wait()) is not None:
            raise OSError(problem)

    def _conflicts(self) -> bool:
        """Whether a changed file would replace a folder of the published site, or go below one of
        its files: the whole site is then swapped in instead."""
        for path in self.staged:
            if (self.out / path).is_dir():
                return True
            parts = path.split("/")[:-1]
            for n in range(1, len(parts) + 1):
                if os.path.isfile(os.path.join(self.out, *parts[:n])):
                    return True
        return False

    def _move_changed(self, stale: list[str]) -> None:
        """Rename each staged file into the published site, then remove the stale ones and the
        folders they leave empty."""
        made: set[str] = {""}
        for path in self.staged:
            make_folder(self.out, made, path)
            os.replace(self.tmp / path, self.out / path)
        emptied: set[str] = set()
        for path in stale:
            (self.out / path).unlink(missing_ok=True)
            folder = path.rpartition("/")[0]
            if folder:
                emptied.update(_ancestors(folder))
        for folder in sorted(emptied, key=lambda f: f.count("/"), reverse=True):
            with contextlib.suppress(OSError):  # not empty: other files live there
                (self.out / folder).rmdir()

    def _link_unchanged(self) -> None:
        """Fill ``tmp`` with the unchanged files, linked from the published site, for a swap."""
        for path in self.wanted:
            if path not in self.staged:
                make_folder(self.tmp, self.folders, path)
                os.link(self.out / path, self.tmp / path)

    def _guarded(self, action: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        try:
            action(*args, **kwargs)
        except OSError as e:
            self.abandon()
            raise BuildError(self.options.display(self.out), None, f"cannot write the site: {e}") from e

    def _place(self, path: str, key: str, data: bytes | None = None, kept: bool = False) -> None:
        """Stage the file, unless the published site has it unchanged."""
        if not self._staged(path, key):
            return
        if kept:
            raise OSError(errno.ESTALE, f"{path} changed while the site was being built; build again")
        helper = self._helper(1)
        if helper is not None and helper.ready():
            self._sent(helper.write, f"{self.tmp}/{path}", data or b"")
            return
        make_folder(self.tmp, self.folders, path)
        (self.tmp / path).write_bytes(data or b"")

    def _placed(self, path: str, key: str) -> None:
        """Stage a file written into ``tmp`` by another process, or remove it there if the published
        site has it unchanged (a swap links that one into ``tmp``)."""
        if not self._staged(path, key):
            (self.tmp / path).unlink(missing_ok=True)

    def _copy(self, file: RawFile) -> None:
        make_folder(self.tmp, self.folders, file.target)
        copy_file(file.source, self.tmp / file.target, file.link)

    def _staged(self, path: str, key: str) -> bool:
        """Whether the file is to be written (staged): the published site does not have it unchanged."""
        self.wanted[path] = key
        old = self.previous.get(path)
        if old is not None and old[0] == key and (not self.every_file or same_file(str(self.out / path), old)):
            return False
        self.staged[path] = None
        return True


def make_folder(root: Path, made: set[str], path: str) -> None:
    """Make the folder of ``path`` below ``root`` unless ``made`` has it (one mkdir per folder)."""
    folder = path.rpartition("/")[0]
    if folder not in made:
        (root / folder).mkdir(parents=True, exist_ok=True)
        made.update(_ancestors(folder))


def _ancestors(folder: str) -> list[str]:
    """``a/b/c`` -> ``a``, ``a/b``, ``a/b/c``."""
    parts = folder.split("/")
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def record_published(options: BuildOptions) -> None:
    """Describe the output folder as it is now in the manifest (after the dev server wrote in place),
    so the next build can still reuse its files instead of writing everything again."""
    out = options.out
    if not out.is_dir():
        return
    stored = stored_manifest(options.cache)
    known = stored.get("files") if stored.get("out") == str(out) else None
    known = known if isinstance(known, dict) else {}
    wanted = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            name = path.relative_to(out).as_posix()
            recorded = known.get(name)
            if isinstance(recorded, list | tuple) and len(recorded) == 3 and same_file(str(path), tuple(recorded)):
                wanted[name] = str(recorded[0])  # as the manifest says: a published gigabyte is not read again
            else:
                wanted[name] = file_digest(path)
    save_manifest(options.cache, out, wanted)


def _static_files(options: BuildOptions, theme: Theme) -> dict[str, bytes]:
    """The theme's static files with the archive's overrides, the generated Pygments stylesheet,
    and Temml's stylesheet and fonts (an override of the same name wins over those too)."""
    from ..render import highlight  # Pygments: imported only by builds that write (a kept site never does)
    from ..render.math import MathRenderer

    files: dict[str, bytes] = {"pygments.css": highlight.stylesheet().encode("utf-8")}
    files.update(MathRenderer.published_files(options.root))
    files.update({name: path.read_bytes() for name, path in theme.static_files().items()})
    if "style.css" in files:  # one stylesheet for pages to wait for: the code colours go at its end
        files["style.css"] += b"\n/* Code highlighting (also alone as pygments.css) */\n" + files["pygments.css"]
    return files


def write_content(folder: Path, path: str, data: bytes) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def write_in_place(out: Path, outputs: list[Output], published: dict[str, str]) -> int:
    """Replace the outputs whose bytes changed, each atomically; returns how many were written."""
    unstamp(out)
    written = 0
    for item in outputs:
        key = item.digest or digest(item.data)
        if published.get(item.path) == key and os.path.exists(out / item.path):
            continue
        write_atomic(out / item.path, item.data)
        published[item.path] = key
        written += 1
    return written


def remove_in_place(out: Path, paths: set[str], published: dict[str, str]) -> None:
    unstamp(out)
    for path in paths:
        (out / path).unlink(missing_ok=True)
        published.pop(path, None)


def sync_raw_files(
    options: BuildOptions, folders: list[str], raw: list[RawFile], generated: set[str] | frozenset[str] = frozenset()
) -> None:
    """Make the raw files published in ``folders`` of the site (entries' URLs, which are not always
    their paths in the archive) match ``raw``: copy changed ones, remove the others (but for the
    ``generated`` files the caller writes there, such as samples.zip)."""
    keep = {item.target for item in raw} | generated
    unstamp(options.out)
    for folder in folders:
        published = options.out / folder
        if not published.is_dir():
            continue
        for path in sorted(published.rglob("*"), reverse=True):
            rel = path.relative_to(options.out).as_posix()
            if path.is_file() and path.name != "index.html" and rel not in keep:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        if not any(published.iterdir()):  # an entry that moved or went: no page, no files
            published.rmdir()
    for item in raw:
        destination = options.out / item.target
        if not _copied_since_changed(item.source, destination):
            replace_file(item.source, destination, item.link)


def _copied_since_changed(source: str, destination: Path) -> bool:
    """Whether ``destination`` is ``source`` as it is now, by what ``stat`` says of both: the same
    file (a link), or a copy of its size made after its last change. (The dev server's rule for one
    entry's files; a full build compares digests.)"""
    try:
        there, here = os.stat(source), os.stat(destination)
    except OSError:
        return False
    if (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino):
        return True
    return there.st_size == here.st_size and here.st_mtime_ns > max(there.st_mtime_ns, there.st_ctime_ns)


def replace_file(source: str, destination: Path, link: bool = False) -> None:
    """Publish ``source`` at ``destination`` through a temporary file and a rename (``copy_file``)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    tmp = destination.with_name(f".{destination.name}.tmp{os.getpid()}-{threading.get_ident()}")
    try:
        copy_file(source, tmp, link)
        os.replace(tmp, destination)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def copy_static_file(options: BuildOptions, theme: Theme, relative: str) -> None:
    source = theme.static_file(relative)
    target = options.out / "static" / relative
    unstamp(options.out)
    if relative in ("style.css", "pygments.css"):  # the published style.css holds both
        files = _static_files(options, theme)
        for name in ("style.css", "pygments.css"):
            if name in files:
                write_atomic(options.out / "static" / name, files[name])
        return
    if source is not None:
        write_atomic(target, source.read_bytes())
    else:
        target.unlink(missing_ok=True)


def _remove_stale_temporaries(out: Path) -> None:
    """Folders left by builds that were killed before they could clean up."""
    for stale in out.parent.glob(f".{out.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


def swap_into_place(new: Path, out: Path) -> None:
    """Make ``new`` appear at ``out`` in one step (Linux: renameat2 RENAME_EXCHANGE); remove the old site."""
    if not out.exists():
        os.rename(new, out)
        return
    if not _exchange(new, out):
        old = out.with_name(f".{out.name}.tmp-old-{os.getpid()}")
        os.rename(out, old)
        os.rename(new, out)
        new = old
    shutil.rmtree(new, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths; False where the system cannot."""
    import ctypes  # here, not at the top: a build that writes nothing need not load it (12 ms)
    import ctypes.util

    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EXDEV):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))
