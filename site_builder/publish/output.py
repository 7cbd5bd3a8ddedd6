"""Writing the site: the only module that writes into the output folder.

A full build is written into a temporary sibling folder and swapped in atomically; the dev
server's incremental updates replace single files, each through a rename, so a reader never
sees a half-written file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BuildError
from ..source.config import BuildOptions
from ..source.theme import Theme
from ..store import JsonStore, write_atomic, write_json

if TYPE_CHECKING:
    from .pages import Output


@dataclass(frozen=True, slots=True)
class RawFile:
    """An archive file published byte-identical at ``target``."""

    source: str  # its path (a plain string: a build plans 10,000 of them)
    target: str
    digest: str


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


Record = tuple[str, dict[str, Any]]  # the digest of a build's inputs, and the summary it reported


def write_site(
    options: BuildOptions, theme: Theme, outputs: list[Output], raw: list[RawFile], record: Record | None = None
) -> tuple[dict[str, str], int]:
    """Publish the site at ``options.out`` atomically; returns the digest of every output, by path,
    and how many files were written (the others are the last build's, linked).

    Everything is written into a temporary sibling folder that is swapped in when complete. Files
    whose bytes are unchanged since the last build are hard-linked from the current site (we never
    write into a published file, we only replace it), and a build that changes nothing writes
    nothing at all. The manifest of the last build, with the size and time of every file it wrote,
    lives in the cache; a file that no longer matches it is written again. ``record`` is kept
    in it too, for ``current_summary``.
    """
    out = options.out
    manifest = options.cache / "published.json"
    pages = {o.path: o.kept or o.digest or digest(o.data) for o in outputs}
    wanted = pages | {r.target: r.digest for r in raw}
    static = _static_files(options, theme)
    wanted |= {f"static/{name}": digest(data) for name, data in static.items()}
    previous = _trusted_manifest(JsonStore(manifest, "manifest"), out)
    if previous is not None and {p: d for p, (d, _, _) in previous.items()} == wanted:
        _save_manifest(manifest, out, wanted, record, pages, previous)
        return pages, 0
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    reuse = previous or {}

    def place(path: str, data: bytes | None = None, source: str | None = None, kept: bool = False) -> bool:
        """Put the file in place; False: linked from the published site, unchanged."""
        target = tmp / path
        target.parent.mkdir(parents=True, exist_ok=True)
        old = reuse.get(path)
        if old is not None and old[0] == wanted[path] and _same_file(str(out / path), old):
            os.link(out / path, target)
            return False
        if kept:
            raise OSError(errno.ESTALE, f"{path} changed while the site was being built; build again")
        if source is not None:
            shutil.copyfile(source, target)
        else:
            target.write_bytes(data or b"")
        return True

    try:
        tmp.chmod(0o755)
        written = sum(place(item.path, data=item.data, kept=bool(item.kept)) for item in outputs)
        written += sum(place(f"static/{name}", data=data) for name, data in static.items())
        written += sum(place(file.target, source=file.source) for file in raw)
        swap_into_place(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BuildError(options.display(out), None, f"cannot write the site: {e}") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _save_manifest(manifest, out, wanted, record, pages)
    return pages, written


def current_summary(options: BuildOptions, inputs: str) -> dict[str, Any] | None:
    """The summary of the published build, if it was built from exactly ``inputs`` and its files are
    still as it wrote them (sizes and times); None otherwise."""
    current = current_pages(options, inputs)
    return current[1] if current is not None else None


def current_pages(options: BuildOptions, inputs: str) -> tuple[dict[str, str], dict[str, Any]] | None:
    """Like ``current_summary``, with the digest of every generated file, by path."""
    store = JsonStore(options.cache / "published.json", "manifest")
    summary, pages = store.get("summary"), store.get("pages")
    if store.get("inputs") != inputs or not isinstance(summary, dict) or not isinstance(pages, dict):
        return None
    if _trusted_manifest(store, options.out) is None:
        return None
    return pages, summary


def published_pages(options: BuildOptions) -> dict[str, str]:
    """The digest of every file of the published site, by path, while its files all have the size
    and time the manifest recorded with those digests (else nothing): pages a build may keep."""
    trusted = _trusted_manifest(JsonStore(options.cache / "published.json", "manifest"), options.out)
    return {path: value[0] for path, value in trusted.items()} if trusted else {}


def record_published(options: BuildOptions) -> None:
    """Describe the output folder as it is now in the manifest (after the dev server wrote in place),
    so the next build can still reuse its files instead of writing everything again."""
    out = options.out
    if not out.is_dir():
        return
    wanted = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            wanted[path.relative_to(out).as_posix()] = digest(path.read_bytes())
    _save_manifest(options.cache / "published.json", out, wanted)


def _static_files(options: BuildOptions, theme: Theme) -> dict[str, bytes]:
    """The theme's static files with the archive's overrides, the generated Pygments stylesheet,
    and Temml's stylesheet and fonts (an override of the same name wins over those too)."""
    from ..render import highlight  # Pygments: imported only by builds that write (a kept site never does)
    from ..render.math import MathRenderer

    files: dict[str, bytes] = {"pygments.css": highlight.stylesheet().encode("utf-8")}
    files.update(MathRenderer.published_files(options.root))
    files.update({name: path.read_bytes() for name, path in theme.static_files().items()})
    return files


def _same_file(path: str, recorded: tuple[str, int, int]) -> bool:
    """Whether the file still has the size and time recorded when it was written (a plain string
    path: this runs over every published file)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns) == (recorded[1], recorded[2])


def _trusted_manifest(store: JsonStore, out: Path) -> dict[str, tuple[str, int, int]] | None:
    """The last build's manifest, if it describes this output folder."""
    if store.get("out") != str(out) or not out.is_dir():
        return None
    files = store.get("files")
    if not isinstance(files, dict):
        return None
    manifest = {p: (v[0], v[1], v[2]) for p, v in files.items() if isinstance(v, list) and len(v) == 3}
    base = str(out) + os.sep
    if not all(_same_file(base + name, recorded) for name, recorded in manifest.items()):
        return None  # someone changed the published site: write everything again
    return manifest


def _save_manifest(
    path: Path,
    out: Path,
    wanted: dict[str, str],
    record: Record | None = None,
    pages: dict[str, str] | None = None,
    known: dict[str, tuple[str, int, int]] | None = None,
) -> None:
    """Describe the published folder (``known``: a manifest just checked against it, reused)."""
    if known is not None:
        files = {name: list(value) for name, value in known.items()}
    else:
        files = {}
        for name, key in wanted.items():
            info = (out / name).stat()
            files[name] = [key, info.st_size, info.st_mtime_ns]
    data: dict[str, Any] = {"out": str(out), "files": files}
    if record is not None and pages is not None:
        data.update({"inputs": record[0], "summary": record[1], "pages": pages})
    write_json(path, data)  # the last manifest need not be read: all of it is replaced


def write_content(folder: Path, path: str, data: bytes) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def write_in_place(out: Path, outputs: list[Output], published: dict[str, str]) -> int:
    """Replace the outputs whose bytes changed, each atomically; returns how many were written."""
    written = 0
    for item in outputs:
        key = item.digest or digest(item.data)
        if published.get(item.path) == key:
            continue
        write_atomic(out / item.path, item.data)
        published[item.path] = key
        written += 1
    return written


def remove_in_place(out: Path, paths: set[str], published: dict[str, str]) -> None:
    for path in paths:
        (out / path).unlink(missing_ok=True)
        published.pop(path, None)


def sync_raw_files(options: BuildOptions, folders: list[str], raw: list[RawFile]) -> None:
    """Make the raw files published in ``folders`` of the site (entries' URLs, which are not always
    their paths in the archive) match ``raw``: copy changed ones, remove the others."""
    keep = {item.target for item in raw}
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
        data = Path(item.source).read_bytes()
        if not destination.is_file() or destination.read_bytes() != data:
            write_atomic(destination, data)


def copy_static_file(options: BuildOptions, theme: Theme, relative: str) -> None:
    source = theme.static_file(relative)
    target = options.out / "static" / relative
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
