"""Full-text search: a Pagefind index of the entries, built in memory and published as outputs.

Pagefind splits its index into small fragments that the browser fetches per query, so a query
stays small for a 10,000-entry archive; its binary ships on PyPI (``pagefind-bin``). Each entry
is one record of plain text (heading, tags, source, summary, statement and write-up, math as its
TeX source), sent to the Pagefind binary's service over a pipe. The index is made in shards of
200 to 600 entries, which the browser merges (``mergeIndex``): each is cached by its records' keys
(see ``records``), so a rebuild runs Pagefind only on the shards whose entries changed, and no more
than one shard's worth of Pagefind is in memory at once.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..model import Entry
from ..source.config import SiteConfig
from ..store import PickleStore, library_versions
from .catalog import RESERVED_TRACKS, track_title
from .outputs import Output
from .records import Listed, Record, Records, kept_key, listed

log = logging.getLogger(__name__)
BUNDLE = "pagefind"
# The Pagefind releases whose service protocol this module was tested with (``tests/test_versions.py``;
# the pin in pyproject.toml): it speaks Pagefind's internal service messages, not a public API.
TESTED_PAGEFIND = ("1.5",)


@dataclass(frozen=True, slots=True)
class SearchIndex:
    outputs: tuple[Output, ...]
    problem: str | None = None  # why there is no index, when there is none
    keys: tuple[str, ...] = ()  # its shards' keys in the cache, and those of their kept records


# The index comes in shards of 2/3 to 2 times this many entries (see ``shard_ends``): a shard is
# indexed by one Pagefind process (about 200 MB, and 4-5 ms of CPU an entry), and an edited entry
# costs its shard's indexing, not the site's.
SHARD_ENTRIES = 300
SHARDS = "shards.json"  # in the first shard's folder: the folders of the others, for ``mergeIndex``
# The quick builds' index (``quick.py``): the entries they changed since the full build, whose records
# in their shards are stale (``shards_file``). Indexing it costs its few entries, not a shard's hundreds.
FRESH = f"{BUNDLE}/part-fresh/"
FRESH_NAME = "\0fresh"  # its name in the cache, where no URL can be
# What a shard other than the first needs besides its entry file and metadata (``_is_data``): the
# browser searches it with the first shard's program.
SHARD_FOLDERS = ("index/", "fragment/", "filter/")


def pagefind_available() -> bool:
    return importlib.util.find_spec("pagefind_bin") is not None


class SearchFeed:
    """A build's search index, built while its entries are rendered.

    Entries are added as they come. They are cut into shards in the order of their paths (see
    ``shard_ends``), and each shard goes to Pagefind in the background as soon as all of its entries
    have come, one shard at a time; a shard whose records' keys are those of a cached shard is taken
    from the cache. A shard that needs a whole entry for a record (a card whose record was not kept)
    waits for ``finish``, when ``whole`` may render. ``finish`` gives the whole index once every
    shard is done.
    """

    def __init__(
        self,
        config: SiteConfig,
        cache: PickleStore | None,
        paths: Iterable[str],
        keys: Mapping[str, str] | None = None,
        whole: Callable[[Entry], Entry] | None = None,
    ) -> None:
        """``keys``: the render key of each entry's content, by path, as the build knows them (see
        ``records.listed``); ``whole``: the whole entry of a card."""
        self.config, self.cache = config, cache
        self.keys = keys if keys is not None else {}  # the very mapping: the build fills it as it renders
        self.records = Records(cache, whole)
        self.order = sorted(paths)
        self.came: dict[str, Listed | None] = {}  # by path, until taken; None: the entry is in no track of the site
        self.taken = 0  # how many of ``order`` are in ``shard`` or in a shard sent
        self.shard: list[Listed] = []
        self.shards: list[Future[Shard] | list[Listed]] = []  # a list: a shard waiting for ``finish``
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")
        self.stopped = threading.Event()
        self.running: list[PagefindSession] = []

    def add(self, entry: Entry) -> None:
        reserved = entry.track in RESERVED_TRACKS
        title = track_title(self.config, entry.track)
        self.came[entry.path] = None if reserved else listed(entry, title, self.keys.get(entry.path))
        while self.taken < len(self.order) and self.order[self.taken] in self.came:
            self._take(self.came.pop(self.order[self.taken]))

    def finish(self) -> Future[SearchIndex]:
        """The index of every entry added, built in the background."""
        for path in self.order[self.taken :]:
            if path in self.came:  # after an entry that never came
                self._take(self.came.pop(path))
        if self.shard:
            self._send()
        shards = [s if isinstance(s, Future) else self._submit(s, self.records.made(s)) for s in self.shards]
        future = self.pool.submit(_assembled, shards)  # after every shard: one thread runs them in turn
        self.pool.shutdown(wait=False)  # the thread ends when the index is built
        return future

    def abandon(self) -> None:
        """Stop Pagefind: the build will not finish this index."""
        self.stopped.set()
        for session in list(self.running):
            session.abandon()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _take(self, item: Listed | None) -> None:
        self.taken += 1
        if item is None:
            return
        self.shard.append(item)
        if shard_ends(item, len(self.shard)):
            self._send()

    def _send(self) -> None:
        shard, self.shard = self.shard, []
        if not pagefind_available():  # the index fails at once: no record to make
            self.shards.append(self._submit(shard, []))
            return
        cached = cached_shard(shard, self.cache)
        if cached is not None:
            done: Future[Shard] = Future()
            done.set_result(cached)
            self.shards.append(done)
        elif (records := self.records.at_hand(shard)) is not None:
            self.shards.append(self._submit(shard, records))
        else:
            self.shards.append(shard)

    def _submit(self, shard: list[Listed], records: list[Record]) -> Future[Shard]:
        return self.pool.submit(self._index, shard, records)

    def _index(self, shard: list[Listed], records: list[Record]) -> Shard:
        if self.stopped.is_set():
            raise RuntimeError("the build stopped")
        return indexed(shard, records, self.records, self.running.append)


@dataclass(frozen=True, slots=True)
class Shard:
    """One shard of the index: its first record's URL, the bundle's files, and its key in the cache."""

    first: str
    files: tuple[tuple[str, bytes], ...]
    key: str


def shard_ends(item: Listed, size: int) -> bool:
    """Whether a shard of ``size`` entries ends after this one. Mostly by its URL alone (about one
    URL in SHARD_ENTRIES), so that adding or removing an entry changes its shard and moves no
    boundary beyond the next one; but no shard is cut before 2/3 of SHARD_ENTRIES, and every shard
    is cut at twice it: cut by URLs alone, shards of 10,000 entries ranged from 2 to 1,629 entries,
    and an edit in the largest waited 7 s for Pagefind."""
    if size >= 2 * SHARD_ENTRIES:
        return True
    if size < 2 * SHARD_ENTRIES // 3:
        return False
    digest = hashlib.sha256(item.url.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % SHARD_ENTRIES == 0


def shards_of(listing: list[Listed]) -> list[list[Listed]]:
    """The entries, in order, cut after each entry that ends a shard."""
    shards: list[list[Listed]] = [[]]
    for item in listing:
        shards[-1].append(item)
        if shard_ends(item, len(shards[-1])):
            shards.append([])
    return [shard for shard in shards if shard]


def build_search_index(
    listing: list[Listed],
    cache: PickleStore | None = None,
    background: Callable[[PagefindSession], None] | None = None,
    whole: Callable[[Entry], Entry] | None = None,
) -> SearchIndex:
    """The Pagefind bundle for these entries, one shard at a time (each cached by its records' keys;
    ``whole``: the whole entry of a card, see ``records.Records``).

    ``background``: run Pagefind so that it yields the CPU to whatever else runs (the dev server's
    refresh, behind the author's next save), and hand each session to this, so that it can be
    abandoned (``PagefindSession.abandon``) from another thread."""
    records = Records(cache, whole)
    try:
        shards = []
        for shard in shards_of(listing):
            cached = cached_shard(shard, cache)
            made = cached or indexed(shard, records.made(shard), records, background, background is not None)
            shards.append(made)
        return _joined(shards)
    except Exception as e:
        return _failed(e)


def shard_key(shard: list[Listed], fresh: bool = False) -> str:
    """The cache's name of a shard's bundle (``fresh``: of the fresh index): its entries' URLs and
    records' keys, and Pagefind's version."""
    payload = "\n".join(f"{item.url}\0{item.key}" for item in shard)
    versions = library_versions(("pagefind-bin",))
    digest = hashlib.sha256(f"{versions}\n{payload}".encode("utf-8", "surrogateescape")).hexdigest()
    return ("search-fresh-v1-" if fresh else "search-v7-") + digest


def cached_shard(shard: list[Listed], cache: PickleStore | None, fresh: bool = False) -> Shard | None:
    """The shard's bundle as the cache keeps it under its records' keys, if it does."""
    if not pagefind_available():  # ``indexed`` says so
        return None
    key = shard_key(shard, fresh)
    cached = cache.get(key) if cache is not None else None
    if isinstance(cached, list):  # plain (path, bytes) pairs: no class of ours in the cache
        return Shard(FRESH_NAME if fresh else shard[0].url, tuple(cached), key)
    return None


def indexed(
    shard: list[Listed],
    records: list[Record],
    kept: Records,
    started: Callable[[PagefindSession], None] | None = None,
    background: bool = False,
    fresh: bool = False,
) -> Shard:
    """One shard's bundle, made by Pagefind from its records (``started`` is given its session first;
    ``background``: at the lowest CPU priority; ``fresh``: the fresh index), and cached with the
    records (``kept``)."""
    if not pagefind_available():
        raise _Missing()
    session = PagefindSession(background)
    if started is not None:
        started(session)
    try:
        for record in records:
            session.add(record, fresh)
        files = session.files()
    finally:
        session.close()
    key = shard_key(shard, fresh)
    first = FRESH_NAME if fresh else shard[0].url
    if kept.cache is not None:
        kept.cache.put(key, files)
        kept.keep(shard, records, first)
    return Shard(first, tuple(files), key)


class _Missing(Exception):
    """Pagefind is not installed."""


def _failed(error: Exception) -> SearchIndex:
    if isinstance(error, _Missing):
        return SearchIndex((), "Pagefind is not installed (pip install pagefind-bin): the site has no search")
    log.debug("pagefind failed", exc_info=error)
    return SearchIndex((), f"Pagefind failed, the site has no search: {error}")


def _assembled(shards: list[Future[Shard]]) -> SearchIndex:
    try:
        return _joined([shard.result() for shard in shards])
    except Exception as e:
        return _failed(e)


def _joined(shards: list[Shard]) -> SearchIndex:
    """The bundle of every shard: the first in ``pagefind/``, with the list of the others
    (``pagefind/shards.json``), each of them in a folder named by its first record, data only."""
    if not shards:
        return SearchIndex(())
    outputs, folders = [], []
    for number, shard in enumerate(shards):
        folder, files = shard_outputs(shard, number == 0)
        outputs += files
        if number:
            folders.append(folder)
    outputs.append(shards_file(folders))
    return SearchIndex(tuple(outputs), keys=tuple(k for s in shards for k in (s.key, kept_key(s.first))))


def shard_outputs(shard: Shard, first: bool) -> tuple[str, list[Output]]:
    """A shard's folder in the site (ending in "/") and its files there: the first shard's, all of them
    in ``pagefind/``; another's, its data alone, in a folder named by its first record (the fresh
    index's, ``FRESH``)."""
    if first:
        return f"{BUNDLE}/", [Output(f"{BUNDLE}/{path}", data) for path, data in shard.files]
    folder = FRESH if shard.first == FRESH_NAME else shard_folder(shard.first)
    return folder, [Output(f"{folder}{path}", data) for path, data in shard.files if _is_data(path)]


def shard_folder(first: str) -> str:
    """The folder in the site of the shard (not the first) whose first record has this URL."""
    return f"{BUNDLE}/part-{hashlib.sha256(first.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}/"


def shards_file(folders: list[str], stale: Sequence[str] = ()) -> Output:
    """``pagefind/shards.json``: the folders of the shards the browser merges into the first, and the
    URLs of the records there that are stale, the entries of the fresh index (``FRESH``, the last
    folder then): a result with one of these URLs counts only from the fresh index, whose records
    say ``fresh`` (``static/site.js``)."""
    shards = {"shards": folders, "stale": ["/" + url for url in stale]}
    return Output(f"{BUNDLE}/{SHARDS}", json.dumps(shards).encode())


def _is_data(path: str) -> bool:
    """A file of a shard's data, as opposed to Pagefind's program and user interface."""
    return path == "pagefind-entry.json" or path.endswith(".pf_meta") or path.startswith(SHARD_FOLDERS)


class PagefindSession:
    """One index built by the Pagefind binary in its service mode: records go in over a pipe as they
    come, the bundle's files come back over it. No file is written.

    (Pagefind's own Python API waits 0.1 s for every response it reads: 100 s for 1,000 entries.
    The service speaks base64-encoded JSON messages, each followed by a comma, on stdin and stdout.)
    """

    def __init__(self, background: bool = False) -> None:
        """``background``: at the lowest CPU priority (with ``nice``, where there is one), so that it
        takes only what no other process wants."""
        from pagefind_bin import get_executable  # type: ignore[import-untyped]

        nice = shutil.which("nice") if background else None
        self.process = subprocess.Popen(
            [*([nice, "-n", "19"] if nice else []), str(get_executable()), "--service"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: dict[int, dict[str, Any]] = {}
        self.arrived = threading.Condition()
        self.sent = 0
        self.reader = threading.Thread(target=self._read, name="pagefind-replies", daemon=True)
        self.reader.start()
        config = {"keep_index_url": True, "force_language": "en"}
        self.index = int(self._wait(self._send({"type": "NewIndex", "config": config}))["index_id"])

    def add(self, record: Record, fresh: bool = False) -> None:
        """Index the record (``fresh``: in the fresh index, whose records say so in their metadata)."""
        meta = {"title": record.title, "editorial": str(len(_content(record)) + 1)}  # where the write-up starts
        self._send(
            {
                "type": "AddRecord",
                "index_id": self.index,
                "url": "/" + record.url,
                "content": _content(record) + _editorial(record),
                "language": "en",
                "meta": {**meta, "fresh": "1"} if fresh else meta,
            }
        )

    def files(self) -> list[tuple[str, bytes]]:
        """The bundle, once every record sent is indexed; raises RuntimeError if one was refused."""
        added = range(1, self.sent)
        with self.arrived:  # every record indexed (answered) before the bundle is asked for
            self.arrived.wait_for(lambda: all(n in self.replies for n in added) or not self.reader.is_alive(), 600)
        if not all(n in self.replies for n in added):
            raise RuntimeError("the Pagefind service stopped before it indexed every record")
        problems = [self.replies[n]["message"] for n in added if self.replies[n].get("type") == "Error"]
        if problems:
            raise RuntimeError(f"Pagefind refused {len(problems)} record(s): {problems[0]}")
        reply = self._wait(self._send({"type": "GetFiles", "index_id": self.index}))
        return sorted((f["path"], base64.b64decode(f["content"])) for f in reply["files"])

    def abandon(self) -> None:
        """Stop Pagefind now (from any thread): whoever feeds or waits on it gets a RuntimeError."""
        if self.process.poll() is None:
            self.process.kill()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.reader.join(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def _send(self, payload: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        number, self.sent = self.sent, self.sent + 1
        message = json.dumps({"message_id": number, "payload": payload}).encode()
        try:
            self.process.stdin.write(base64.b64encode(message) + b",")
            self.process.stdin.flush()
        except OSError as e:
            raise RuntimeError(f"the Pagefind service stopped ({e})") from e
        return number

    def _wait(self, number: int) -> dict[str, Any]:
        with self.arrived:
            self.arrived.wait_for(lambda: number in self.replies or not self.reader.is_alive(), timeout=600)
        reply = self.replies.get(number)
        if reply is None:
            raise RuntimeError("the Pagefind service stopped without an answer")
        if reply.get("type") == "Error":
            raise RuntimeError(str(reply.get("message")))
        return reply

    def _read(self) -> None:
        assert self.process.stdout is not None
        pending: list[bytes] = []  # the start of a message (the bundle's is megabytes long)
        stdout = self.process.stdout.fileno()
        try:
            while chunk := os.read(stdout, 1 << 20):
                if b"," not in chunk:
                    pending.append(chunk)
                    continue
                *messages, rest = (b"".join(pending) + chunk).split(b",")
                pending = [rest]
                replies = [json.loads(base64.b64decode(m)) for m in messages if m]
                with self.arrived:
                    self.replies.update((r["message_id"], r["payload"]) for r in replies)
                    self.arrived.notify_all()
        finally:
            with self.arrived:
                self.arrived.notify_all()  # the service ended: wake whoever waits


def _editorial(record: Record) -> str:
    """The write-up, after the rest of the record's content (see ``_content``)."""
    return " " + _content(Record(record.url, "", record.editorial)) if record.editorial else ""


def _content(record: Record) -> str:
    """The record as Pagefind would read it from a page: its heading, then one sentence per part.
    (The heading's middle dot becomes a colon: an excerpt may start at any word, and one starting
    "· B. River Ferry" reads as if something were cut off.)"""
    parts = [record.title.replace(" \u00b7 ", ": "), *(p.strip() for p in record.text.split("\n"))]
    return " ".join(p if p.endswith((".", "!", "?", ":")) else p + "." for p in parts if p)
