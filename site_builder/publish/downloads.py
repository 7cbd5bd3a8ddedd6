"""Files the site makes for readers to download: each entry's samples as one ``samples.zip``, made
again only when its samples changed (``archives_soon``; the rest is pure)."""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import zipfile
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path

from ..model import EntrySource
from ..render.workers import soon
from ..store import JsonStore, write_json
from .output import SiteWriter, digest
from .outputs import Output

SAMPLES_ZIP = "samples.zip"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold: the same samples make the same bytes
ZIPS_AWAY = 200  # zips to make: from this many, a render worker makes them while the pages are rendered


def archives_soon(
    writer: SiteWriter, sources: list[EntrySource], cache: Path, executor: Executor | None
) -> Callable[[], None]:
    """Each entry's ``samples.zip`` into ``writer``, when called; made again only when its samples
    changed or the published site lacks it (``downloads.json`` in ``cache``: the digest of the zip of
    each set of files), by ``executor`` (a render worker) meanwhile when there are ``ZIPS_AWAY`` to make."""
    store = JsonStore(cache / "downloads.json", "downloads cache")
    rows: list[tuple[str, str, str | None]] = []  # path, key, and the digest of the zip kept
    missing: list[dict[str, str]] = []
    for source in sources:
        if files := sample_files(source):
            path, key = sample_archive_path(source), files_key(files)
            known = store.get(key)
            kept = known if isinstance(known, str) and writer.has(path, known) else None
            rows.append((path, key, kept))
            if kept is None:
                missing.append(files)
    made = soon(executor if len(missing) >= ZIPS_AWAY else None, zips_of, missing)

    def place() -> None:
        zips, used = iter(made()), {}
        for path, key, kept in rows:
            if kept is None:
                data = next(zips)
                used[key] = digest(data)
                writer.add([Output(path, data, digest=used[key])])
            else:
                used[key] = kept
                writer.add([Output(path, b"", kept=kept)])
        if used != store.data:
            write_json(store.path, used)

    return place


def sample_archives(sources: list[EntrySource]) -> list[Output]:
    """``<entry>/samples.zip`` for every entry with samples."""
    return [Output(sample_archive_path(s), data) for s in sources if (data := sample_archive(s))]


def sample_archive_paths(sources: list[EntrySource]) -> list[str]:
    """Where ``sample_archives`` puts each zip, without making them (every sample has a file)."""
    return [sample_archive_path(s) for s in sources if s.samples]


def sample_archive_path(source: EntrySource) -> str:
    return f"{source.slug or source.path}/{SAMPLES_ZIP}"


def sample_archive(source: EntrySource) -> bytes:
    """The entry's sample files (inputs, answers, interaction transcripts) as a zip, by their own
    names (``1.in``, ``1.ans``); b"" when it has none."""
    return zip_of(sample_files(source))


def sample_files(source: EntrySource) -> dict[str, str]:
    """What ``sample_archive`` holds: each file's text by its name."""
    files: dict[str, str] = {}
    for sample in source.samples:
        pairs = [(sample.transcript_file, sample.transcript)]
        if sample.line:  # a statement's example: no file of its own
            pairs += [(f"{sample.name}.in", sample.input), (f"{sample.name}.ans", sample.answer)]
        elif sample.runnable:
            pairs += [(sample.input_file, sample.input), (sample.answer_file, sample.answer)]
        # (``posixpath``, not ``PurePosixPath``: this runs for every sample of every entry on every build)
        files.update({posixpath.basename(name): text for name, text in pairs if name and text is not None})
    return files


def files_key(files: dict[str, str]) -> str:
    """Equal for equal files: the zip of equal files is the same zip (see ``zip_of``)."""
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()


def zips_of(sets: list[dict[str, str]]) -> list[bytes]:
    """``zip_of`` each set of files (a cold build's thousand take a fifth of a second)."""
    return [zip_of(files) for files in sets]


def zip_of(files: dict[str, str]) -> bytes:
    """The files as a zip, the same bytes for the same files (no times, fixed permissions)."""
    if not files:
        return b""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name].encode("utf-8"))
    return buffer.getvalue()
