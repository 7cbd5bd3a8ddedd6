"""Content-addressed pickles under ``.cache/``: the render cache of entries.

Keys are hashes of everything that determines a value (file contents, the renderer's own source
code, library versions), never modification times. A value that cannot be read back is treated
as missing; writes go through a rename, so a killed build never leaves half a file.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pickle
import re
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import zstandard

# The modules whose code decides how an entry renders: a change to any of them invalidates the cache.
RENDERER_MODULES = (
    "render/content.py",
    "render/document.py",
    "render/fastlex.py",
    "render/regexstart.py",
    "render/highlight.py",
    "render/latex/*.py",
    "render/markdown.py",
    "render/rawhtml.py",
    "render/pictures.py",
    "render/bitmaps.py",
    "model.py",
    "errors.py",
)
LIBRARIES = ("pygments", "markdown-it-py", "mdit-py-plugins", "pillow")  # pillow: render/bitmaps.py's copies


@lru_cache(maxsize=1)
def renderer_fingerprint() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for pattern in RENDERER_MODULES:
        for path in sorted(here.glob(pattern)):
            digest.update(path.read_bytes())
    digest.update(library_versions(LIBRARIES).encode())
    return digest.hexdigest()


def library_versions(libraries: tuple[str, ...]) -> str:
    """``name=version`` of each installed library (``name=?`` when it is missing), for cache keys."""
    return " ".join(f"{library}={installed_version(library) or '?'}" for library in libraries)


def installed_version(library: str) -> str | None:
    """The installed version of a library (a distribution's name), as ``importlib.metadata`` says it."""
    version = _installed().get(_normal(library))
    if version is None:
        import importlib.metadata  # (an install without ``dist-info`` folders: its own search)

        try:
            version = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            return None
    return version


@lru_cache(maxsize=1)
def _installed() -> dict[str, str]:
    """The version of each distribution installed with a ``NAME-VERSION.dist-info`` folder (pip's, from
    wheels), the first on ``sys.path`` as Python's import finds it: what ``importlib.metadata.version``
    says, without its import (50 ms, on every build's start)."""
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            stem = name[: -len(".dist-info")]
            if name.endswith(".dist-info") and stem.count("-") == 1:
                library, version = stem.split("-")
                found.setdefault(_normal(library), version)
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@contextmanager
def lasting() -> Iterator[None]:
    """Make objects that live as long as the work does (the archive's snapshot, every entry's card, the
    manifest of the site): no garbage collection while they are made, and none of them walked by a
    later one (``gc.freeze``). Python's full collection walks every object it tracks, each time their
    number has grown by a quarter: loading ten thousand entries cost a fifth of a one-edit build in
    such walks, and they made a save in the dev server five times slower. Such objects are still freed
    as soon as nothing refers to them; only a reference cycle among them would outlive its use."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


BUCKETS = 64  # how many values ``PickleStore.put_buckets`` keeps a big dict in


def bucket_keys(name: str) -> list[str]:
    return [f"{name}-{number:02x}" for number in range(BUCKETS)]


def bucket_of(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:8], 16) % BUCKETS


def _bucketed(items: dict[str, Any]) -> list[dict[str, Any]]:
    buckets: list[dict[str, Any]] = [{} for _ in range(BUCKETS)]
    for key, value in items.items():
        buckets[bucket_of(key)][key] = value
    return buckets


# Pickles are kept compressed: an entry's pickle is mostly HTML (highlighted code above all), which
# Zstandard makes six times smaller at about 500 MB/s. At 10,000 entries the render cache is
# 2.0 GB without, about 330 MB with: what a maintainer's CI saves and restores on every run.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_LEVEL = 3


def packed(data: bytes) -> bytes:
    """A pickle as the store keeps it: a Zstandard frame (which records its size)."""
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data)


def unpacked(data: bytes) -> bytes:
    """The pickle a stored file holds: one written before pickles were compressed is read as it is."""
    return zstandard.ZstdDecompressor().decompress(data) if data.startswith(ZSTD_MAGIC) else data


# Values read ahead by the build host (``buildhost.py``), each with the bytes it was read from: its
# children inherit them, and each is handed once to a child's first ``get`` of a file that still holds
# those bytes (compared whole: the cache's files are keyed by content, not by time).
_READ_AHEAD: dict[Path, tuple[bytes, Any]] = {}
_reading_ahead = False


@contextmanager
def reading_ahead() -> Iterator[None]:
    """Every value read in here is kept for a later ``get`` (see ``_READ_AHEAD``); the last kept are
    dropped."""
    global _reading_ahead
    _READ_AHEAD.clear()
    _reading_ahead = True
    try:
        yield
    finally:
        _reading_ahead = False


class PickleStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        path = self._path(key)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            ahead = _READ_AHEAD.pop(path, None)
            if ahead is not None and ahead[0] == data:
                return ahead[1]
            value = pickle.loads(unpacked(data))
            if _reading_ahead:
                _READ_AHEAD[path] = (data, value)
            return value
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError, TypeError):
            return None  # corrupt or from an older layout (a class or module since renamed): render again
        except zstandard.ZstdError:
            return None

    def has(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def put(self, key: str, value: Any) -> None:
        self.put_pickled(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def put_pickled(self, key: str, data: bytes) -> None:
        """Store a value already pickled (a worker process pickles an entry once, for two uses)."""
        write_atomic(self._path(key), packed(data))

    def get_buckets(self, name: str, tag: object = None) -> dict[str, Any] | None:
        """The dict ``put_buckets`` kept under ``name`` with this ``tag``; None unless every bucket
        is there with it (a dict is whole or not used: its buckets are written together)."""
        items: dict[str, Any] = {}
        with lasting():
            for number in range(BUCKETS):
                part = self.bucket(name, number, tag)
                if part is None:
                    return None
                items.update(part)
        return items

    def bucket(self, name: str, number: int, tag: object = None) -> dict[str, Any] | None:
        """The items of one bucket of the dict kept under ``name`` (the one a key is in: ``bucket_of``),
        None unless it is there with ``tag``."""
        part = self.get(bucket_keys(name)[number])
        if not isinstance(part, dict) or part.get("tag") != tag or not isinstance(part.get("items"), dict):
            return None
        items: dict[str, Any] = part["items"]
        return items

    def put_buckets(self, name: str, items: dict[str, Any], last: dict[str, Any] | None, tag: object = None) -> None:
        """Keep ``items`` in ``BUCKETS`` values by their keys' digests, writing only the buckets that
        changed since ``last`` (as ``get_buckets`` gave it; None: write all): a key came or went, or
        a value is not ``last``'s very object. One changed item rewrites one bucket, not all."""
        now, then = _bucketed(items), _bucketed(last or {})
        for key, part, before in zip(bucket_keys(name), now, then, strict=True):
            if last is None or part.keys() != before.keys() or any(v is not before[k] for k, v in part.items()):
                self.put(key, {"tag": tag, "items": part})

    def update_buckets(self, name: str, put: dict[str, Any], drop: set[str], tag: object = None) -> None:
        """Put ``put`` in the dict kept under ``name`` (``put_buckets``) and take ``drop`` out of it,
        rewriting only the buckets those keys are in (none where the dict is not kept with ``tag``)."""
        for number in sorted({bucket_of(key) for key in (*put, *drop)}):
            part = self.bucket(name, number, tag)
            if part is None:
                continue
            items = {k: v for k, v in part.items() if k not in drop}
            items.update((k, v) for k, v in put.items() if bucket_of(k) == number)
            self.put(bucket_keys(name)[number], {"tag": tag, "items": items})

    def keep_only(self, keys: set[str]) -> None:
        """Delete every value but those of ``keys`` (values written meanwhile by another build may
        go too: a later build makes them again)."""
        for folder in self.folder.glob("??"):
            for path in folder.glob("*.pickle"):
                if path.name[: -len(".pickle")] not in keys:
                    path.unlink(missing_ok=True)


class JsonStore:
    """One JSON object in one file, for many small cached values; unreadable files are discarded."""

    def __init__(self, path: Path, label: str) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        self.warning: str | None = None
        self.dirty = False
        if not path.exists():
            return
        try:
            with lasting():  # the site's manifest: a few hundred thousand objects
                loaded = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(loaded, dict):
                raise ValueError("not a JSON object")
            self.data = loaded
        except (OSError, ValueError) as e:
            self.warning = f"{label} {path.name} is unreadable and was discarded ({e})"

    def get(self, key: str) -> Any | None:
        return self.data.get(key)

    def put(self, key: str, value: Any) -> None:
        self.data[key] = value
        self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_json(self.path, self.data)
            self.dirty = False


class SqliteStore:
    """Many small JSON values in one SQLite file, read a key at a time: a process holds only what it
    asked for (the math of ten thousand entries is hundreds of megabytes), and a forked worker opens
    its own connection. ``put`` keeps values in memory until ``save`` writes them in one
    transaction; a file that cannot be read as such a store is discarded, with ``warning``."""

    def __init__(self, path: Path, label: str) -> None:
        self.path, self.label = path, label
        self.pending: dict[str, Any] = {}
        self.warning: str | None = None
        self._connection: tuple[int, sqlite3.Connection | None] | None = None  # per process (fork)

    def get(self, key: str) -> Any | None:
        if key in self.pending:
            return self.pending[key]
        db = self._db()
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM store WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError) as e:
            self._discard(e)
            return None

    def put(self, key: str, value: Any) -> None:
        self.pending[key] = value

    def save(self) -> None:
        if not self.pending:
            return
        db = self._db(create=True)
        if db is None:
            return
        rows = [(key, json.dumps(value, sort_keys=True)) for key, value in self.pending.items()]
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO store (key, value) VALUES (?, ?)", rows)
            self.pending = {}
        except sqlite3.Error as e:
            self._discard(e)

    def _db(self, create: bool = False) -> sqlite3.Connection | None:
        """This process's connection (None while there is no file and ``create`` is false)."""
        pid = os.getpid()
        if self._connection is None or self._connection[0] != pid or (create and self._connection[1] is None):
            self._connection = (pid, self._open(create))
        return self._connection[1]

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.exists():
            return None
        for _ in range(2):  # an unreadable file is discarded, and a new one made in its place
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                db.execute("CREATE TABLE IF NOT EXISTS store (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                return db
            except sqlite3.Error as e:
                self._discard(e)
        return None

    def _discard(self, error: Exception) -> None:
        """An unreadable file: said once, removed, and started again empty."""
        if self.warning is None:
            self.warning = f"{self.label} {self.path.name} is unreadable and was discarded ({error})"
        if self._connection is not None and self._connection[1] is not None:
            self._connection[1].close()
        self._connection = (os.getpid(), None)
        self.path.unlink(missing_ok=True)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace the JSON object at ``path`` (as ``JsonStore`` reads it), atomically: the text of
    ``json.dumps(data, sort_keys=True)``, made and written a piece at a time (the manifest of a site
    of 100,000 files would be 27 MB of text, twice: as a string and as bytes)."""
    write_atomic(path, json_pieces(data))


JSON_PIECE = 5000  # items of a big object encoded at once


def json_pieces(data: dict[str, Any]) -> Iterator[bytes]:
    """``json.dumps(data, sort_keys=True)``, encoded, in pieces: a few thousand items at a time, each
    piece by the C encoder (a big object's items, or the top's: a page cache has 40,000 keys there)."""
    yield b"{"
    names = sorted(data)
    start = 0
    while start < len(names):
        value = data[names[start]]
        if isinstance(value, dict) and len(value) > JSON_PIECE:
            inner = sorted(value)
            yield (b", " if start else b"") + json.dumps(names[start]).encode() + b": {"
            for at in range(0, len(inner), JSON_PIECE):
                yield (b", " if at else b"") + _items(value, inner[at : at + JSON_PIECE])
            yield b"}"
            start += 1
            continue
        end = start + 1
        while end < len(names) and end - start < JSON_PIECE:
            value = data[names[end]]
            if isinstance(value, dict) and len(value) > JSON_PIECE:
                break
            end += 1
        yield (b", " if start else b"") + _items(data, names[start:end])
        start = end
    yield b"}"


def _items(data: dict[str, Any], names: list[str]) -> bytes:
    """The items ``names`` of ``data`` as ``json.dumps`` writes them inside an object's braces."""
    return json.dumps({name: data[name] for name in names}, sort_keys=True)[1:-1].encode("utf-8")


def write_atomic(path: Path, data: bytes | Iterator[bytes], mode: int | None = None) -> None:
    """Write through a temporary file and a rename, so readers never see half a file (``data``: its
    bytes, or its pieces in order). (The dev server's threads may write one file at once: each writes
    its own temporary file.)"""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    try:
        with tmp.open("wb") as file:
            file.writelines([data] if isinstance(data, bytes) else data)
        if mode is not None:
            tmp.chmod(mode)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)  # a full disk keeps no half file
        raise OSError(error.errno, error.strerror, str(path)) from error
    except BaseException:  # nor does a piece that could not be made
        tmp.unlink(missing_ok=True)
        raise
