"""Full-text search: a Pagefind index of the entries, built in memory and published as outputs.

Pagefind splits its index into small fragments that the browser fetches per query, so a query
stays small for a 10,000-entry archive; its binary ships on PyPI (``pagefind-bin``). Each entry
is one record of plain text (heading, tags, source, summary, statement and write-up, math as its
TeX source), sent to the Pagefind binary's service over a pipe. The index is made in shards of
about 500 entries, which the browser merges (``mergeIndex``): each is cached by a digest of
its records, so a rebuild runs Pagefind only on the shards whose searchable text changed, and no
more than one shard's worth of Pagefind is in memory at once.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..model import Entry, Site
from ..source.config import SiteConfig
from ..store import PickleStore
from .catalog import RESERVED_TRACKS, track_title
from .outputs import Output, entry_url
from .pages import heading

log = logging.getLogger(__name__)
BUNDLE = "pagefind"
# The Pagefind releases whose service protocol this module was tested with (``tests/test_versions.py``;
# the pin in pyproject.toml): it speaks Pagefind's internal service messages, not a public API.
TESTED_PAGEFIND = ("1.5",)


@dataclass(frozen=True, slots=True)
class Record:
    url: str  # relative to the site root, e.g. "icpc/2022/X-quartets/index.html"
    title: str
    text: str  # what a reader may see before solving: tags, source, authors, summary, statement
    editorial: str = ""  # the write-up: searched, but a result says when only it matched


# Names readers search for that a tag spells out, or the other way round: each group of words is
# indexed whole wherever a tag holds one of them ("kmp" finds a "Knuth-Morris-Pratt" tag).
TAG_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("kmp", "knuth-morris-pratt", "prefix function"),
    ("crt", "chinese remainder theorem"),
    ("fft", "fast fourier transform", "ntt"),
    ("dp", "dynamic programming"),
    ("bfs", "breadth-first search"),
    ("dfs", "depth-first search"),
    ("lca", "lowest common ancestor"),
    ("mst", "minimum spanning tree"),
    ("scc", "strongly connected components"),
    ("gcd", "greatest common divisor"),
    ("2-sat", "2sat", "two satisfiability"),
    ("dsu", "union-find", "union find", "disjoint set union"),
    ("bit", "fenwick tree", "binary indexed tree"),
    ("segment tree", "segtree"),
    ("suffix array", "sa"),
    ("geometry", "computational geometry"),
    ("max flow", "maxflow", "network flow", "flow"),
)


@dataclass(frozen=True, slots=True)
class SearchIndex:
    outputs: tuple[Output, ...]
    problem: str | None = None  # why there is no index, when there is none
    keys: tuple[str, ...] = ()  # its shards' keys in the cache


# The index comes in shards of about this many entries: a shard is indexed by one Pagefind process
# (about 200 MB and 3 s of CPU for 500 entries), and an edited entry costs its shard's indexing, not
# the site's.
SHARD_ENTRIES = 500
SHARDS = "shards.json"  # in the first shard's folder: the folders of the others, for ``mergeIndex``
# What a shard other than the first needs besides its entry file and metadata (``_is_data``): the
# browser searches it with the first shard's program.
SHARD_FOLDERS = ("index/", "fragment/", "filter/")


def pagefind_available() -> bool:
    return importlib.util.find_spec("pagefind_bin") is not None


def search_records(site: Site) -> list[Record]:
    """The site's records, in the order of their entries' paths (the order Pagefind is fed in:
    the same records always make the same bundle)."""
    titles = {track.id: track.title for track in site.tracks}
    return [search_record(e, titles[e.track]) for e in sorted(site.entries, key=lambda e: e.path)]


def search_record(entry: Entry, track_title: str) -> Record:
    """The entry's heading (track, year, label and title), then its searchable text: the words
    the page shows, each once (a summary taken from the write-up is in the write-up's text), with
    the names its tags go by; the write-up apart (``Entry.search_text`` has it after a form feed)."""
    summary = entry.summary_text if entry.summary_html else None
    statement, _, editorial = entry.search_text.partition("\f")
    people = sorted({name for _, names in entry.credits for name in names})
    parts = [" ".join(entry.tags), tag_synonyms(entry.tags), entry.source or "", ", ".join(people), summary or ""]
    parts.append(statement)
    return Record(entry_url(entry), heading(track_title, entry), "\n".join(p for p in parts if p), editorial.strip())


@functools.lru_cache(maxsize=4096)  # entries share their tags: 10,000 entries, a few hundred sets of tags
def tag_synonyms(tags: tuple[str, ...]) -> str:
    """The other names of these tags (``TAG_SYNONYMS``), that the tags do not hold already."""
    said = " ".join(tags).lower().replace("-", " ")  # "chinese-remainder-theorem" holds "chinese remainder theorem"
    found = [word for group in TAG_SYNONYMS if any(_holds(said, w) for w in group) for word in group]
    return " ".join(w for w in dict.fromkeys(found) if not _holds(said, w))


def _holds(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word.replace('-', ' '))}(?!\w)", text) is not None


class SearchFeed:
    """A build's search index, built while its entries are rendered.

    Entries are added as they come. Their records are cut into shards in the order of their paths
    (see ``shard_ends``), and each shard goes to Pagefind in the background as soon as all of its
    entries have come, one shard at a time; a shard whose records are those of a cached shard is
    taken from the cache. ``finish`` gives the whole index once every shard is done.
    """

    def __init__(self, config: SiteConfig, cache: PickleStore | None, paths: Iterable[str]) -> None:
        self.config, self.cache = config, cache
        self.order = sorted(paths)
        self.records: dict[str, Record | None] = {}  # by path; None: the entry is in no track of the site
        self.taken = 0  # how many of ``order`` are in ``shard`` or in a shard sent
        self.shard: list[Record] = []
        self.shards: list[Future[Shard]] = []
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")
        self.stopped = threading.Event()
        self.running: list[PagefindSession] = []

    def add(self, entry: Entry) -> None:
        reserved = entry.track in RESERVED_TRACKS
        self.records[entry.path] = None if reserved else search_record(entry, track_title(self.config, entry.track))
        while self.taken < len(self.order) and self.order[self.taken] in self.records:
            self._take(self.records[self.order[self.taken]])

    def finish(self) -> Future[SearchIndex]:
        """The index of every record added, built in the background."""
        for path in self.order[self.taken :]:
            if path in self.records:  # after an entry that never came
                self._take(self.records[path])
        if self.shard:
            self._send()
        shards = self.shards
        future = self.pool.submit(_assembled, shards)  # after every shard: one thread runs them in turn
        self.pool.shutdown(wait=False)  # the thread ends when the index is built
        return future

    def abandon(self) -> None:
        """Stop Pagefind: the build will not finish this index."""
        self.stopped.set()
        for session in list(self.running):
            session.abandon()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _take(self, record: Record | None) -> None:
        self.taken += 1
        if record is None:
            return
        self.shard.append(record)
        if shard_ends(record):
            self._send()

    def _send(self) -> None:
        records, self.shard = self.shard, []
        self.shards.append(self.pool.submit(self._index, records))

    def _index(self, records: list[Record]) -> Shard:
        if self.stopped.is_set():
            raise RuntimeError("the build stopped")
        return index_shard(records, self.cache, self.running.append)


@dataclass(frozen=True, slots=True)
class Shard:
    """One shard of the index: its first record's URL, the bundle's files, and its key in the cache."""

    first: str
    files: tuple[tuple[str, bytes], ...]
    key: str


def shard_ends(record: Record) -> bool:
    """Whether a shard ends after this record: decided by its URL alone, so that adding or removing
    an entry changes one shard and moves no boundary elsewhere (about one URL in SHARD_ENTRIES)."""
    digest = hashlib.sha256(record.url.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % SHARD_ENTRIES == 0


def shards_of(records: list[Record]) -> list[list[Record]]:
    """The records, in order, cut after each record that ends a shard."""
    shards: list[list[Record]] = [[]]
    for record in records:
        shards[-1].append(record)
        if shard_ends(record):
            shards.append([])
    return [shard for shard in shards if shard]


def build_search_index(
    records: list[Record],
    cache: PickleStore | None = None,
    background: Callable[[PagefindSession], None] | None = None,
) -> SearchIndex:
    """The Pagefind bundle for these records, one shard at a time (each cached by its content).

    ``background``: run Pagefind so that it yields the CPU to whatever else runs (the dev server's
    refresh, behind the author's next save), and hand each session to this, so that it can be
    abandoned (``PagefindSession.abandon``) from another thread."""
    try:
        return _joined([index_shard(shard, cache, background, background is not None) for shard in shards_of(records)])
    except Exception as e:
        return _failed(e)


def index_shard(
    records: list[Record],
    cache: PickleStore | None,
    started: Callable[[PagefindSession], None] | None = None,
    background: bool = False,
) -> Shard:
    """One shard's bundle: from the cache when it has these records' bundle, else made by Pagefind
    (``started`` is given its session first; ``background``: at the lowest CPU priority)."""
    if not pagefind_available():
        raise _Missing()
    payload = json.dumps([[r.url, r.title, r.text, r.editorial] for r in records], sort_keys=True).encode()
    key = "search-v6-" + hashlib.sha256(payload).hexdigest()
    cached = cache.get(key) if cache is not None else None
    if isinstance(cached, list):  # plain (path, bytes) pairs: no class of ours in the cache
        return Shard(records[0].url, tuple(cached), key)
    session = PagefindSession(background)
    if started is not None:
        started(session)
    try:
        for record in records:
            session.add(record)
        files = session.files()
    finally:
        session.close()
    if cache is not None:
        cache.put(key, files)
    return Shard(records[0].url, tuple(files), key)


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
    outputs = [Output(f"{BUNDLE}/{path}", data) for path, data in shards[0].files]
    folders = []
    for shard in shards[1:]:
        folder = f"{BUNDLE}/part-{hashlib.sha256(shard.first.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"
        folders.append(folder + "/")
        outputs += [Output(f"{folder}/{p}", d) for p, d in shard.files if _is_data(p)]
    outputs.append(Output(f"{BUNDLE}/{SHARDS}", json.dumps(folders).encode()))
    return SearchIndex(tuple(outputs), keys=tuple(s.key for s in shards))


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

    def add(self, record: Record) -> None:
        self._send(
            {
                "type": "AddRecord",
                "index_id": self.index,
                "url": "/" + record.url,
                "content": _content(record) + _editorial(record),
                "language": "en",
                # where the write-up starts in the content: a result matched only there says so
                "meta": {"title": record.title, "editorial": str(len(_content(record)) + 1)},
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
